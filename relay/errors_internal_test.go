package relay

import (
	"bufio"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// protocolErrorCodes reads the table of docs/protocol.md, "Error codes":
// code -> status.
func protocolErrorCodes(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	documented := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Error codes"
			continue
		case !in || !strings.HasPrefix(line, "|"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("protocol.md, Error codes: row %q does not have three cells", line)
		}
		status, code := strings.TrimSpace(cells[0]), strings.Trim(strings.TrimSpace(cells[1]), "`")
		if status == "status" || strings.HasPrefix(status, "-") {
			continue // the header and the line under it
		}
		n, err := strconv.Atoi(status)
		if err != nil {
			t.Fatalf("protocol.md, Error codes: row %q: status %q is not a number", line, status)
		}
		if _, dup := documented[code]; dup {
			t.Errorf("protocol.md, Error codes: %s is listed twice", code)
		}
		documented[code] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(documented) == 0 {
		t.Fatal(`protocol.md has no "## Error codes" table`)
	}
	return documented
}

// TestErrorTableMatchesProtocol: every code of the table in errors.go is
// documented with the same status, and every documented code is in the
// table, so clients can rely on the document.
func TestErrorTableMatchesProtocol(t *testing.T) {
	documented := protocolErrorCodes(t)
	inTable := map[string]bool{}
	for c, e := range codes {
		if e.name == "" || e.message == "" || http.StatusText(e.status) == "" || e.status < 400 {
			t.Errorf("codes[%d] = %+v: an entry needs a name, an error status and a message", c, e)
			continue
		}
		if inTable[e.name] {
			t.Errorf("%s is in the table twice", e.name)
		}
		inTable[e.name] = true
		status, ok := documented[e.name]
		switch {
		case !ok:
			t.Errorf("%s (%d) is not in docs/protocol.md, Error codes", e.name, e.status)
		case status != e.status:
			t.Errorf("%s is %d in errors.go but %d in docs/protocol.md", e.name, e.status, status)
		}
	}
	for code, status := range documented {
		if !inTable[code] {
			t.Errorf("docs/protocol.md documents %d %s, which errors.go does not have", status, code)
		}
	}
}

// TestErrorBuilders: the parameterised codes carry their parameter where
// the protocol says (Retry-After, serverTime) and keep the table's status.
func TestErrorBuilders(t *testing.T) {
	for _, tc := range []struct {
		ae     *apiError
		code   errorCode
		header string
	}{
		{rateLimited(7), codeRateLimited, "7"},
		{tooManyAttempts(9), codeTooManyAttempts, "9"},
		{tooLarge(16), codeTooLarge, ""},
		{tooManyDevices(20), codeTooManyDevices, ""},
		{internalError("r1"), codeInternal, ""},
	} {
		e := codes[tc.code]
		if tc.ae.code != e.name || tc.ae.status != e.status {
			t.Errorf("%v: %d %s, want %d %s", tc.ae, tc.ae.status, tc.ae.code, e.status, e.name)
		}
		if got := tc.ae.header["Retry-After"]; got != tc.header {
			t.Errorf("%v: Retry-After %q, want %q", tc.ae, got, tc.header)
		}
	}
	if ae := internalError("r1"); !strings.Contains(ae.message, "r1") {
		t.Errorf("internal error %q does not name the request id", ae.message)
	}
	var ae *apiError
	if err := error(errUnavailable); !errors.As(err, &ae) || ae.status != http.StatusServiceUnavailable {
		t.Errorf("errUnavailable is %v", err)
	}
}
