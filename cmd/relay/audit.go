package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/audit"
)

// errHits makes `relay audit` exit 1: the audit ran and found plaintext.
var errHits = errors.New("plaintext found")

const auditUsage = `Usage:
  relay audit --needle TEXT [--needle TEXT ...] [--needle-file FILE ...] --pgdata DIR [--database-url URL]
      search every file of the data directory (heap, TOAST, WAL) for each needle
      as UTF-8, UTF-16, base64 and hex, and for pieces of each file (a photo, a
      document: 16 pieces of 48 bytes spread over it); exit 1 on any hit
  relay audit --stats --database-url URL
      report accounts, devices, sessions, idempotency records and queued
      envelopes: counts and sizes only

Flags:
`

// runAudit is `relay audit`: a search of PostgreSQL's files for needles, or
// with --stats a report of what the relay holds (docs/operations.md).
func runAudit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("relay audit")
	var needles []string
	fs.Func("needle", "text to search for; repeat for several (at least 8 bytes each)", func(s string) error {
		needles = append(needles, s)
		return nil
	})
	var files []string
	fs.Func("needle-file", "a file whose bytes to search for (a photo sent); repeat for several", func(s string) error {
		files = append(files, s)
		return nil
	})
	var pgdata, dbURL, config string
	bindConfig(fs, &config)
	bind(fs, fs.StringVar, &pgdata, "pgdata", "PGDATA", "", "PostgreSQL data directory to search")
	stats := fs.Bool("stats", false, "report what the relay holds now (needs --database-url)")
	bind(fs, fs.StringVar, &dbURL, "database-url", "DATABASE_URL", "", "the relay's database, for --stats and for setting checks")
	if err := fs.parse(args, auditUsage, stdout); err != nil {
		return err
	}
	ctx := context.Background()
	if *stats {
		if dbURL == "" {
			return errors.New("relay audit --stats needs --database-url, DATABASE_URL or the relay's --config file")
		}
		pool, err := pgxpool.New(ctx, dbURL)
		if err != nil {
			return err
		}
		defer pool.Close()
		s, err := audit.ReadStats(ctx, pool, time.Now())
		if err != nil {
			return fmt.Errorf("reading the relay's tables (is this the relay's database?): %w", err)
		}
		printStats(stdout, s)
		return nil
	}
	if len(needles)+len(files) == 0 || pgdata == "" {
		return errors.New("relay audit needs at least one --needle or --needle-file and --pgdata, or --stats (see relay audit --help)")
	}
	// label names a file's piece in a hit: its bytes are no text to print.
	label := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading --needle-file: %w", err)
		}
		pieces, err := audit.FilePieces(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for i, p := range pieces {
			label[p] = fmt.Sprintf("piece %d of %s", i+1, f)
			needles = append(needles, p)
		}
	}
	var forms []audit.Form
	for _, n := range needles {
		f, err := audit.Forms(n)
		if err != nil {
			return err
		}
		forms = append(forms, f...)
	}
	warnings := audit.ConfWarnings(pgdata)
	if dbURL != "" {
		pool, err := pgxpool.New(ctx, dbURL)
		if err == nil {
			ws, err := audit.DBWarnings(ctx, pool)
			pool.Close()
			if err != nil {
				fmt.Fprintf(stderr, "audit: could not check the database settings: %v\n", err)
			}
			warnings = mergeWarnings(warnings, ws)
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(stdout, "warning: %s = %s: %s\n", w.Setting, w.Value, w.Advice)
	}
	fmt.Fprintf(stderr, "audit: searching %s for %d needle(s) in %d forms (UTF-8, UTF-16, base64, hex)\n", pgdata, len(needles), len(forms))
	rep, err := audit.Scan(pgdata, forms, func(files int, n int64) {
		fmt.Fprintf(stderr, "audit: %d files, %s read…\n", files, size(n))
	})
	if err != nil {
		return err
	}
	for _, h := range rep.Hits {
		what := fmt.Sprintf("%q", h.Form.Needle)
		if l, ok := label[h.Form.Needle]; ok {
			what = l
		}
		fmt.Fprintf(stdout, "HIT %s at byte %d: %s as %s\n", h.Path, h.Offset, what, h.Form.Name)
	}
	if len(rep.Unreadable) > 0 {
		return fmt.Errorf("%d files could not be read, so the audit is incomplete (run it as the data directory's owner or as root): %s",
			len(rep.Unreadable), strings.Join(rep.Unreadable[:min(5, len(rep.Unreadable))], ", "))
	}
	if len(rep.Hits) > 0 {
		fmt.Fprintf(stdout, "audit: %d hit(s) in %d files (%s read): the needles are on disk\n", len(rep.Hits), rep.Files, size(rep.Bytes))
		return errHits
	}
	fmt.Fprintf(stdout, "audit: no hit in %d files (%s read)\n", rep.Files, size(rep.Bytes))
	return nil
}

func mergeWarnings(a, b []audit.Warning) []audit.Warning {
	seen := map[string]bool{}
	var out []audit.Warning
	for _, w := range append(a, b...) {
		if !seen[w.Setting] {
			seen[w.Setting] = true
			out = append(out, w)
		}
	}
	return out
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func printStats(w io.Writer, s *audit.Stats) {
	printCounts(w, s)
	if len(s.PerDevice) == 0 {
		fmt.Fprintln(w, "no device has anything queued")
		return
	}
	fmt.Fprintln(w, "\nqueued per device (oldest first):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "device\taccount\tqueued\tbytes\toldest")
	for _, d := range s.PerDevice {
		note := ""
		if d.Revoked {
			note = " (revoked)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%s\t%s\n", d.Device, note, d.Account, d.Queued, size(d.Bytes), d.Oldest.Round(time.Second))
	}
	tw.Flush()
}
