package main

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"regexp"
	"strings"
	"testing"

	"relay/internal/testdb"
	"relay/relayclient"
)

// TestAdminInvites: relay admin invites against a relay binary whose
// --registration is invite. A code made prints once, on the first line,
// and is logged by its id alone; it registers as many accounts as it has
// uses; list shows what is spent and never a code; a revoked code
// registers no one, and revoking it again exits 1.
func TestAdminInvites(t *testing.T) {
	p := instances(t, 1, "--registration", "invite")[0]
	env := []string{"DATABASE_URL=" + p.db}
	register := func(name, code string) error {
		t.Helper()
		k, _ := ecdh.P256().GenerateKey(rand.Reader)
		return relayclient.New(p.url()).RegisterWithInvite(context.Background(), name, "long enough password", k.PublicKey().Bytes(), code)
	}
	if mode, err := relayclient.New(p.url()).Registration(context.Background()); err != nil || mode != "invite" {
		t.Fatalf("GET /api/registration: %q, %v", mode, err)
	}
	if out, _, code := runSplit(t, env, "admin", "invites", "list"); code != 0 || !strings.Contains(out, "no invites") {
		t.Fatalf("list before any: exit %d\n%s", code, out)
	}

	out, logged, code := runSplit(t, env, "admin", "invites", "create", "--uses", "2", "--expires", "1h")
	lines := strings.Split(out, "\n")
	if code != 0 || !regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$`).MatchString(lines[0]) ||
		!strings.HasPrefix(lines[1], "invite 1: 2 uses, expires 20") {
		t.Fatalf("create: exit %d\n%s", code, out)
	}
	invite := lines[0]
	if !strings.Contains(logged, "invite created") || !strings.Contains(logged, "invite=1") || strings.Contains(logged, invite) || strings.Contains(logged, strings.ReplaceAll(invite, "-", "")) {
		t.Errorf("the log of create names the invite by its id alone:\n%s", logged)
	}
	if err := register("carol", ""); relayclient.Code(err) != "invite_required" {
		t.Fatalf("no code: %v", err)
	}
	for _, name := range []string{"alice", "bob"} {
		if err := register(name, invite); err != nil {
			t.Fatalf("%s with the code: %v", name, err)
		}
	}
	if err := register("carol", invite); relayclient.Code(err) != "invalid_invite" {
		t.Fatalf("a third account with a code of two uses: %v", err)
	}
	out, _, _ = runSplit(t, env, "admin", "invites", "list")
	if !regexp.MustCompile(`(?m)^1\s+2 of 2\s+\S+\s+\S+\s+used up$`).MatchString(out) || strings.Contains(out, invite[:5]) {
		t.Errorf("list after two uses:\n%s", out)
	}

	out, _, _ = runSplit(t, env, "admin", "invites", "create", "--expires", "0")
	second := strings.Split(out, "\n")[0]
	if !strings.Contains(out, "invite 2: 1 use, expires never") {
		t.Fatalf("create --expires 0:\n%s", out)
	}
	out, logged, code = runSplit(t, env, "admin", "invites", "revoke", "2")
	if code != 0 || !strings.Contains(out, "revoked invite 2") || !strings.Contains(logged, "invite revoked") {
		t.Fatalf("revoke: exit %d\n%s%s", code, out, logged)
	}
	if err := register("carol", second); relayclient.Code(err) != "invalid_invite" {
		t.Fatalf("a revoked code: %v", err)
	}
	if out, code := runBinary(t, env, "admin", "invites", "revoke", "2"); code != 1 || !strings.Contains(out, "no invite has id 2") {
		t.Fatalf("revoke again: exit %d\n%s", code, out)
	}
	if out, _, _ := runSplit(t, env, "admin", "invites", "list"); strings.Contains(out, "\n2 ") {
		t.Errorf("list shows the revoked invite:\n%s", out)
	}
}

// TestAdminInvitesUsage: the invites commands' --help, and each malformed
// one exits 2 with what is wrong before it touches the database.
func TestAdminInvitesUsage(t *testing.T) {
	env := []string{"DATABASE_URL=" + testdb.New(t)}
	for _, words := range [][]string{{"create"}, {"list"}, {"revoke"}} {
		out, code := runBinary(t, env, append(append([]string{"admin", "invites"}, words...), "--help")...)
		if code != 0 || !strings.Contains(out, "Usage: relay admin invites "+words[0]) {
			t.Errorf("admin invites %v --help: exit %d\n%s", words, code, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"admin", "invites"}, "relay admin invites takes create, list, revoke"},
		{[]string{"admin", "invites", "make"}, "relay admin invites takes create, list, revoke"},
		{[]string{"admin", "invites", "revoke"}, "takes one ID"},
		{[]string{"admin", "invites", "revoke", "1", "2"}, "takes one ID"},
		{[]string{"admin", "invites", "revoke", "first"}, `"first" is not an invite id`},
		{[]string{"admin", "invites", "revoke", "0"}, `"0" is not an invite id`},
		{[]string{"admin", "invites", "list", "all"}, "takes no argument"},
		{[]string{"admin", "invites", "create", "--uses", "0"}, "--uses must be 1 to 10000, not 0"},
		{[]string{"admin", "invites", "create", "--uses", "10001"}, "--uses must be 1 to 10000, not 10001"},
		{[]string{"admin", "invites", "create", "--expires", "30s"}, "--expires must be 0 (never) or at least 1m, not 30s"},
		{[]string{"admin", "invites", "create", "--expires", "-1h"}, "--expires must be 0 (never) or at least 1m, not -1h0m0s"},
		{[]string{"admin", "invites", "create", "--expires", "7d"}, `invalid value "7d" for flag -expires`},
	} {
		out, code := runBinary(t, env, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, out)
		}
	}
}
