package relay

import (
	"bytes"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"relay/envelope"
	"relay/keypackages"
	"relay/mlsheader"
)

// TestParseKeyPackages: each refusal has its control, the same body with
// the rule kept, which parses.
func TestParseKeyPackages(t *testing.T) {
	kp := func(n int) string { return `"` + base64.StdEncoding.EncodeToString(make([]byte, n)) + `"` }
	many := func(n int) string { return `[` + strings.TrimSuffix(strings.Repeat(kp(10)+",", n), ",") + `]` }
	for _, c := range []struct{ body, want string }{
		{`{"oneTime": [` + kp(1) + `]}`, ""},
		{`{"lastResort": ` + kp(1) + `}`, ""},
		{`{"oneTime": [` + kp(keypackages.MaxSize) + `], "lastResort": ` + kp(keypackages.MaxSize) + `}`, ""},
		{`{"oneTime": [` + kp(keypackages.MaxSize+1) + `]}`, "bad_key_packages"},
		{`{"lastResort": ` + kp(keypackages.MaxSize+1) + `}`, "bad_key_packages"},
		{`{"oneTime": ` + many(keypackages.MaxOneTime) + `}`, ""},
		{`{"oneTime": ` + many(keypackages.MaxOneTime+1) + `}`, "bad_key_packages"},
		{`{}`, "bad_key_packages"},
		{`{"oneTime": []}`, "bad_key_packages"},
		{`{"oneTime": [""]}`, "bad_key_packages"},
		{`{"lastResort": ""}`, "bad_key_packages"},
		{`{"oneTime": ["eA"]}`, "bad_key_packages"},
		{`{"oneTime": ["eA=="]}`, ""},
		{`{"oneTime": "eA=="}`, "bad_json"},
		{`{"oneTime": ["eA=="], "oneTime": ["eA=="]}`, "bad_json"},
		{`{"lastResort": null, "oneTime": ["eA=="]}`, ""},
	} {
		one, last, err := parseKeyPackages([]byte(c.body))
		if got := apiCode(t, err); got != c.want {
			t.Errorf("%.80s: %q, want %q", c.body, got, c.want)
		}
		if err == nil && len(one) == 0 && last == nil {
			t.Errorf("%.80s: nothing parsed", c.body)
		}
	}
}

func FuzzParseKeyPackages(f *testing.F) {
	for _, s := range []string{`{"oneTime": ["eA=="]}`, `{"lastResort": "eA=="}`, `{"oneTime": ["eA==", "eB=="], "lastResort": "AAAA"}`,
		`{}`, `{"oneTime": [""]}`, `{"oneTime": [1]}`, "{\"oneTime\": [\"\xff\"]}", `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		one, last, err := parseKeyPackages(data)
		if err != nil {
			if c := apiCode(t, err); c != "bad_json" && c != "bad_key_packages" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if len(one) == 0 && last == nil {
			t.Fatalf("%q: accepted with nothing to publish", data)
		}
		if len(one) > keypackages.MaxOneTime {
			t.Fatalf("%q: %d one-time packages accepted", data, len(one))
		}
		all := one
		if last != nil {
			all = append(all, last)
		}
		for _, b := range all {
			if len(b) == 0 || len(b) > keypackages.MaxSize {
				t.Fatalf("%q: a package of %d bytes accepted", data, len(b))
			}
		}
	})
}

func TestParseClaim(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"username": "bob"}`, ""},
		{`{"username": "Bob"}`, "bad_username"},
		{`{"username": "bo"}`, "bad_username"},
		{`{}`, "bad_username"},
		{`{"username": 5}`, "bad_json"},
		{`{"username": "bob", "username": "eve"}`, "bad_json"},
	} {
		u, err := parseClaim([]byte(c.body))
		if got := apiCode(t, err); got != c.want || (err == nil && u != "bob") {
			t.Errorf("%s: %q %q, want %q", c.body, u, got, c.want)
		}
	}
}

func FuzzParseClaim(f *testing.F) {
	for _, s := range []string{`{"username": "bob"}`, `{}`, `{"username": ""}`, "{\"username\": \"\xff\"}", `{"username": null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := parseClaim(data)
		if err != nil {
			if c := apiCode(t, err); c != "bad_json" && c != "bad_username" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if checkUsername(u) != nil {
			t.Fatalf("%q: accepted username %q", data, u)
		}
	})
}

// FuzzCommitEnvelope: an envelope marked as a commit is accepted by check
// 3 only with a body whose MLS header says commit; every other refusal is
// bad_envelope, too_large or bad_commit, and an envelope not marked as a
// commit is never parsed as one.
func FuzzCommitEnvelope(f *testing.F) {
	const id = "01HZZZZZZZZZZZZZZZZZZZZZZZ"
	commit := []byte{0, 1, 0, 2, 2, 0xaa, 0xbb, 0, 0, 0, 0, 0, 0, 0, 5, 3, 0, 0, 0}
	f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"commit","body":"` + base64.StdEncoding.EncodeToString(commit) + `"}`))
	f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"commit","body":"eA=="}`))
	f.Add([]byte(`{"id":"` + id + `","to":"bob","body":"eA=="}`))
	// A real commit, made by ts-mls (mlsheader's seed corpus).
	if real, err := os.ReadFile("../mlsheader/testdata/messages/commit-private-epoch1.mls"); err == nil {
		f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"commit","body":"` + base64.StdEncoding.EncodeToString(real) + `"}`))
	} else {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := envelope.Parse(data, 0, 0)
		if err != nil {
			return
		}
		h, err := commitHeader(&env)
		if !env.Commit {
			if h != nil || err != nil {
				t.Fatalf("%q: an envelope that is no commit was read as one: %v", data, err)
			}
			return
		}
		if err != nil {
			if c := apiCode(t, err); c != "bad_commit" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if h.ContentType != mlsheader.ContentCommit || len(h.GroupID) == 0 {
			t.Fatalf("%q: accepted %+v", data, h)
		}
	})
}

// FuzzWelcomeEnvelope: an envelope marked as a welcome passes check 3 only
// with a body framed as an MLS Welcome; every other refusal is
// bad_welcome, and an envelope not marked as a welcome is never read as
// one.
func FuzzWelcomeEnvelope(f *testing.F) {
	const id = "01HZZZZZZZZZZZZZZZZZZZZZZZ"
	f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"welcome","body":"AAEAAw=="}`))
	f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"welcome","body":"AAEAAg=="}`))
	f.Add([]byte(`{"id":"` + id + `","to":"bob","body":"AAEAAw=="}`))
	// A real welcome, made by ts-mls (mlsheader's seed corpus).
	if real, err := os.ReadFile("../mlsheader/testdata/messages/welcome.mls"); err == nil {
		f.Add([]byte(`{"id":"` + id + `","to":"bob","kind":"welcome","body":"` + base64.StdEncoding.EncodeToString(real) + `"}`))
	} else {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := envelope.Parse(data, 0, 0)
		if err != nil {
			return
		}
		err = checkWelcome(&env)
		if !env.Welcome {
			if err != nil {
				t.Fatalf("%q: an envelope that is no welcome was read as one: %v", data, err)
			}
			return
		}
		if err != nil {
			if c := apiCode(t, err); c != "bad_welcome" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if !bytes.HasPrefix(env.Body, []byte{0, 1, 0, 3}) {
			t.Fatalf("%q: accepted a welcome not framed as one", data)
		}
	})
}
