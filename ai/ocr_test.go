package ai

import (
	"os"
	"path/filepath"
	"testing"
)

// imageFile writes data to a file of the test's and returns it as an Image,
// as the server hands uploads to the engines.
func imageFile(t testing.TB, data []byte, contentType string) Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "upload")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return Image{Path: path, ContentType: contentType}
}
