// Package ascii checks the plain tokens that the service accepts or repeats
// back: API parameter names, OAuth values, Telegram secrets. Each is a run
// of ASCII letters and digits with a few punctuation bytes, between two
// lengths. A loop says that directly; a regular expression with a bounded
// repetition such as {1,200} compiles into a program of that many copies,
// which took about 3 ms of every start-up.
package ascii

// Only reports whether s has min to max bytes, each an ASCII letter, an
// ASCII digit or one of the bytes of punct.
func Only(s string, min, max int, punct string) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && !in(c, punct) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func in(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}
