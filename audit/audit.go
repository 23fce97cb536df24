// Package audit lets an operator check what the relay keeps. Scan searches
// every file of a PostgreSQL data directory (heap and TOAST files of every
// database, the WAL, everything) for needles in each form a plaintext could
// take there; Stats reports what the relay holds right now, as counts and
// sizes only.
//
// audit reads; it never writes to the data directory or the database, and
// Stats never reads an envelope body.
package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unicode/utf16"
)

// MinNeedle is the shortest needle accepted: shorter ones would match
// ciphertext and page headers by chance.
const MinNeedle = 8

// Pieces of a file searched for by FilePieces.
const (
	pieceLen   = 48
	pieceCount = 16
)

// FilePieces are the needles that stand for a file's bytes (a photo, a
// document): a whole file is never stored in one run (PostgreSQL keeps
// values in pages of about 2 kB), so the search is for pieces of 48 bytes
// at 16 places spread over it. The first quarter (at most 1 KiB) is left
// out: files of a type share their first bytes (a JPEG's headers), which
// would match another file of that type. A file too short for that is
// one needle, whole; one shorter than MinNeedle is an error.
func FilePieces(data []byte) ([]string, error) {
	if len(data) < MinNeedle {
		return nil, fmt.Errorf("audit: a file of %d bytes is shorter than %d; a short needle matches by chance", len(data), MinNeedle)
	}
	skip := min(len(data)/4, 1024)
	if len(data)-skip < pieceLen*pieceCount {
		return []string{string(data)}, nil
	}
	step := (len(data) - skip - pieceLen) / (pieceCount - 1)
	out := make([]string, 0, pieceCount)
	for i := range pieceCount {
		at := skip + i*step
		out = append(out, string(data[at:at+pieceLen]))
	}
	return out, nil
}

// Form is one byte pattern a needle can take on disk.
type Form struct {
	Needle string
	Name   string // utf-8, utf-16le, utf-16be, base64, hex, HEX
	Bytes  []byte
}

// Forms returns every form of needle that Scan looks for: UTF-8, UTF-16 in
// both byte orders, standard base64 of the UTF-8 bytes at each of the three
// alignments it can have inside a longer base64 text, and hex in lower and
// upper case.
func Forms(needle string) ([]Form, error) {
	if len(needle) < MinNeedle {
		return nil, fmt.Errorf("audit: needle %q is shorter than %d bytes; a short needle matches by chance", needle, MinNeedle)
	}
	u := []byte(needle)
	forms := []Form{{needle, "utf-8", u}}
	units := utf16.Encode([]rune(needle))
	le := make([]byte, 0, 2*len(units))
	be := make([]byte, 0, 2*len(units))
	for _, c := range units {
		le = append(le, byte(c), byte(c>>8))
		be = append(be, byte(c>>8), byte(c))
	}
	forms = append(forms, Form{needle, "utf-16le", le}, Form{needle, "utf-16be", be})
	// Inside a longer text, the needle's bytes start at offset 0, 1 or 2
	// of a 3-byte base64 group. For each, keep only the characters that
	// depend on the needle alone.
	for k := 0; k < 3; k++ {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, k), u...))
		start := 0
		if k > 0 {
			start = 4
		}
		end := 4 * ((k + len(u)) / 3)
		if end-start >= 8 {
			forms = append(forms, Form{needle, "base64", []byte(enc[start:end])})
		}
	}
	h := hex.EncodeToString(u)
	forms = append(forms, Form{needle, "hex", []byte(h)}, Form{needle, "HEX", bytes.ToUpper([]byte(h))})
	return forms, nil
}

// Hit is one place a form was found.
type Hit struct {
	Path   string // relative to the data directory
	Offset int64
	Form   Form
}

// Report is the result of a Scan.
type Report struct {
	Files      int
	Bytes      int64
	Hits       []Hit
	Unreadable []string // files that could not be read: the scan is incomplete
}

// Progress is called now and then during a scan.
type Progress func(files int, bytes int64)

const chunk = 1 << 20

// Scan reads every regular file under dir and reports where the forms occur.
// progress, if not nil, is called about every second.
func Scan(dir string, forms []Form, progress Progress) (*Report, error) {
	if len(forms) == 0 {
		return nil, errors.New("audit: nothing to look for")
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("audit: %s is not a directory", dir)
	}
	longest := 0
	for _, f := range forms {
		if len(f.Bytes) > longest {
			longest = len(f.Bytes)
		}
	}
	rep := &Report{}
	last := time.Now()
	buf := make([]byte, chunk+longest)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if err != nil {
			// A database dropped or a WAL segment recycled while we
			// walk is gone, not hidden; anything else leaves a hole.
			if !errors.Is(err, fs.ErrNotExist) {
				rep.Unreadable = append(rep.Unreadable, rel)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n, hits, err := scanFile(path, rel, forms, buf, longest)
		rep.Bytes += n
		rep.Hits = append(rep.Hits, hits...)
		if err != nil {
			// PostgreSQL may remove a WAL segment or a temporary file
			// while we walk; only a file that exists and cannot be read
			// leaves a hole in the audit.
			if !errors.Is(err, fs.ErrNotExist) {
				rep.Unreadable = append(rep.Unreadable, rel)
			}
			return nil
		}
		rep.Files++
		if progress != nil && time.Since(last) > time.Second {
			progress(rep.Files, rep.Bytes)
			last = time.Now()
		}
		return nil
	})
	sort.Slice(rep.Hits, func(i, j int) bool {
		if rep.Hits[i].Path != rep.Hits[j].Path {
			return rep.Hits[i].Path < rep.Hits[j].Path
		}
		return rep.Hits[i].Offset < rep.Hits[j].Offset
	})
	return rep, err
}

// scanFile searches one file in chunks that overlap by longest-1 bytes, so
// that a form split across two chunks is still found, and found once.
func scanFile(path, rel string, forms []Form, buf []byte, longest int) (int64, []Hit, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var (
		hits  []Hit
		total int64
		keep  int // bytes carried over from the previous chunk
		base  int64
	)
	for {
		n, err := io.ReadFull(f, buf[keep:keep+chunk])
		total += int64(n)
		window := buf[:keep+n]
		for _, form := range forms {
			for off := 0; ; {
				i := bytes.Index(window[off:], form.Bytes)
				if i < 0 {
					break
				}
				pos := off + i
				// A match lying wholly in the carried-over bytes was
				// already reported with the previous chunk.
				if pos+len(form.Bytes) > keep {
					hits = append(hits, Hit{Path: rel, Offset: base + int64(pos), Form: form})
				}
				off = pos + 1
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return total, hits, nil
		}
		if err != nil {
			return total, hits, err
		}
		carry := longest - 1
		if carry > len(window) {
			carry = len(window)
		}
		base += int64(len(window) - carry)
		copy(buf, window[len(window)-carry:])
		keep = carry
	}
}
