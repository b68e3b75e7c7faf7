package finance

import (
	"strings"

	"github.com/google/uuid"
)

// NewID returns a new lowercase UUIDv7 string. Version 7 ids sort by creation
// time, which keeps B-tree inserts append-only and makes id a stable tiebreak.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidID reports whether s is a UUID in canonical lowercase text form.
// Path ids that fail this check are answered as not found.
func ValidID(s string) bool {
	if len(s) != 36 || s != strings.ToLower(s) {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}
