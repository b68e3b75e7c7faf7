package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestAcknowledgedWritesSurviveKill is the short form of the crash test:
// many writers post expenses while the server is killed with SIGKILL (no
// shutdown code runs), several times over; afterwards every write the
// server acknowledged is present. Writes are acknowledged only after the
// transaction holding them (group commit: possibly with others) is durable.
func TestAcknowledgedWritesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	createUser(t, dataDir, "ana@example.com")
	token := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", "ana@example.com",
		"--name", "crash", "--scopes", "all").stdout)
	serve := func() *serverProc {
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
			"--rate-limit", "off", "--access-log=false"))
	}
	const (
		rounds  = 3
		writers = 8
		killAt  = 100 // acknowledged writes per round before the kill
	)
	var (
		mu    sync.Mutex
		acked []string
	)
	for round := range rounds {
		srv := serve()
		var n atomic.Int64
		killed, reached := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-killed:
						return
					default:
					}
					body := fmt.Sprintf(`{"amount":"1.%02d","date":"2026-11-20","description":"crash %d-%d-%d","category":"Groceries","payment_method":"Cash"}`,
						i%100, round, w, i)
					id, ok := postExpense(srv.url, token, body)
					if !ok {
						continue // no acknowledgement: the server may be gone
					}
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
					if n.Add(1) == killAt {
						close(reached)
					}
				}
			}()
		}
		select {
		case <-reached:
		case <-srv.exited:
			t.Fatalf("server exited on its own in round %d", round)
		}
		srv.kill(t)
		close(killed)
		wg.Wait()
	}

	srv := serve()
	missing := 0
	for _, id := range acked {
		status, _ := call(t, http.MethodGet, srv.url+"/api/v1/expenses/"+id, token, nil)
		if status != http.StatusOK {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes missing after %d kills", missing, len(acked), rounds)
	}
}

// postExpense posts body and returns the new expense's id when the server
// acknowledged it with 201.
func postExpense(baseURL, token, body string) (string, bool) {
	req, err := http.NewRequest(http.MethodPost, baseURL+"/api/v1/expenses", strings.NewReader(body))
	if err != nil {
		return "", false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&env) != nil || env.Data.ID == "" {
		return "", false
	}
	return env.Data.ID, true
}
