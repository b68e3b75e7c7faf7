package store_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// walFrameHeader is the bytes SQLite writes before each page in the WAL.
const walFrameHeader = 24

// walPagesPerWrite counts the pages n calls of write add to db's WAL, per
// call: the WAL is emptied and its automatic checkpoints turned off first,
// so its growth divided by a frame's size is the pages the commits wrote.
func walPagesPerWrite(t *testing.T, db *store.DB, n int, write func(i int)) float64 {
	t.Helper()
	ctx := context.Background()
	pageSize, err := db.WriterPragma(ctx, "page_size")
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	if _, err := fmt.Sscan(pageSize, &size); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA wal_autocheckpoint = 0", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if err := db.WriterExec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, before := db.Size()
	if before != 0 {
		t.Fatalf("WAL holds %d bytes after a truncating checkpoint", before)
	}
	for i := range n {
		write(i)
	}
	_, after := db.Size()
	const walHeader = 32
	return float64(after-walHeader) / float64(size+walFrameHeader) / float64(n)
}

// walPagesByBTree names the B-tree of each page in db's WAL, with the
// number of times the WAL holds a page of it, most first.
func walPagesByBTree(t *testing.T, db *store.DB) string {
	t.Helper()
	wal, err := os.ReadFile(db.Path() + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	var pages []struct {
		Name   string
		Pageno uint32
	}
	if err := db.ReaderScan(context.Background(), &pages, "SELECT name, pageno FROM dbstat"); err != nil {
		t.Fatal(err)
	}
	owner := map[uint32]string{}
	for _, p := range pages {
		owner[p.Pageno] = p.Name
	}
	pageSize := int(binary.BigEndian.Uint32(wal[8:]))
	frames := map[string]int{}
	for off := 32; off+walFrameHeader+pageSize <= len(wal); off += walFrameHeader + pageSize {
		frames[owner[binary.BigEndian.Uint32(wal[off:])]]++
	}
	names := make([]string, 0, len(frames))
	for name := range frames {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return frames[names[i]] > frames[names[j]] })
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "  %-32s %d\n", name, frames[name])
	}
	return b.String()
}

// A Cash expense create is one commit; the pages it writes are the B-trees
// it touches (the expense, its indexes, the kept totals, the activity
// entry) and the database header. With a few thousand expenses already in
// the tables, so that B-trees have interior pages, it must stay within
// the budget that docs/benchmarks.md gives for a create.
func TestExpenseCreateWALPages(t *testing.T) {
	const budget = 15
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	svc := finance.NewService(db)
	alice := createUser(t, db, "alice@example.com")
	categories := []string{"Groceries", "Food & Dining", "Transportation", "Utilities"}
	req := func(i int) finance.ExpenseRequest {
		return finance.ExpenseRequest{Amount: finance.Of(finance.Money(100 + i%997)), Date: finance.Of(finance.NewDate(2026, time.Month(1+i%12), 1+i%28)),
			Description: finance.Of(fmt.Sprintf("expense %d", i)), Category: finance.Of(categories[i%len(categories)]),
			PaymentMethod: finance.Of(finance.MethodCash)}
	}
	for b := range 30 {
		items := make([]finance.ExpenseRequest, finance.MaxBulkItems)
		for i := range items {
			items[i] = req(b*finance.MaxBulkItems + i)
		}
		if _, err := svc.CreateExpenses(ctx, alice.ID, finance.BulkExpenseRequest{Items: items}); err != nil {
			t.Fatal(err)
		}
	}
	pages := walPagesPerWrite(t, db, 300, func(i int) {
		if _, err := svc.CreateExpense(ctx, alice.ID, req(5000+i)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("WAL pages per Cash expense create: %.1f", pages)
	if pages > budget {
		t.Errorf("a Cash expense create writes %.1f WAL pages, want at most %d; by B-tree:\n%s", pages, budget, walPagesByBTree(t, db))
	}
}
