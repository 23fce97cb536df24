package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"relay/reports"
)

// relay admin reports: the reports people filed about an account
// (docs/operations.md, "Reports"; ADR 0118). What they print is for the
// operator, who may read it: usernames and the reported messages in
// plain text. The log on stderr names a report by its number alone.

// errNoReport makes `relay admin reports show` and `resolve` exit 1, as
// errNoAccount does for the commands that name an account.
var errNoReport = errors.New("no such report")

// maxNote bounds --note, as the reporter's comment is bounded.
const maxNote = reports.MaxComment

var reportCommands = []adminCommand{
	{words: "reports list", run: (*admin).listReports, flags: func(fs *flags, a *admin) {
		fs.BoolVar(&a.all, "all", false, "resolved reports too")
		fs.BoolVar(&a.asJSON, "json", false, "print JSON")
	}, usage: `Usage: relay admin reports list [--all] [--json] [--database-url URL]

Lists the open reports, oldest first (every report with --all): its
number, when it was filed, its reason, who filed it, whom it is about,
how many messages it holds and, with --all, whether it was resolved.
relay admin reports show N prints one whole. --json prints the same as
a JSON array, times in RFC 3339.
`},
	{words: "reports show", id: reportNumber, idName: "N", run: (*admin).showReport, flags: func(fs *flags, a *admin) {
		fs.BoolVar(&a.asJSON, "json", false, "print JSON")
	}, usage: `Usage: relay admin reports show N [--json] [--database-url URL]

Prints report N whole: who filed it and when, whom it is about, the
reason and comment, and the messages in the order the reporter chose,
each with its sender, time and text, as the reporter's client sent them.
The relay cannot check that they were sent so: a report is a claim.
Characters a terminal would act on (escapes, other controls, reordering
marks) are shown as \x1b, \u202e and the like; --json prints the report
exactly, with those escaped as JSON allows.
`},
	{words: "reports resolve", id: reportNumber, idName: "N", run: (*admin).resolveReport, flags: func(fs *flags, a *admin) {
		fs.StringVar(&a.note, "note", "", "what was done, kept with the report")
	}, usage: `Usage: relay admin reports resolve N [--note TEXT] [--database-url URL]

Closes report N, with --note saying what was done, if you like (such as
"disabled bob"). The relay deletes a resolved report 90 days later.
Resolving it again changes nothing, and says when it was resolved. To
act on the account reported: relay admin disable or delete. Logged on
stderr with the number, never the note.
`},
}

// reportNumber reads the N that relay admin reports show and resolve take.
func reportNumber(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a report number: relay admin reports list shows them, whole numbers from 1", s)
	}
	return n, nil
}

// checkReportFlags checks --note before the database is opened.
func checkReportFlags(words string, a *admin) error {
	if words == "reports resolve" && (utf8.RuneCountInString(a.note) > maxNote || strings.ContainsRune(a.note, 0)) {
		return fmt.Errorf("--note must be at most %d characters", maxNote)
	}
	return nil
}

func (a *admin) listReports(ctx context.Context, _ string) error {
	list, err := reports.List(ctx, a.pool, a.all)
	if err != nil {
		return err
	}
	if a.asJSON {
		type line struct {
			Number     int64   `json:"number"`
			CreatedAt  string  `json:"createdAt"`
			Reason     string  `json:"reason"`
			Reporter   string  `json:"reporter"`
			About      string  `json:"about"`
			Messages   int     `json:"messages"`
			ResolvedAt *string `json:"resolvedAt"`
		}
		out := make([]line, 0, len(list))
		for _, s := range list {
			out = append(out, line{s.Number, stamp(s.CreatedAt), s.Reason, s.Reporter, s.About, s.Messages, resolvedAt(s.ResolvedAt)})
		}
		return a.printJSON(out)
	}
	if len(list) == 0 {
		if a.all {
			fmt.Fprintln(a.stdout, "no reports")
		} else {
			fmt.Fprintln(a.stdout, "no open reports (relay admin reports list --all shows the resolved ones too)")
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "number\tcreated\treason\treporter\tabout\tmessages")
	if a.all {
		fmt.Fprint(tw, "\tstate")
	}
	fmt.Fprintln(tw)
	for _, s := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d", s.Number, stamp(s.CreatedAt), s.Reason, s.Reporter, s.About, s.Messages)
		if a.all {
			state := "open"
			if !s.ResolvedAt.IsZero() {
				state = "resolved " + stamp(s.ResolvedAt)
			}
			fmt.Fprint(tw, "\t"+state)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func (a *admin) showReport(ctx context.Context, arg string) error {
	n, _ := reportNumber(arg) // checked with the arguments
	r, err := reports.Get(ctx, a.pool, n)
	if errors.Is(err, reports.ErrUnknown) {
		return noReport(n)
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(struct {
			Number     int64             `json:"number"`
			ID         string            `json:"id"`
			CreatedAt  string            `json:"createdAt"`
			Reporter   string            `json:"reporter"`
			About      string            `json:"about"`
			Reason     string            `json:"reason"`
			Comment    string            `json:"comment"`
			Messages   []reports.Message `json:"messages"`
			ResolvedAt *string           `json:"resolvedAt"`
			Note       string            `json:"note"`
		}{r.Number, r.ID, stamp(r.CreatedAt), r.Reporter, r.About, r.Reason, r.Comment, r.Messages, resolvedAt(r.ResolvedAt), r.Note})
	}
	var b strings.Builder
	state := "open"
	if !r.Open() {
		state = "resolved"
	}
	fmt.Fprintf(&b, "report %d (%s)\n", r.Number, state)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "filed\t%s by %s (the client's id %s)\n", stamp(r.CreatedAt), r.Reporter, r.ID)
	fmt.Fprintf(tw, "about\t%s\n", r.About)
	fmt.Fprintf(tw, "reason\t%s\n", r.Reason)
	if r.Comment != "" {
		fmt.Fprintf(tw, "comment\t%s\n", indent(printable(r.Comment), "\t"))
	}
	if !r.Open() {
		fmt.Fprintf(tw, "resolved\t%s, deleted after %s\n", stamp(r.ResolvedAt), stamp(r.ResolvedAt.Add(reports.ResolvedKeep)))
		if r.Note != "" {
			fmt.Fprintf(tw, "note\t%s\n", indent(printable(r.Note), "\t"))
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s, in the order %s chose, as %s's client had them; the relay cannot check that they were sent so:\n",
		plural(len(r.Messages), "message"), r.Reporter, r.Reporter)
	for i, m := range r.Messages {
		at := time.UnixMilli(m.At).UTC().Format("2006-01-02T15:04:05.000Z07:00")
		fmt.Fprintf(&b, "\n%d. %s at %s (message %s)\n   %s\n", i+1, m.From, at, m.ID, indent(printable(m.Text), "   "))
	}
	_, err = fmt.Fprint(a.stdout, b.String())
	return err
}

func (a *admin) resolveReport(ctx context.Context, arg string) error {
	n, _ := reportNumber(arg) // checked with the arguments
	at, already, err := reports.Resolve(ctx, a.pool, n, a.note, time.Now())
	if errors.Is(err, reports.ErrUnknown) {
		return noReport(n)
	}
	if err != nil {
		return err
	}
	if already {
		fmt.Fprintf(a.stdout, "report %d was already resolved, at %s; nothing changed\n", n, stamp(at))
		return nil
	}
	a.log.Info("report resolved", "report", n)
	fmt.Fprintf(a.stdout, "resolved report %d; the relay deletes it after %s\n", n, stamp(at.Add(reports.ResolvedKeep)))
	return nil
}

func noReport(n int64) error {
	return fmt.Errorf("%w: no report has number %d (relay admin reports list --all shows them; a report goes 90 days after it was resolved, and with the account of either side)", errNoReport, n)
}

// printJSON writes v as indented JSON, with the characters a terminal
// would act on escaped (jsonSafe).
func (a *admin) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := a.stdout.Write(jsonSafe(b.Bytes()))
	return err
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func resolvedAt(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := stamp(t)
	return &s
}

// inert reports whether a terminal would act on r rather than show it, or
// show text around it in another order: C0 controls (but newline and
// tab, which the output itself uses), DEL, C1 controls (U+009B starts an
// escape sequence on some terminals), and the marks that reorder
// bidirectional text (U+202E would make "gpj.exe" read otherwise).
func inert(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// printable writes out, as Go escapes (\x1b, \u202e), every rune of s a
// terminal would act on, so that a report's text cannot move the
// operator's cursor, recolour or retitle their terminal, or reorder
// what it shows.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if inert(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jsonSafe escapes, as \uXXXX, the runes inert finds in JSON text that
// encoding/json leaves as they are (DEL, C1, the bidirectional marks). Such
// runes can stand only inside strings, where the escape means the same.
func jsonSafe(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		if inert(r) && r >= 0x20 {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// indent puts prefix after each newline of s, so that a text of several
// lines stays under its heading.
func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
