// Command finance is the self-hosted personal finance tracker: one binary
// holding the REST API, the MCP endpoint, the web pages and the embedded
// SQLite database, plus the admin commands that manage users, API keys and
// backups.
//
// This package is the composition root: it reads flags and environment
// variables, opens the store and wires the packages together. It holds no
// business rules.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/finance-app/finance/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newRootCmd(&cli{stdin: stdin, stdout: stdout, stderr: stderr})
	cmd.SetArgs(args)
	cmd.SetIn(stdin)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.ExecuteContext(ctx); err != nil {
		// Every error's message is written for a person: validation errors
		// list their field problems once (finance.ValidationError.Error).
		fmt.Fprintln(stderr, "error:", err)
		return exitCode(err)
	}
	return 0
}

// exitCode tells scripts apart the refusals they may act on; every other
// failure exits 1.
func exitCode(err error) int {
	var newer *store.SchemaNewerError
	switch {
	case errors.Is(err, store.ErrBadBackup):
		return 3 // the file given is not a sound backup
	case errors.As(err, &newer):
		return 4 // a database or backup written by a newer finance
	case errors.Is(err, store.ErrInUse), errors.Is(err, store.ErrRestoring):
		return 5 // the database is in use, or being restored
	}
	return 1
}
