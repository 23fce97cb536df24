// Command icons draws the web client's icons: a white speech bubble with
// a relay arrow cut out of it, on the client's accent colour (ADR 0111).
// It writes them into webclient/static/icons, from the top of the
// checkout:
//
//	go run ./tools/icons
//
// The PNGs are committed; TestCommittedIcons redraws them and fails when
// a committed file is not what this program writes, so they are never
// edited by hand.
//
// Every shape is tested in integer arithmetic, on a grid of samples
// (4×4 per pixel, averaged, for smooth edges), so every machine draws
// the same pixels: floating point could be fused differently on another
// architecture. The bytes of a PNG also depend on Go's compress/flate,
// which is why the toolchain is pinned (Makefile).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"
)

// The colours of webclient/static/app.css: --accent, and the mark on it.
var (
	accent = color.NRGBA{0x24, 0x57, 0xc5, 0xff}
	white  = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// samples is the number of samples per pixel along each axis.
const samples = 4

// icon is one file: its size, whether it fills its whole square (an icon
// that the platform masks: Android's maskable icons, iOS's home screen)
// or is a rounded square with transparent corners, and how large the
// mark is, in thousandths of the mark as designed.
type icon struct {
	name      string
	size      int
	fullBleed bool
	scale     int64 // ‰
}

// icons are the files written, as the manifest and index.html name them.
// The maskable icon's mark is smaller: a platform may cut it to a circle
// of 80 % of its width (the safe zone), and the bubble's tail reaches
// past that at full size.
var icons = []icon{
	{name: "icon-192.png", size: 192, scale: 1000},
	{name: "icon-512.png", size: 512, scale: 1000},
	{name: "icon-maskable-512.png", size: 512, fullBleed: true, scale: 800},
	{name: "apple-touch-icon.png", size: 180, fullBleed: true, scale: 1000},
	{name: "favicon-32.png", size: 32, scale: 1000},
}

func main() {
	dir := flag.String("dir", filepath.Join("webclient", "static", "icons"), "the folder the icons are written to")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, ic := range icons {
		b, err := encode(ic)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*dir, ic.name), b, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", filepath.Join(*dir, ic.name), len(b))
	}
}

// encode draws ic and returns its PNG.
func encode(ic icon) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, draw(ic)); err != nil {
		return nil, fmt.Errorf("icons: encoding %s: %w", ic.name, err)
	}
	return buf.Bytes(), nil
}

// draw renders ic: each pixel is the average of its samples, each of
// which is the mark (white), the background (accent) or outside the
// icon (transparent).
func draw(ic icon) *image.NRGBA {
	g := newGeometry(ic)
	img := image.NewNRGBA(image.Rect(0, 0, ic.size, ic.size))
	const n = samples * samples
	for py := 0; py < ic.size; py++ {
		for px := 0; px < ic.size; px++ {
			var marks, backs int64
			for sy := 0; sy < samples; sy++ {
				for sx := 0; sx < samples; sx++ {
					// Sample centres in half-samples: odd numbers.
					p := point{int64(2*(px*samples+sx) + 1), int64(2*(py*samples+sy) + 1)}
					switch {
					case !g.inBackground(p):
					case g.inMark(p):
						marks++
					default:
						backs++
					}
				}
			}
			img.SetNRGBA(px, py, blend(marks, backs, n))
		}
	}
	return img
}

// blend is the pixel of marks white samples and backs accent ones out
// of n, the rest transparent.
func blend(marks, backs, n int64) color.NRGBA {
	covered := marks + backs
	if covered == 0 {
		return color.NRGBA{}
	}
	mix := func(w, a uint8) uint8 {
		return uint8((marks*int64(w) + backs*int64(a) + covered/2) / covered)
	}
	return color.NRGBA{
		R: mix(white.R, accent.R),
		G: mix(white.G, accent.G),
		B: mix(white.B, accent.B),
		A: uint8((covered*255 + n/2) / n),
	}
}
