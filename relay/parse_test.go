package relay

import (
	"crypto/ecdh"
	"encoding/hex"
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"relay/canonical"
	"relay/devices"
	"relay/push"
)

func TestParseLastEventID(t *testing.T) {
	for _, tc := range []struct {
		in    string
		head  int64
		want  int64
		ahead bool
		ok    bool
	}{
		{"", 7, 0, false, true}, {"0", 7, 0, false, true}, {"7", 7, 7, false, true}, {"3", 7, 3, false, true},
		// Beyond the head: the history went back; replay everything.
		{"8", 7, 0, true, true}, {"99999", 0, 0, true, true},
		{"-1", 7, 0, false, false}, {"+3", 7, 0, false, false}, {"03", 7, 0, false, false},
		{" 3", 7, 0, false, false}, {"3.0", 7, 0, false, false}, {"abc", 7, 0, false, false}, {"99999999999999999999", 7, 0, false, false},
	} {
		got, ahead, err := parseLastEventID(tc.in, tc.head)
		if (err == nil) != tc.ok || got != tc.want || ahead != tc.ahead {
			t.Errorf("parseLastEventID(%q, %d) = %d, %v, %v", tc.in, tc.head, got, ahead, err)
		}
		var ae *apiError
		if err != nil && (!errors.As(err, &ae) || ae.code != "bad_last_event_id") {
			t.Errorf("parseLastEventID(%q): error %v has no stable code", tc.in, err)
		}
	}
}

func FuzzParseLastEventID(f *testing.F) {
	for _, s := range []string{"", "0", "7", "-1", "03", "abc", "99999999999999999999", "1e3"} {
		f.Add(s, int64(7))
	}
	f.Fuzz(func(t *testing.T, s string, head int64) {
		if head < 0 {
			head = -head
		}
		n, ahead, err := parseLastEventID(s, head)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || ae.code != "bad_last_event_id" {
				t.Fatalf("%q: error %v is not a 400 bad_last_event_id", s, err)
			}
			return
		}
		if n < 0 || n > head {
			t.Fatalf("%q: accepted %d outside 0..%d", s, n, head)
		}
		if ahead && n != 0 {
			t.Fatalf("%q: ahead of %d, but resumes after %d instead of replaying everything", s, head, n)
		}
	})
}

// FuzzParseFresh: the key directory's query is fresh or not, or a 400
// bad_query; fresh only when it says fresh=1 exactly once.
func FuzzParseFresh(f *testing.F) {
	for _, s := range []string{"", "fresh=1", "fresh=0", "fresh=2", "fresh=1&fresh=1", "fresh=%zz", "other=1", "fresh=01", "fresh=1&other=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fresh, err := parseFresh(s)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || ae.code != "bad_query" {
				t.Fatalf("%q: error %v is not a 400 bad_query", s, err)
			}
			return
		}
		q, _ := url.ParseQuery(s)
		if fresh != slices.Equal(q["fresh"], []string{"1"}) {
			t.Fatalf("%q: fresh %v", s, fresh)
		}
	})
}

func TestParseAck(t *testing.T) {
	long := strings.Repeat("a", maxAckEpoch)
	for _, tc := range []struct {
		in    string
		want  int64
		epoch string
		code  string
	}{
		{`{"upTo": 5}`, 5, "", ""}, {`{"upTo": 0}`, 0, "", ""},
		{`{}`, 0, "", "bad_ack"}, {`{"upTo": null}`, 0, "", "bad_ack"}, {`{"upTo": -2}`, 0, "", "bad_ack"},
		{`{"upTo": "5"}`, 0, "", "bad_json"}, {`{"upTo": 1.5}`, 0, "", "bad_json"}, {`{"upTo": 1e30}`, 0, "", "bad_json"},
		{`[`, 0, "", "bad_json"}, {``, 0, "", "bad_json"},
		// I-JSON (ADR 0022), which encoding/json alone lets through
		{`{"upTo": 1, "upTo": 2}`, 0, "", "bad_json"}, {"{\"upTo\": 1, \"x\": \"\xff\"}", 0, "", "bad_json"},
		// the epoch the cursor belongs to (ADR 0090): optional, any
		// string the relay could have told, compared for equality only
		{`{"upTo": 5, "epoch": "0123456789abcdef"}`, 5, "0123456789abcdef", ""},
		{`{"upTo": 5, "epoch": "` + long + `"}`, 5, long, ""},
		{`{"upTo": 5, "epoch": null}`, 5, "", ""},
		{`{"upTo": 5, "epoch": ""}`, 0, "", "bad_ack"},
		{`{"upTo": 5, "epoch": "` + long + `a"}`, 0, "", "bad_ack"},
		{`{"upTo": 5, "epoch": 7}`, 0, "", "bad_json"},
		{`{"upTo": 5, "epoch": "a", "epoch": "b"}`, 0, "", "bad_json"},
	} {
		got, ep, err := parseAck([]byte(tc.in))
		var ae *apiError
		code := ""
		if errors.As(err, &ae) {
			code = ae.code
		} else if err != nil {
			t.Errorf("parseAck(%s): untyped error %v", tc.in, err)
		}
		if got != tc.want || ep != tc.epoch || code != tc.code {
			t.Errorf("parseAck(%s) = %d, %q, %q; want %d, %q, %q", tc.in, got, ep, code, tc.want, tc.epoch, tc.code)
		}
	}
}

// FuzzParseAck: the ACK body goes through decodeJSON like every other
// body, so a refusal is bad_json exactly when decodeJSON refuses it, and
// bad_ack otherwise; what passes is the body's upTo and epoch.
func FuzzParseAck(f *testing.F) {
	for _, s := range []string{`{"upTo": 5}`, `{}`, `{"upTo": -1}`, `{"upTo": "5"}`, `[`, `{"upTo": 1, "upTo": 2}`, "{\"upTo\": 1, \"x\": \"\xff\"}",
		`{"upTo": 5, "epoch": "0123456789abcdef"}`, `{"upTo": 5, "epoch": ""}`, `{"upTo": 5, "epoch": null}`, `{"upTo": 5, "epoch": 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ep, err := parseAck(data)
		var shape struct {
			UpTo  *int64  `json:"upTo"`
			Epoch *string `json:"epoch"`
		}
		decodeErr := decodeJSON(data, &shape)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 {
				t.Fatalf("%q: error %v is not a 400 with a code", data, err)
			}
			want := "bad_ack"
			if decodeErr != nil {
				want = "bad_json"
			}
			if ae.code != want {
				t.Fatalf("%q: %s, want %s (decodeJSON: %v)", data, ae.code, want, decodeErr)
			}
			return
		}
		if !jsontext.Value(data).IsValid() {
			t.Fatalf("%q: accepted a body that is not I-JSON", data)
		}
		if decodeErr != nil || n < 0 || *shape.UpTo != n {
			t.Fatalf("%q: accepted upTo %d", data, n)
		}
		switch {
		case shape.Epoch == nil && ep != "":
			t.Fatalf("%q: epoch %q from a body without one", data, ep)
		case shape.Epoch != nil && (ep != *shape.Epoch || ep == "" || len(ep) > maxAckEpoch):
			t.Fatalf("%q: accepted epoch %q", data, ep)
		}
	})
}

// FuzzRegistrationBody runs a registration or login body through what the
// relay does with it before any database work: strict decoding, then the
// username, password and public-key checks, and on a relay by invite the
// code's presence and shape. Every refusal is a 400 with a stable code (or
// 403 invite_required), and whatever passes is what the protocol allows.
func FuzzRegistrationBody(f *testing.F) {
	f.Add([]byte(`{"username":"alice","password":"correct horse","publicKey":"BAAA"}`))
	f.Add([]byte(`{"username":"alice","username":"bob"}`))
	f.Add([]byte(`{"username":5}`))
	f.Add([]byte("{\"username\":\"\xff\"}"))
	f.Add([]byte(`{"username":"alice","password":"correct horse","publicKey":"BAAA","invite":"7K2QD-9XW4M-RT8VB-3HNPF"}`))
	f.Add([]byte(`{"invite":"7k2qd 9xw4m rt8vb 3hnpu"}`))
	byInvite := &Server{cfg: Config{Registration: RegistrationInvite}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c credentials
		err := decodeJSON(data, &c)
		if err == nil {
			err = checkUsername(c.Username)
		}
		if err == nil {
			err = checkPassword(c.Password)
		}
		if err == nil {
			_, err = devices.ParsePublicKey(c.PublicKey)
			if err != nil {
				err = toAPIError(err, "")
			}
		}
		if err == nil {
			// On a relay by invite: the code's presence and shape.
			_, err = byInvite.admission(c.Invite)
		}
		var ae *apiError
		if err != nil && (!errors.As(err, &ae) || (ae.status != 400 && ae.code != "invite_required")) {
			t.Fatalf("refusal %v is not a 400 with a code, nor invite_required", err)
		}
		if err == nil && !canonical.ValidUsername(c.Username) {
			t.Fatalf("accepted username %q", c.Username)
		}
	})
}

// FuzzDeviceBody does the same for POST /api/devices.
func FuzzDeviceBody(f *testing.F) {
	f.Add([]byte(`{"name":"Firefox on laptop","publicKey":"BAAA"}`))
	f.Add([]byte(`{"name":"\u0000"}`))
	f.Add([]byte(`{"name":"a","name":"b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var body struct {
			PublicKey string `json:"publicKey"`
			Name      string `json:"name"`
		}
		err := decodeJSON(data, &body)
		var ae *apiError
		if err != nil && (!errors.As(err, &ae) || ae.code != "bad_json") {
			t.Fatalf("refusal %v is not bad_json", err)
		}
		if err == nil && validDeviceName(body.Name) {
			if body.Name == "" || len(body.Name) > devices.MaxDeviceName || !utf8.ValidString(body.Name) {
				t.Fatalf("accepted device name %q", body.Name)
			}
		}
	})
}

// apiCode is err's stable code, failing the test for an error without one.
func apiCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var ae *apiError
	if !errors.As(err, &ae) || ae.status != 400 {
		t.Fatalf("refusal %v is not a 400 with a code", err)
	}
	return ae.code
}

// FuzzRecoveryBody: PUT /api/recovery's body is refused with bad_json
// exactly when decodeJSON refuses it, else with bad_recovery_blob; what
// passes is 1 to 1024 bytes whose one spelling is the blob given.
func FuzzRecoveryBody(f *testing.F) {
	for _, s := range []string{`{"blob":"AQID"}`, `{"blob":""}`, `{}`, `{"blob":null}`, `{"blob":5}`, `{"blob":"AQ"}`,
		`{"blob":"-_-_"}`, `{"blob":"AQID","blob":"AQID"}`, "{\"blob\":\"AQID\",\"x\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		blob, err := parseRecoveryBody(data)
		var shape struct {
			Blob *string `json:"blob"`
		}
		decodeErr := decodeJSON(data, &shape)
		switch code := apiCode(t, err); {
		case decodeErr != nil:
			if code != "bad_json" {
				t.Fatalf("%q: %q, want bad_json", data, code)
			}
		case code == "":
			if len(blob) == 0 || len(blob) > devices.MaxRecoveryBlob || b64(blob) != *shape.Blob {
				t.Fatalf("%q: accepted %d bytes", data, len(blob))
			}
		case code != "bad_recovery_blob":
			t.Fatalf("%q: %q, want bad_recovery_blob", data, code)
		}
	})
}

// FuzzDeviceUpdate: PATCH /api/devices/:id's body. A refusal has one of
// the three codes of its checks; what passes changes something, names
// only a valid name, and sets linked only to true.
func FuzzDeviceUpdate(f *testing.F) {
	for _, s := range []string{`{"name":"Work laptop"}`, `{"linked":true}`, `{"name":"a","linked":true}`, `{}`, `{"linked":false}`,
		`{"name":null}`, `{"name":""}`, `{"name":"a\u0000"}`, `{"name":"a","x":1}`, `{"name":"a","name":"b"}`, `null`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := parseDeviceUpdate(data)
		switch code := apiCode(t, err); code {
		case "":
			if u.Name == nil && !u.Linked {
				t.Fatalf("%q: accepted an update that changes nothing", data)
			}
			if u.Name != nil && !validDeviceName(*u.Name) {
				t.Fatalf("%q: accepted name %q", data, *u.Name)
			}
			if !jsontext.Value(data).IsValid() {
				t.Fatalf("%q: accepted a body that is not I-JSON", data)
			}
		case "bad_json", "bad_device_update", "bad_device_name":
		default:
			t.Fatalf("%q: code %q", data, code)
		}
	})
}

// FuzzKeyReplacement: PUT /api/account/key's body. A refusal has the code
// of one of its checks; what passes has a valid key, at most 20 distinct
// ids without the speaker, and no blob or a blob of 1 to 1024 bytes.
func FuzzKeyReplacement(f *testing.F) {
	const speaker = "01J00000000000000000000000"
	// The P-256 base point, uncompressed.
	g, _ := hex.DecodeString("046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
	key := b64(g)
	f.Add([]byte(`{"publicKey":"` + key + `","revoke":[],"recovery":"AQID"}`))
	f.Add([]byte(`{"publicKey":"` + key + `","revoke":["` + speaker + `"]}`))
	f.Add([]byte(`{"publicKey":"` + key + `","revoke":["a","a","b"],"recovery":""}`))
	f.Add([]byte(`{"publicKey":"BAAA","revoke":"x"}`))
	f.Add([]byte(`{"publicKey":"` + key + `","publicKey":"` + key + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseKeyReplacement(data, speaker)
		switch code := apiCode(t, err); code {
		case "":
			if _, err := devices.ParsePublicKey(b64(r.PublicKey)); err != nil {
				t.Fatalf("%q: accepted key %x", data, r.PublicKey)
			}
			if len(r.Revoke) > devices.MaxRevoke || slices.Contains(r.Revoke, speaker) {
				t.Fatalf("%q: accepted revoke list %q", data, r.Revoke)
			}
			for i, id := range r.Revoke {
				if slices.Contains(r.Revoke[i+1:], id) {
					t.Fatalf("%q: %q listed twice", data, id)
				}
			}
			if r.Recovery != nil && (len(r.Recovery) == 0 || len(r.Recovery) > devices.MaxRecoveryBlob) {
				t.Fatalf("%q: accepted a blob of %d bytes", data, len(r.Recovery))
			}
		case "bad_json", "bad_public_key", "bad_revoke_list", "bad_recovery_blob":
		default:
			t.Fatalf("%q: code %q", data, code)
		}
	})
}

// FuzzDeleteAccountBody: DELETE /api/account's body is refused with
// bad_json exactly when decodeJSON refuses it; what passes gives the one
// password the body spells, "" when it has none.
func FuzzDeleteAccountBody(f *testing.F) {
	for _, s := range []string{`{"password":"correct horse battery"}`, `{}`, `{"password":null}`, `{"password":5}`,
		`{"password":"a","password":"b"}`, "{\"password\":\"\xff\"}", `[]`, `{"password":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		password, err := parseDeleteAccount(data)
		var shape struct {
			Password *string `json:"password"`
		}
		decodeErr := decodeJSON(data, &shape)
		switch code := apiCode(t, err); {
		case decodeErr != nil:
			if code != "bad_json" {
				t.Fatalf("%q: %q, want bad_json", data, code)
			}
		case code != "":
			t.Fatalf("%q: refused with %q, but it decodes", data, code)
		case shape.Password == nil && password != "", shape.Password != nil && password != *shape.Password:
			t.Fatalf("%q: password %q", data, password)
		}
	})
}

// FuzzParsePushSubscription: any body of PUT /api/push is a subscription
// with an https endpoint of at most push.MaxEndpoint bytes, a P-256 point
// and a 16-byte secret, or a 400 with bad_json or bad_push_subscription;
// without allowPrivate, an endpoint at a non-public address literal is
// never taken.
func FuzzParsePushSubscription(f *testing.F) {
	const key = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
	for _, s := range []string{
		`{"endpoint":"https://push.example/x","p256dh":"` + key + `","auth":"BTBZMqHH6r4Tts7J_aSIgg"}`,
		`{"endpoint":"https://127.0.0.1/x","p256dh":"` + key + `","auth":"BTBZMqHH6r4Tts7J_aSIgg"}`,
		`{"endpoint":"https://[::1]:8443/x","p256dh":"` + key + `","auth":"BTBZMqHH6r4Tts7J_aSIgg"}`,
		`{"endpoint":"http://push.example/x","p256dh":"` + key + `","auth":"BTBZMqHH6r4Tts7J_aSIgg"}`,
		`{"endpoint":"https://u@push.example/x#f","p256dh":"","auth":""}`,
		`{"endpoint":"https://push.example/x","p256dh":"` + key + `=","auth":"BTBZMqHH6r4Tts7J_aSIgg=="}`,
		`{"endpoint":"https://push.example","endpoint":"https://other"}`,
		`{"endpoint":5}`, `[]`, "{\"endpoint\":\"https://\xff\"}",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, allowPrivate bool) {
		sub, err := parsePushSubscription(data, allowPrivate)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || (ae.code != "bad_json" && ae.code != "bad_push_subscription") {
				t.Fatalf("%q: error %v is not a 400 bad_json or bad_push_subscription", data, err)
			}
			return
		}
		u, err := url.Parse(sub.Endpoint)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(sub.Endpoint) > push.MaxEndpoint {
			t.Fatalf("%q: accepted endpoint %q", data, sub.Endpoint)
		}
		if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !allowPrivate && !push.Public(a) {
			t.Fatalf("%q: accepted the non-public address %s", data, a)
		}
		if _, err := ecdh.P256().NewPublicKey(sub.P256dh); err != nil || len(sub.Auth) != 16 {
			t.Fatalf("%q: accepted keys %x %x", data, sub.P256dh, sub.Auth)
		}
		if !jsontext.Value(data).IsValid() {
			t.Fatalf("%q: accepted a body that is not I-JSON", data)
		}
	})
}
