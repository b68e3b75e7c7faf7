package aitest

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the e2e receipt fixture")

// receiptFixture is the receipt the browser journey uploads: SampleReceipt
// drawn by ReceiptPNG. Run go test ./ai/aitest -update to draw it again.
const receiptFixture = "../../e2e/fixtures/receipt.png"

// The committed fixture is what ReceiptPNG draws of SampleReceipt, pixel
// for pixel.
func TestReceiptFixture(t *testing.T) {
	drawn := ReceiptPNG(t, SampleReceipt)
	if *update {
		if err := os.WriteFile(receiptFixture, drawn, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(receiptFixture)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) image.Image {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	if !reflect.DeepEqual(decode(drawn), decode(committed)) {
		t.Fatal("the fixture is not what ReceiptPNG draws of SampleReceipt: run go test ./ai/aitest -update")
	}
}
