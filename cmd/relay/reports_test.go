package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/relayclient"
)

func reportID() string { return ulid.MustNew(ulid.Now(), rand.Reader).String() }

// TestAdminReports: a report filed through a relay binary, then relay
// admin reports against its database. list shows it; show --json holds
// exactly the messages sent, in the reporter's order, with their senders,
// times and texts, and nothing more; show prints the same for a person,
// with what a terminal would act on written out; resolve closes it once,
// and says so the second time; neither list nor show logs anything, and
// resolve logs the number alone. relay admin delete of the reporter takes
// the report with it. The database comes from --config as well as from
// DATABASE_URL.
func TestAdminReports(t *testing.T) {
	p := instances(t, 1)[0]
	env := []string{"DATABASE_URL=" + p.db}
	ctx := context.Background()
	alice := account(t, p.url(), "alice", 1)[0]
	account(t, p.url(), "bob", 1)
	if out, _, code := runSplit(t, env, "admin", "reports", "list"); code != 0 || !strings.Contains(out, "no open reports") {
		t.Fatalf("list before any: exit %d\n%s", code, out)
	}
	sent := relayclient.Report{ID: reportID(), About: "bob", Reason: "harassment", Comment: "every night\nfor a week",
		Messages: []relayclient.ReportMessage{
			{ID: reportID(), From: "bob", At: 1764806460000, Text: "you again"},
			{ID: reportID(), From: "alice", At: 1764806400000, Text: "leave me alone"},
			// A terminal would clear the screen, retitle itself and
			// reorder the line on these.
			{ID: reportID(), From: "bob", At: 1764806520000, Text: "\x1b[2J\x1b]0;pwned\x07 read \u202egpj.exe\nsecond line \u009b31m"},
		}}
	if err := alice.FileReport(ctx, sent); err != nil {
		t.Fatal(err)
	}

	out, logged, code := runSplit(t, env, "admin", "reports", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^1\s+20\S+Z\s+harassment\s+alice\s+bob\s+3$`).MatchString(out) || logged != "" {
		t.Fatalf("list: exit %d\n%s\nstderr: %s", code, out, logged)
	}
	out, _, _ = runSplit(t, env, "admin", "reports", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["number"] != 1.0 || list[0]["reporter"] != "alice" ||
		list[0]["about"] != "bob" || list[0]["messages"] != 3.0 || list[0]["resolvedAt"] != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}

	out, logged, code = runSplit(t, env, "admin", "reports", "show", "1", "--json")
	var shown struct {
		Number     int64                       `json:"number"`
		ID         string                      `json:"id"`
		Reporter   string                      `json:"reporter"`
		About      string                      `json:"about"`
		Reason     string                      `json:"reason"`
		Comment    string                      `json:"comment"`
		Messages   []relayclient.ReportMessage `json:"messages"`
		ResolvedAt *string                     `json:"resolvedAt"`
	}
	if code != 0 || logged != "" {
		t.Fatalf("show --json: exit %d\n%s\nstderr: %s", code, out, logged)
	}
	var members map[string]any
	if err := json.Unmarshal([]byte(out), &members); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	var keys []string
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"about", "comment", "createdAt", "id", "messages", "note", "number", "reason", "reporter", "resolvedAt"}; !slices.Equal(keys, want) {
		t.Errorf("show --json has %v, want %v", keys, want)
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Number != 1 || shown.ID != sent.ID || shown.Reporter != "alice" || shown.About != "bob" || shown.Reason != "harassment" ||
		shown.Comment != sent.Comment || shown.ResolvedAt != nil || !reflect.DeepEqual(shown.Messages, sent.Messages) {
		t.Fatalf("show --json holds %+v\nwant %+v", shown, sent)
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
		t.Errorf("show --json writes what a terminal acts on:\n%q", out)
	}

	out, logged, code = runSplit(t, env, "admin", "reports", "show", "1")
	if code != 0 || logged != "" || strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
		t.Fatalf("show: exit %d, stderr %q\n%q", code, logged, out)
	}
	// Each message, in the order sent: its sender, time and text.
	at := 0
	for i, want := range []string{
		"report 1 (open)", "filed", "by alice", "about", "bob", "reason", "harassment", "comment", "every night\n", "for a week",
		"3 messages, in the order alice chose",
		"1. bob at 2025-12-04T00:01:00.000Z", "you again",
		"2. alice at 2025-12-04T00:00:00.000Z", "leave me alone",
		"3. bob at 2025-12-04T00:02:00.000Z", `\x1b[2J\x1b]0;pwned\a read \u202egpj.exe` + "\n   second line " + `\u009b31m`,
	} {
		j := strings.Index(out[at:], want)
		if j < 0 {
			t.Fatalf("show: %q (%d) missing after byte %d:\n%s", want, i, at, out)
		}
		at += j + len(want)
	}

	out, logged, code = runSplit(t, env, "admin", "reports", "resolve", "1", "--note", "disabled bob for a week")
	if code != 0 || !strings.Contains(out, "resolved report 1; the relay deletes it after 20") ||
		!regexp.MustCompile(`msg="report resolved" report=1\n$`).MatchString(logged) {
		t.Fatalf("resolve: exit %d\n%s\nstderr: %s", code, out, logged)
	}
	out, logged, code = runSplit(t, env, "admin", "reports", "resolve", "1", "--note", "second-note")
	if code != 0 || !strings.Contains(out, "report 1 was already resolved, at 20") || logged != "" {
		t.Fatalf("resolve again: exit %d\n%s\nstderr: %s", code, out, logged)
	}
	out, _, _ = runSplit(t, env, "admin", "reports", "show", "1")
	if !strings.Contains(out, "report 1 (resolved)") || !strings.Contains(out, "disabled bob for a week") || strings.Contains(out, "second-note") {
		t.Errorf("show after resolve:\n%s", out)
	}
	if out, _, _ := runSplit(t, env, "admin", "reports", "list"); !strings.Contains(out, "no open reports") {
		t.Errorf("list after resolve:\n%s", out)
	}
	config := filepath.Join(t.TempDir(), "relay.toml")
	if err := os.WriteFile(config, []byte("database-url = \""+p.db+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runSplit(t, nil, "admin", "reports", "list", "--all", "--config", config); code != 0 ||
		!regexp.MustCompile(`(?m)^1\s+\S+\s+harassment\s+alice\s+bob\s+3\s+resolved 20\S+Z$`).MatchString(out) {
		t.Errorf("list --all --config: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"show", "2"}, {"resolve", "2"}} {
		if out, code := runBinary(t, env, append([]string{"admin", "reports"}, args...)...); code != 1 || !strings.Contains(out, "no report has number 2") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}

	// A new report, then the reporter deleted by the operator: it goes.
	if err := alice.FileReport(ctx, relayclient.Report{ID: reportID(), About: "bob", Reason: "spam",
		Messages: []relayclient.ReportMessage{{ID: reportID(), From: "bob", At: 1, Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := runSplit(t, env, "admin", "reports", "list"); !regexp.MustCompile(`(?m)^2\s`).MatchString(out) {
		t.Fatalf("list of the second report:\n%s", out)
	}
	if out, code := runBinary(t, env, "admin", "delete", "alice", "--reason", "asked", "--vacuum=false"); code != 0 {
		t.Fatalf("delete: exit %d\n%s", code, out)
	}
	if out, _, _ := runSplit(t, env, "admin", "reports", "list", "--all"); !strings.Contains(out, "no reports") {
		t.Errorf("list --all after the reporter's deletion:\n%s", out)
	}
}

// TestAdminReportsUsage: the reports commands' --help, and each malformed
// one exits 2 with what is wrong before it touches the database.
func TestAdminReportsUsage(t *testing.T) {
	env := []string{"DATABASE_URL=" + testdb.New(t)}
	for _, words := range []string{"list", "show", "resolve"} {
		out, code := runBinary(t, env, "admin", "reports", words, "--help")
		if code != 0 || !strings.Contains(out, "Usage: relay admin reports "+words) {
			t.Errorf("admin reports %s --help: exit %d\n%s", words, code, out)
		}
	}
	if out, code := runBinary(t, env, "admin", "--help"); code != 0 || !strings.Contains(out, "relay admin reports resolve N") {
		t.Errorf("admin --help: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"admin", "reports"}, "relay admin reports takes list, show, resolve"},
		{[]string{"admin", "reports", "close", "1"}, "relay admin reports takes list, show, resolve"},
		{[]string{"admin", "reports", "show"}, "takes one N"},
		{[]string{"admin", "reports", "show", "1", "2"}, "takes one N"},
		{[]string{"admin", "reports", "show", "first"}, `"first" is not a report number`},
		{[]string{"admin", "reports", "resolve", "0"}, `"0" is not a report number`},
		{[]string{"admin", "reports", "resolve", "-1"}, "flag provided but not defined"},
		{[]string{"admin", "reports", "list", "open"}, "takes no argument"},
		{[]string{"admin", "reports", "list", "--note", "x"}, "flag provided but not defined"},
		{[]string{"admin", "reports", "resolve", "1", "--note", strings.Repeat("x", 1001)}, "--note must be at most 1000 characters"},
	} {
		out, code := runBinary(t, env, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, out)
		}
	}
}
