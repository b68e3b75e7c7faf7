package importfile

import (
	"errors"

	"github.com/finance-app/finance/finance"
)

// ReadForLedger reads a file as Read does, at most finance.MaxImportRows
// rows, and turns it into the rows an import batch previews. The REST route
// and the web app's Import page both read uploads through it, so a file
// reads the same at either door. A file that cannot be read is a
// *finance.ValidationError on the field to fix (file, format, mapping,
// date_format, decimal_separator, encoding) with the line; the Result is
// returned beside the rows for what a page shows of the file (its columns
// and the mapping used), and beside a mapping problem with the CSV's
// columns alone, for a form to map them.
func ReadForLedger(name string, data []byte, opt Options) (finance.ImportFile, *Result, error) {
	opt.MaxRows = finance.MaxImportRows
	res, err := Read(name, data, opt)
	var fe *Error
	if errors.As(err, &fe) {
		field := fe.Field
		if field == "" {
			field = "file"
		}
		var res *Result
		if fe.Columns != nil {
			res = &Result{Format: CSV, Columns: fe.Columns}
		}
		return finance.ImportFile{}, res, finance.Invalid(field, fe.Error())
	}
	if err != nil {
		return finance.ImportFile{}, nil, err
	}
	out := finance.ImportFile{Name: name, Format: string(res.Format), Encoding: res.Encoding, Currency: res.Currency,
		Rows: make([]finance.ImportFileRow, len(res.Rows)), Errors: make([]finance.ImportLineError, len(res.Errors))}
	for i, r := range res.Rows {
		out.Rows[i] = finance.ImportFileRow{Line: r.Line, Date: r.Date, Amount: r.Amount, Direction: string(r.Direction),
			Description: r.Description, Payee: r.Payee, Category: r.Category, BankID: r.BankID}
	}
	for i, e := range res.Errors {
		out.Errors[i] = finance.ImportLineError{Line: e.Line, Message: e.Message}
	}
	return out, res, nil
}
