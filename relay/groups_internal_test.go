package relay

import (
	"encoding/base64"
	"testing"

	"relay/mlsgroup"
)

// TestParseGroupInfo: each refusal has its control, the same body with
// the rule kept, which parses.
func TestParseGroupInfo(t *testing.T) {
	info := func(n int) string { return `"` + base64.StdEncoding.EncodeToString(make([]byte, n)) + `"` }
	for _, c := range []struct{ body, want string }{
		{`{"epoch": 0, "info": ` + info(1) + `}`, ""},
		{`{"epoch": 7, "info": ` + info(mlsgroup.MaxInfo) + `}`, ""},
		{`{"epoch": 7, "info": ` + info(mlsgroup.MaxInfo+1) + `}`, "bad_group_info"},
		{`{"epoch": 9223372036854775807, "info": "eA=="}`, ""},
		{`{"epoch": 9223372036854775808, "info": "eA=="}`, "bad_group_info"},
		{`{"epoch": 18446744073709551616, "info": "eA=="}`, "bad_json"},
		{`{"epoch": -1, "info": "eA=="}`, "bad_json"},
		{`{"epoch": 1.5, "info": "eA=="}`, "bad_json"},
		{`{"epoch": 1e2, "info": "eA=="}`, "bad_json"},
		{`{"epoch": "1", "info": "eA=="}`, "bad_json"},
		{`{"info": "eA=="}`, "bad_group_info"},
		{`{"epoch": null, "info": "eA=="}`, "bad_group_info"},
		{`{"epoch": 1}`, "bad_group_info"},
		{`{"epoch": 1, "info": ""}`, "bad_group_info"},
		{`{"epoch": 1, "info": "eA"}`, "bad_group_info"},
		{`{"epoch": 1, "info": "eA-="}`, "bad_group_info"},
		{`{"epoch": 1, "info": "eA==", "epoch": 2}`, "bad_json"},
		{`{"epoch": 1, "info": "eA==", "other": true}`, ""},
		{`[1]`, "bad_json"},
	} {
		epoch, b, err := parseGroupInfo([]byte(c.body))
		if got := apiCode(t, err); got != c.want {
			t.Errorf("%.80s: %q, want %q", c.body, got, c.want)
		}
		if err == nil && (len(b) == 0 || epoch > 1<<63-1) {
			t.Errorf("%.80s: parsed epoch %d and %d bytes", c.body, epoch, len(b))
		}
	}
}

// FuzzParseGroupInfo: a body is refused with bad_json or bad_group_info,
// or accepted with an epoch PostgreSQL can hold and 1 to MaxInfo bytes.
func FuzzParseGroupInfo(f *testing.F) {
	for _, s := range []string{`{"epoch": 0, "info": "eA=="}`, `{"epoch": 9223372036854775808, "info": "eA=="}`,
		`{"epoch": -1, "info": "eA=="}`, `{"epoch": 1, "info": ""}`, `{"epoch": 1}`, "{\"epoch\": 1, \"info\": \"\xff\"}", `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		epoch, info, err := parseGroupInfo(data)
		if err != nil {
			if c := apiCode(t, err); c != "bad_json" && c != "bad_group_info" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if epoch > 1<<63-1 || len(info) == 0 || len(info) > mlsgroup.MaxInfo {
			t.Fatalf("%q: accepted epoch %d with %d bytes", data, epoch, len(info))
		}
	})
}
