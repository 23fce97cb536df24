package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// committed is where the icons are committed, from this package's folder.
var committed = filepath.Join("..", "..", "webclient", "static", "icons")

// TestCommittedIcons redraws every icon and compares it pixel for pixel
// with the committed file; the folder holds these files and no other.
func TestCommittedIcons(t *testing.T) {
	var want []string
	for _, ic := range icons {
		want = append(want, ic.name)
		got, err := os.ReadFile(filepath.Join(committed, ic.name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s: %v", ic.name, err)
		}
		if s := img.Bounds().Size(); s.X != ic.size || s.Y != ic.size {
			t.Fatalf("%s is %v, want %dx%d", ic.name, s, ic.size, ic.size)
		}
		// The pixels, not the bytes: another Go's compressor writes the
		// same picture in other bytes.
		if !samePixels(img, draw(ic)) {
			t.Errorf("%s is not what tools/icons draws: run `go run ./tools/icons` at the top of the checkout, never edit it by hand", ic.name)
		}
	}
	entries, err := os.ReadDir(committed)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Errorf("%s holds %q, want %q", committed, have, want)
	}
}

// TestIconShapes: an icon that fills its square is opaque to its corners
// (iOS shows transparency as black); one that does not has transparent
// corners and an opaque centre. Every icon holds both colours.
func TestIconShapes(t *testing.T) {
	for _, ic := range icons {
		img := draw(ic)
		corner, centre := img.NRGBAAt(0, 0), img.NRGBAAt(ic.size/2, ic.size/2)
		if ic.fullBleed {
			if !img.Opaque() {
				t.Errorf("%s fills its square but is not opaque", ic.name)
			}
		} else if corner.A != 0 || centre.A != 0xff {
			t.Errorf("%s: corner %v, centre %v, want transparent and opaque", ic.name, corner, centre)
		}
		if !has(img, white) || !has(img, accent) {
			t.Errorf("%s lacks the mark or its background", ic.name)
		}
	}
}

// TestMaskableSafeZone: outside the circle of 40 % of its width around
// its centre, which a platform may cut away, the maskable icon is
// nothing but its background. The control: the mark at full size, as
// in the other icons, reaches past it.
func TestMaskableSafeZone(t *testing.T) {
	var n int
	for _, ic := range icons {
		if ic.fullBleed && ic.scale != 1000 {
			n++
			if x, y, ok := outsideSafeZone(draw(ic)); ok {
				t.Errorf("%s has its mark at (%d, %d), outside the safe zone", ic.name, x, y)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d maskable icons, want 1", n)
	}
	if _, _, ok := outsideSafeZone(draw(icon{name: "control", size: 512, fullBleed: true, scale: 1000})); !ok {
		t.Fatal("the control: the mark at full size keeps to the safe zone, so the check sees nothing")
	}
}

// outsideSafeZone returns a pixel that is not the background and
// touches the outside of the safe zone: any part of it beyond the circle.
func outsideSafeZone(img *image.NRGBA) (x, y int, ok bool) {
	size := img.Bounds().Dx()
	r := size * 4 / 10
	for y := range size {
		for x := range size {
			// The pixel's farthest corner from the centre, in pixels.
			dx := max(abs(2*x-size), abs(2*x+2-size)) / 2
			dy := max(abs(2*y-size), abs(2*y+2-size)) / 2
			if dx*dx+dy*dy > r*r && img.NRGBAAt(x, y) != accent {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func abs(v int) int { return max(v, -v) }

func has(img *image.NRGBA, c interface{ RGBA() (r, g, b, a uint32) }) bool {
	want := img.ColorModel().Convert(c)
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			if img.At(x, y) == want {
				return true
			}
		}
	}
	return false
}

// samePixels reports whether a and b hold the same colours at every
// pixel, as non-premultiplied RGBA.
func samePixels(a image.Image, b *image.NRGBA) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := b.Rect.Min.Y; y < b.Rect.Max.Y; y++ {
		for x := b.Rect.Min.X; x < b.Rect.Max.X; x++ {
			if color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA) != b.NRGBAAt(x, y) {
				return false
			}
		}
	}
	return true
}
