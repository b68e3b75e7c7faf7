package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/finance-app/finance/store"
)

// A looseFile is a file of the data directory that users other than its
// owner may read or write.
type looseFile struct {
	path string
	mode fs.FileMode
	want fs.FileMode
}

// loosePermissions lists the secrets and data in dataDir that the group or
// others may access: the directory itself, the database with its WAL and
// shared-memory files, and the JWT signing key. This program creates them
// for their owner only (0700 and 0600), but a directory made beforehand, a
// restored backup or a file copied in keeps whatever mode it had. Missing
// files are not reported. Windows has no such mode bits (Go makes them up
// from the read-only attribute), so nothing is reported there.
func loosePermissions(dataDir string) ([]looseFile, error) {
	if runtime.GOOS == "windows" {
		return nil, nil
	}
	db := filepath.Join(dataDir, store.FileName)
	checks := []struct {
		path string
		want fs.FileMode
	}{
		{dataDir, 0o700},
		{db, 0o600},
		{db + "-wal", 0o600},
		{db + "-shm", 0o600},
		{filepath.Join(dataDir, jwtSecretFile), 0o600},
	}
	var loose []looseFile
	for _, c := range checks {
		info, err := os.Stat(c.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			loose = append(loose, looseFile{path: c.path, mode: mode, want: c.want})
		}
	}
	return loose, nil
}

// warnLoosePermissions logs a warning, with the command that fixes it, for
// each file loosePermissions finds. It never stops the server: the modes may
// be a deliberate choice (a backup job in the owner's group, say).
func warnLoosePermissions(log *slog.Logger, dataDir string) {
	loose, err := loosePermissions(dataDir)
	if err != nil {
		log.Warn("could not check the permissions of the data directory", "err", err)
	}
	for _, l := range loose {
		log.Warn("other users of this computer may read this file; only its owner should",
			"path", l.path, "mode", fmt.Sprintf("%#o", l.mode), "fix", fmt.Sprintf("chmod %o %s", l.want, shellQuote(l.path)))
	}
}
