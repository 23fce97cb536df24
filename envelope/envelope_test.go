package envelope

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func TestParse(t *testing.T) {
	id := ulid.Make().String()
	b64 := base64.StdEncoding.EncodeToString
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"ok", `{"id":"` + id + `","to":"bob","body":"` + b64([]byte("ct")) + `"}`, nil},
		{"from ignored", `{"id":"` + id + `","to":"bob","body":"eA==","from":"mallory"}`, nil},
		{"max body", `{"id":"` + id + `","to":"bob","body":"` + b64(make([]byte, MaxBody)) + `"}`, nil},
		{"body over max", `{"id":"` + id + `","to":"bob","body":"` + b64(make([]byte, MaxBody+1)) + `"}`, ErrTooLarge},
		{"not json", `nope`, ErrBadEnvelope},
		{"missing body", `{"id":"` + id + `","to":"bob"}`, ErrBadEnvelope},
		{"null id", `{"id":null,"to":"bob","body":"eA=="}`, ErrBadEnvelope},
		{"lower-case id", `{"id":"` + strings.ToLower(id) + `","to":"bob","body":"eA=="}`, ErrBadEnvelope},
		{"overflowing id", `{"id":"8ZZZZZZZZZZZZZZZZZZZZZZZZZ","to":"bob","body":"eA=="}`, ErrBadEnvelope},
		{"bad to", `{"id":"` + id + `","to":"b","body":"eA=="}`, ErrBadEnvelope},
		{"empty body", `{"id":"` + id + `","to":"bob","body":""}`, ErrBadEnvelope},
		{"unpadded", `{"id":"` + id + `","to":"bob","body":"eA"}`, ErrBadEnvelope},
		{"url-safe", `{"id":"` + id + `","to":"bob","body":"-_8="}`, ErrBadEnvelope},
		{"trailing bits", `{"id":"` + id + `","to":"bob","body":"eB=="}`, ErrBadEnvelope},
		{"line break", `{"id":"` + id + `","to":"bob","body":"eA\r\n=="}`, ErrBadEnvelope},
		{"kind message", `{"id":"` + id + `","to":"bob","body":"eA==","kind":"message"}`, nil},
		{"kind receipt", `{"id":"` + id + `","to":"bob","body":"eA==","kind":"receipt"}`, nil},
		{"kind commit", `{"id":"` + id + `","to":"bob","body":"eA==","kind":"commit"}`, nil},
		{"kind welcome", `{"id":"` + id + `","to":"bob","body":"AAEAAw==","kind":"welcome"}`, nil},
		{"kind Welcome", `{"id":"` + id + `","to":"bob","body":"AAEAAw==","kind":"Welcome"}`, ErrBadEnvelope},
		{"kind welcome twice", `{"id":"` + id + `","to":"bob","body":"AAEAAw==","kind":"welcome","kind":"welcome"}`, ErrBadEnvelope},
		{"unknown kind", `{"id":"` + id + `","to":"bob","body":"eA==","kind":"read"}`, ErrBadEnvelope},
		{"kind not a string", `{"id":"` + id + `","to":"bob","body":"eA==","kind":true}`, ErrBadEnvelope},
		{"list", `{"id":"` + id + `","to":["bob","carol"],"body":"eA=="}`, nil},
		{"list of one", `{"id":"` + id + `","to":["bob"],"body":"eA=="}`, nil},
		{"list with spaces", `{"id":"` + id + `","to": [ "bob" ,"carol" ] ,"body":"eA=="}`, nil},
		{"list at the limit", `{"id":"` + id + `","to":` + names(DefaultMaxRecipients) + `,"body":"eA=="}`, nil},
		{"list over the limit", `{"id":"` + id + `","to":` + names(DefaultMaxRecipients+1) + `,"body":"eA=="}`, ErrTooManyRecipients},
		{"list commit", `{"id":"` + id + `","to":["bob","carol"],"body":"eA==","kind":"commit"}`, nil},
		{"empty list", `{"id":"` + id + `","to":[],"body":"eA=="}`, ErrBadEnvelope},
		{"list twice a name", `{"id":"` + id + `","to":["bob","carol","bob"],"body":"eA=="}`, ErrBadEnvelope},
		{"list of numbers", `{"id":"` + id + `","to":[1,2],"body":"eA=="}`, ErrBadEnvelope},
		{"list with null", `{"id":"` + id + `","to":["bob",null],"body":"eA=="}`, ErrBadEnvelope},
		{"list with a bad name", `{"id":"` + id + `","to":["bob","Carol"],"body":"eA=="}`, ErrBadEnvelope},
		{"nested list", `{"id":"` + id + `","to":[["bob"]],"body":"eA=="}`, ErrBadEnvelope},
		{"to a number", `{"id":"` + id + `","to":7,"body":"eA=="}`, ErrBadEnvelope},
		{"to an object", `{"id":"` + id + `","to":{"bob":true},"body":"eA=="}`, ErrBadEnvelope},
		{"to null", `{"id":"` + id + `","to":null,"body":"eA=="}`, ErrBadEnvelope},
		{"to true", `{"id":"` + id + `","to":true,"body":"eA=="}`, ErrBadEnvelope},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, err := Parse([]byte(tc.in), 0, 0)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Parse = %v, want %v", err, tc.want)
			}
			if list := strings.HasPrefix(strings.TrimSpace(tc.in[strings.Index(tc.in, `"to":`)+5:]), "["); err == nil && (env.List != nil) != list {
				t.Fatalf("List = %q, To = %q: want a list %v", env.List, env.To, list)
			}
			if want := tc.name == "kind receipt"; err == nil && env.Receipt != want {
				t.Fatalf("Receipt = %v, want %v", env.Receipt, want)
			}
			if want := strings.HasSuffix(tc.name, "commit"); err == nil && env.Commit != want {
				t.Fatalf("Commit = %v, want %v", env.Commit, want)
			}
			if want := tc.name == "kind welcome"; err == nil && env.Welcome != want {
				t.Fatalf("Welcome = %v, want %v", env.Welcome, want)
			}
		})
	}
}

func TestCheckSkew(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	at := func(d time.Duration) ulid.ULID { return ulid.MustNew(ulid.Timestamp(now.Add(d)), rand.Reader) }
	for _, d := range []time.Duration{0, 5 * time.Minute, -5 * time.Minute} {
		if err := CheckSkew(at(d), now, DefaultSkew); err != nil {
			t.Errorf("%v: %v", d, err)
		}
	}
	for _, d := range []time.Duration{5*time.Minute + time.Millisecond, -5*time.Minute - time.Millisecond, 24 * time.Hour} {
		err := CheckSkew(at(d), now, DefaultSkew)
		var se *SkewError
		if !errors.Is(err, ErrClockSkew) || !errors.As(err, &se) || !se.ServerTime.Equal(now) {
			t.Errorf("%v: %v", d, err)
		}
	}
}

// FuzzParse checks that no input crashes Parse, every refusal is one of the
// two typed errors, and every accepted envelope obeys the documented limits.
func FuzzParse(f *testing.F) {
	id := ulid.Make().String()
	for _, s := range []string{
		`{"id":"` + id + `","to":"bob","body":"eA=="}`,
		`{"id":"` + id + `","to":"bob","body":"eA==","id":"x"}`,
		`{"id":"` + id + `","to":"bob","body":"eA==","kind":"receipt"}`,
		`{"id":"` + id + `","to":"bob","body":"eA==","kind":"commit"}`,
		`{"id":"` + id + `","to":"bob","body":"AAEAAw==","kind":"welcome"}`,
		`{"id":"` + id + `","to":"bob","body":"eA=="`,
		`{"id":["x"],"to":{"a":[[[[]]]]},"body":1}`,
		`[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]`,
		`{"id":"` + id + `","to":"b\u0000b","body":"eA=="}`,
		`{"id":"` + id + `","to":["bob"],"body":"eA=="}`,
		`{"id":"` + id + `","to":["bob","carol","dave","erin"],"body":"eA==","kind":"commit"}`,
		`{"id":"` + id + `","to":["bob","carol","dave","erin","frank"],"body":"eA=="}`,
		`{"id":"` + id + `","to":["bob","bob"],"body":"eA=="}`,
		`{"id":"` + id + `","to":[],"body":"eA=="}`,
		`{"id":"` + id + `","to":["bob",null],"body":"eA=="}`,
		`{"id":"` + id + `","to":["bob",["carol"]],"body":"eA=="}`,
		`{"id":"` + id + `","to":[1,2],"body":"eA=="}`,
		`{"id":"` + id + `","to":["Bob"],"body":"eA=="}`,
		`{"id":"` + id + `","to":{"bob":1},"body":"eA=="}`,
		`{"id":"` + id + `","to":7,"body":"eA=="}`,
		`{"id":"` + id + `","to":null,"body":"eA=="}`,
		`{"id":"` + id + `","to": [ "bob" , "carol" ] ,"body":"eA=="}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A small limit, so that the fuzzer reaches it.
		const maxRecipients = 4
		e, err := Parse(data, 0, maxRecipients)
		if err != nil {
			if !errors.Is(err, ErrBadEnvelope) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrTooManyRecipients) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(e.Body) < 1 || len(e.Body) > MaxBody {
			t.Fatalf("accepted an envelope outside the limits: body %d bytes", len(e.Body))
		}
		// One shape or the other: a username, or a list of 1 to the
		// limit distinct usernames.
		if (e.To == "") == (e.List == nil) {
			t.Fatalf("accepted to %q and list %q: exactly one must be set", e.To, e.List)
		}
		if e.List != nil && (len(e.List) < 1 || len(e.List) > maxRecipients) {
			t.Fatalf("accepted a list of %d usernames", len(e.List))
		}
		seen := map[string]bool{}
		for _, name := range e.Recipients() {
			if len(name) < 3 || len(name) > 32 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" || seen[name] {
				t.Fatalf("accepted recipient %q of %q", name, e.Recipients())
			}
			seen[name] = true
		}
		if _, err := ParseID(e.ID.String()); err != nil {
			t.Fatalf("accepted id %s does not parse again", e.ID)
		}
		// At most one kind: each chooses a check and a bucket of its own.
		if n := btoi(e.Receipt) + btoi(e.Commit) + btoi(e.Welcome); n > 1 {
			t.Fatalf("accepted an envelope of %d kinds", n)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{ulid.Make().String(), "", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ILOU0000000000000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if !errors.Is(err, ErrBadEnvelope) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("accepted %q, which is not canonical (%s)", s, id)
		}
		// The skew check takes any parsed id without panicking.
		_ = CheckSkew(id, time.Now(), DefaultSkew)
	})
}

// FuzzCheckSkew: for any id time and server time, the clock-skew check
// accepts exactly the ids within the window, and its refusal carries the
// server's time for the client to correct its clock.
func FuzzCheckSkew(f *testing.F) {
	now := uint64(time.Now().UnixMilli())
	f.Add(now, now)
	f.Add(now, now+uint64(DefaultSkew.Milliseconds())+1)
	f.Add(uint64(0), ulid.MaxTime())
	f.Add(ulid.MaxTime(), uint64(0))
	f.Fuzz(func(t *testing.T, idMillis, nowMillis uint64) {
		idMillis %= ulid.MaxTime() + 1
		nowMillis %= ulid.MaxTime() + 1
		var id ulid.ULID
		if err := id.SetTime(idMillis); err != nil {
			t.Fatal(err)
		}
		serverNow := time.UnixMilli(int64(nowMillis))
		err := CheckSkew(id, serverNow, DefaultSkew)
		diff := int64(idMillis) - int64(nowMillis)
		within := diff <= DefaultSkew.Milliseconds() && diff >= -DefaultSkew.Milliseconds()
		if within != (err == nil) {
			t.Fatalf("id time %d, server %d: within the window %v, but the check said %v", idMillis, nowMillis, within, err)
		}
		var se *SkewError
		if err != nil && (!errors.As(err, &se) || !se.ServerTime.Equal(serverNow)) {
			t.Fatalf("refusal %v does not carry the server time", err)
		}
	})
}

// BenchmarkParse is the validation of a 1 KiB envelope, the first thing
// every POST /api/messages does after authentication.
func BenchmarkParse(b *testing.B) {
	body := make([]byte, 1024)
	_, _ = rand.Read(body)
	data := []byte(`{"id":"` + ulid.Make().String() + `","to":"recipient","body":"` + base64.StdEncoding.EncodeToString(body) + `"}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// names is a JSON array of n distinct usernames.
func names(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"user%03d"`, i)
	}
	b.WriteString("]")
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
