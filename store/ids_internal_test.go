package store

import (
	"strings"
	"testing"
)

func TestIDBytesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"v7", "019a21e1-1231-786e-a613-9874992e8742", true},
		{"zeros", "00000000-0000-0000-0000-000000000000", true},
		{"all f", "ffffffff-ffff-ffff-ffff-ffffffffffff", true},
		{"upper case", "019A21E1-1231-786E-A613-9874992E8742", false},
		{"no hyphens", "019a21e11231786ea6139874992e8742", false},
		{"hyphen moved", "019a21e-11231-786e-a613-9874992e8742", false},
		{"braces", "{019a21e1-1231-786e-a613-9874992e874}", false},
		{"not hex", "019a21e1-1231-786e-a613-9874992e874g", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := idBytes(tc.in)
			if ok != tc.ok {
				t.Fatalf("idBytes(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			}
			if ok && idText(b[:]) != tc.in {
				t.Errorf("idText(idBytes(%q)) = %q", tc.in, idText(b[:]))
			}
		})
	}
}

// The bytes of two ids order as their texts do, so an ORDER BY id (the
// lists' tiebreak) keeps its order through the conversion.
func TestIDBytesOrderAsText(t *testing.T) {
	ids := []string{"00000000-0000-0000-0000-000000000001", "019a21e1-1231-786e-a613-9874992e8742",
		"019a21e1-1231-786e-a613-9874992e8743", "0a000000-0000-0000-0000-000000000000", "a0000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-fffffffffffe"}
	for i := 1; i < len(ids); i++ {
		a, _ := idBytes(ids[i-1])
		b, _ := idBytes(ids[i])
		if strings.Compare(string(a[:]), string(b[:])) >= 0 {
			t.Errorf("bytes of %s do not order before those of %s", ids[i-1], ids[i])
		}
	}
}

func TestDialectWritesIDsAsBlobs(t *testing.T) {
	on := new(idSwitch)
	d := newSQLiteDialect(on)
	id := "019a21e1-1231-786e-a613-9874992e8742"
	if got := string(d.AppendString(nil, id)); got != `'`+id+`'` {
		t.Errorf("before the conversion: %s", got)
	}
	on.on.Store(true)
	if got, want := string(d.AppendString(nil, id)), `X'019a21e11231786ea6139874992e8742'`; got != want {
		t.Errorf("AppendString(id) = %s, want %s", got, want)
	}
	if got := string(d.AppendString(nil, "it's")); got != `'it''s'` {
		t.Errorf("AppendString(text) = %s", got)
	}
}
