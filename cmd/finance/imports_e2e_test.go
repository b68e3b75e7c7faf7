package main

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/finance-app/finance/internal/testkit"
)

// importRows is the size of the bank file killed mid-commit: large enough
// that its commit (one transaction of 10,000 records, about 5 s on a small
// two-core server) is still running when the kill comes.
const importRows = 10_000

// A server killed with SIGKILL while it commits an import leaves nothing
// half-written: after the restart the batch is still a preview, the ledger
// holds none of its records and the balance is as before, and the commit
// then goes through whole.
func TestImportCommitSurvivesKill(t *testing.T) {
	l := startLedgerServer(t, "importer@example.com", "all")
	acct := l.api(http.MethodPost, "/accounts", map[string]any{"name": "BPI Savings", "type": "savings", "opening_balance": 1000}, http.StatusCreated)
	var account struct{ ID string }
	mustDecode(t, acct.Data, &account)

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("target_account_id", account.ID)
	fw, _ := mw.CreateFormFile("file", "bank.csv")
	fw.Write(testkit.BankCSV(importRows))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, l.srv.url+"/api/v1/imports", &form)
	req.Header.Set("Authorization", "Bearer "+l.key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var preview envelope
	json.NewDecoder(resp.Body).Decode(&preview)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("preview: %d %+v", resp.StatusCode, preview.Error)
	}
	var batch importState
	mustDecode(t, preview.Data, &batch)
	if batch.Summary.New != importRows {
		t.Fatalf("preview: %d new rows, want %d", batch.Summary.New, importRows)
	}
	before := l.ledgerState(account.ID, batch.ID)

	// The commit is sent, and the server killed while it runs.
	answered := make(chan int, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, l.srv.url+"/api/v1/imports/"+batch.ID+"/commit", nil)
		req.Header.Set("Authorization", "Bearer "+l.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0 // the connection died with the server
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(300 * time.Millisecond) // into the commit's transaction, well before its end
	l.killAndRestart()
	if status := <-answered; status != 0 {
		t.Fatalf("the commit answered %d before the kill: the kill did not come during the commit", status)
	}

	after := l.ledgerState(account.ID, batch.ID)
	if after != before {
		t.Errorf("after a kill during the commit: %+v, want it as before the commit: %+v", after, before)
	}

	// The batch, still a preview, commits whole.
	l.api(http.MethodPost, "/imports/"+batch.ID+"/commit", nil, http.StatusOK)
	done := l.ledgerState(account.ID, batch.ID)
	if done.Status != "committed" || done.Created != importRows || done.Expenses+done.Income != before.Expenses+before.Income+importRows {
		t.Errorf("the commit after the restart: %+v (before: %+v)", done, before)
	}
}

// importState is what an import's commit changes, as the API shows it.
type importState struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Summary struct {
		New     int `json:"new"`
		Created int `json:"created"`
	} `json:"summary"`
}

// ledgerFigures are the batch's state and what its commit would change.
type ledgerFigures struct {
	Status           string
	Created          int
	Expenses, Income int
	Balance          string
}

func (l *ledgerServer) ledgerState(accountID, batchID string) ledgerFigures {
	l.t.Helper()
	var b importState
	mustDecode(l.t, l.api(http.MethodGet, "/imports/"+batchID, nil, http.StatusOK).Data, &b)
	var acct struct {
		Balance json.Number `json:"current_balance"`
	}
	mustDecode(l.t, l.api(http.MethodGet, "/accounts/"+accountID, nil, http.StatusOK).Data, &acct)
	total := func(path string) int {
		var list struct {
			Pagination struct {
				TotalItems int `json:"total_items"`
			} `json:"pagination"`
		}
		mustDecode(l.t, l.api(http.MethodGet, path+"?limit=1", nil, http.StatusOK).Data, &list)
		return list.Pagination.TotalItems
	}
	return ledgerFigures{Status: b.Status, Created: b.Summary.Created, Expenses: total("/expenses"), Income: total("/income"),
		Balance: acct.Balance.String()}
}

func mustDecode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
}
