// Package aitest renders receipts for the tests of AI parsing: a printed
// receipt drawn in Go (the Go fonts), as a PNG, so that OCR can be tested
// end to end without image files in the repository.
package aitest

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// ReceiptPNG draws lines of monospaced black text on white, like a printed
// receipt, and encodes it as PNG.
func ReceiptPNG(t testing.TB, lines []string) []byte {
	t.Helper()
	f, err := opentype.Parse(gomono.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 28, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	const margin, lineHeight = 40, 40
	width := 0
	for _, l := range lines {
		width = max(width, font.MeasureString(face, l).Ceil())
	}
	img := image.NewGray(image.Rect(0, 0, width+2*margin, len(lines)*lineHeight+2*margin))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(margin, margin+(i+1)*lineHeight-10)
		d.DrawString(l)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// SampleReceipt is a printed receipt: merchant, address, date, items, total, payment.
var SampleReceipt = []string{
	"JOLLIBEE FOODS",
	"Ayala Ave, Makati City",
	"VAT REG TIN 000-123-456-000",
	"Date: 11/08/2025  12:41 PM",
	"OR No. 00012345",
	"",
	"1 Chickenjoy Meal      189.00",
	"2 Burger Steak         258.00",
	"1 Peach Mango Pie       45.00",
	"",
	"SUBTOTAL               492.00",
	"VAT 12%                 52.71",
	"TOTAL                  492.00",
	"CASH                   500.00",
	"CHANGE                   8.00",
	"",
	"Thank you, come again!",
}

// RequireOCR skips the test when tesseract is not on the PATH, except in
// CI (the CI variable is set), where the OCR tests must run: there its
// absence fails the test.
func RequireOCR(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("tesseract is not on the PATH, and CI must run the OCR tests: install tesseract-ocr (.ci/run does)")
	}
	t.Skip("tesseract is not on the PATH; install tesseract-ocr to run the OCR tests (CI always runs them)")
}
