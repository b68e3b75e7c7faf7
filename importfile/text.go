package importfile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	xunicode "golang.org/x/text/encoding/unicode"
)

// decode turns the file's bytes into UTF-8 text with plain "\n" line ends
// and returns the name of the encoding used. Without a name it follows the
// byte order mark, then valid UTF-8, then the zero bytes of BOM-less
// UTF-16, and falls back to windows-1252: the charset of most bank files
// that are not UTF-8, and one in which every byte means something, so a
// guess never fails.
func decode(data []byte, name string) (string, string, error) {
	var enc encoding.Encoding
	var used string
	if name != "" {
		e, err := htmlindex.Get(strings.ToLower(strings.TrimSpace(name)))
		if err != nil {
			return "", "", &Error{Field: "encoding", Message: fmt.Sprintf("encoding %q is not one this reader knows (utf-8, utf-16, windows-1252, iso-8859-1, iso-8859-15 ...)", name)}
		}
		enc = e
		used, _ = htmlindex.Name(e)
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		enc, used = xunicode.UTF8BOM, "utf-8"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc, used = xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM), "utf-16le"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc, used = xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM), "utf-16be"
	case enc != nil:
		// A named encoding stands when the file has no byte order mark to contradict it.
	case utf8.Valid(data):
		enc, used = encoding.Nop, "utf-8"
	case looksUTF16(data, 1):
		enc, used = xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM), "utf-16le"
	case looksUTF16(data, 0):
		enc, used = xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM), "utf-16be"
	default:
		enc, used = charmap.Windows1252, "windows-1252"
	}
	if used == "utf-8" && !utf8.Valid(data) {
		// UTF-8 named, or marked by a BOM, yet not UTF-8: decoding would
		// turn the bad bytes into U+FFFD without a word.
		return "", "", &Error{Field: "encoding", Message: "the file is not valid UTF-8; set the encoding (windows-1252 is common for bank files)"}
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", "", &Error{Field: "encoding", Message: fmt.Sprintf("the file is not valid %s: %v", used, err)}
	}
	text := strings.TrimPrefix(string(out), "\uFEFF")
	// Old Macintosh files end lines in a lone CR, Windows in CRLF.
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return text, used, nil
}

// looksUTF16 reports whether most bytes at the given parity of the file's
// start are zero, as in BOM-less UTF-16 text of Latin letters (odd for
// little endian, even for big endian).
func looksUTF16(data []byte, parity int) bool {
	n := min(len(data), 512) &^ 1
	if n < 4 {
		return false
	}
	zeros := 0
	for i := parity; i < n; i += 2 {
		if data[i] == 0 {
			zeros++
		}
	}
	return zeros*10 >= (n/2)*9
}

// detectText says which format the text is: its content decides first
// (a .csv download that is really OFX reads as OFX), then the extension.
func detectText(name, text string) (Format, error) {
	head := strings.TrimLeftFunc(text[:min(len(text), 4096)], unicode.IsSpace)
	upperHead := strings.ToUpper(head)
	switch {
	case strings.HasPrefix(upperHead, "OFXHEADER") || strings.Contains(upperHead, "<OFX>") || strings.Contains(upperHead, "<?OFX"):
		return OFX, nil
	case strings.Contains(head, "BkToCstmrStmt") || strings.Contains(head, "BkToCstmrAcctRpt") || strings.Contains(head, "camt.05"):
		return CAMT, nil
	case strings.HasPrefix(upperHead, "!TYPE:") || strings.HasPrefix(upperHead, "!ACCOUNT") || strings.HasPrefix(upperHead, "!OPTION"):
		return QIF, nil
	case strings.HasPrefix(head, "{1:") || (strings.HasPrefix(head, ":20:") && strings.Contains(head, "\n:25:")):
		return MT940, nil
	}
	if strings.HasPrefix(head, "%PDF") {
		return "", &Error{Field: "format", Message: "the file is a PDF, whose text is not read; download the statement as CSV, OFX, QIF, CAMT or MT940 instead"}
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".ofx", ".qfx":
		return OFX, nil
	case ".qif":
		return QIF, nil
	case ".sta", ".mt940", ".940":
		return MT940, nil
	case ".xml":
		return "", &Error{Field: "format", Message: "the XML file is neither a CAMT statement (BkToCstmrStmt or BkToCstmrAcctRpt) nor OFX"}
	}
	if strings.ContainsRune(head, 0) || binaryish(head) {
		return "", &Error{Field: "format", Message: "the file is not a bank statement this reader knows (CSV, OFX, QFX, QIF, CAMT.053/.052, MT940)"}
	}
	if strings.TrimSpace(text) == "" {
		return "", &Error{Field: "file", Message: "the file is empty"}
	}
	return CSV, nil
}

// binaryish reports whether the text is mostly control characters, as a
// picture or a PDF decoded as windows-1252 is.
func binaryish(s string) bool {
	control := 0
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			control++
		}
	}
	return control*20 > len(s)
}

// checkLineLengths refuses a line longer than MaxLineBytes, naming it,
// before a line-based reader splits it.
func checkLineLengths(text string) error {
	line := 1
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			i = len(text)
		}
		if i > MaxLineBytes {
			return fileError(line, "the line is longer than %d KiB; this is not a statement line", MaxLineBytes>>10)
		}
		text = text[min(i+1, len(text)):]
		line++
	}
	return nil
}

// clean trims text and collapses its inner whitespace (newlines of a
// quoted cell or a multi-line :86: included) to single spaces.
func clean(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// firstNonEmpty returns the first of the texts that is not empty.
func firstNonEmpty(texts ...string) string {
	for _, t := range texts {
		if t != "" {
			return t
		}
	}
	return ""
}

// lineAt returns the 1-based line of byte offset off in text.
func lineAt(text string, off int) int {
	return strings.Count(text[:min(off, len(text))], "\n") + 1
}

// lineCursor finds the lines of increasing offsets, counting each newline
// once: a statement written on one 10 MB line with thousands of entries
// would cost a full count per entry with lineAt.
type lineCursor struct {
	text      string
	off, line int
}

func (c *lineCursor) at(off int) int {
	if c.line == 0 {
		c.line = 1
	}
	off = min(off, len(c.text))
	if off < c.off {
		return lineAt(c.text, off)
	}
	c.line += strings.Count(c.text[c.off:off], "\n")
	c.off = off
	return c.line
}

// refuseEntities turns away XML that declares entities: encoding/xml never
// expands them, but such a file is no bank's statement, and a reader that
// did expand them would be open to the billion laughs.
func refuseEntities(text string) error {
	if i := strings.Index(text, "<!ENTITY"); i >= 0 {
		return fileError(lineAt(text, i), "the file declares XML entities (<!ENTITY ...>), which no statement needs; it is refused")
	}
	return nil
}
