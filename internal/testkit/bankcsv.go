package testkit

import (
	"fmt"
	"strings"
)

// BankCSV is a bank's statement export of rows lines, all in January 2026:
// a preamble before the header, dates DD/MM/YYYY, a debit and a credit
// column with thousands separators, a running balance, and one salary
// credit in three lines. It is the file the import measurements and the
// import crash test read.
func BankCSV(rows int) []byte {
	var csv strings.Builder
	csv.WriteString("Account Name:,JUAN DELA CRUZ\n\nTransaction Date,Description,Debit,Credit,Running Balance\n")
	for i := range rows {
		day := i%28 + 1
		if i%3 == 0 {
			fmt.Fprintf(&csv, "%02d/01/2026,\"SALARY CREDIT %d\",,\"%d,%03d.%02d\",\"1,000.00\"\n", day, i, 1+i%90, i%1000, i%100)
		} else {
			fmt.Fprintf(&csv, "%02d/01/2026,POS PURCHASE STORE %d,\"%d,%03d.%02d\",,\"1,000.00\"\n", day, i, 1+i%90, i%1000, i%100)
		}
	}
	return []byte(csv.String())
}
