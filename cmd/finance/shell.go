package main

import (
	"runtime"
	"strings"
)

// shellQuote returns s as one word of a command line that can be pasted into
// a shell: unchanged when no shell treats any of its characters specially,
// else quoted. POSIX shells get single quotes (inside which only the quote
// itself needs care); Windows gets double quotes, which both cmd.exe and
// PowerShell read as one argument (a Windows path cannot contain one).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuoting) < 0 {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needsQuoting reports whether a shell may treat r specially (whitespace,
// quotes, $, *, ~, ; and the like), or r is not plain ASCII.
func needsQuoting(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	case strings.ContainsRune("_-+=,./:@%", r):
		return false
	case r == '\\' && runtime.GOOS == "windows": // the path separator
		return false
	}
	return true
}
