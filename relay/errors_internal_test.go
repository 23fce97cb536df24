package relay

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
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

// TestLostConnectionIsUnavailable: the errors pgx gives when the database
// goes away under a relay (its backends terminated, its pool closed) are
// 503 unavailable, and an ordinary failed query is still a 500.
func TestLostConnectionIsUnavailable(t *testing.T) {
	ctx := context.Background()
	url := testdb.New(t)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	terminate := func(t *testing.T, c *pgx.Conn) {
		t.Helper()
		pid := c.PgConn().PID()
		// With a timeout the call returns once the backend is gone, so
		// the next use of c cannot reach it first.
		var ok bool
		if err := admin.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, pid).Scan(&ok); err != nil || !ok {
			t.Fatalf("terminating backend %d: %v, %v", pid, ok, err)
		}
	}
	connect := func(t *testing.T) *pgx.Conn {
		t.Helper()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	for _, tc := range []struct {
		name string
		err  func(t *testing.T) error
		want string
	}{
		{"terminated backend", func(t *testing.T) error {
			c := connect(t)
			terminate(t, c)
			_, err := c.Exec(ctx, `SELECT 1`) // 57P01 from the server
			return err
		}, "unavailable"},
		{"connection closed by an earlier failure", func(t *testing.T) error {
			c := connect(t)
			terminate(t, c)
			_, _ = c.Exec(ctx, `SELECT 1`)
			_, err := c.Exec(ctx, `SELECT 1`) // pgx's own "conn closed"
			return err
		}, "unavailable"},
		{"commit after the backend was terminated", func(t *testing.T) error {
			c := connect(t)
			tx, err := c.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			terminate(t, c)
			_, _ = tx.Exec(ctx, `SELECT 1`)
			return tx.Commit(ctx)
		}, "unavailable"},
		{"closed pool", func(t *testing.T) error {
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			pool.Close()
			var n int
			return pool.QueryRow(ctx, `SELECT 1`).Scan(&n)
		}, "unavailable"},
		// The control: the database is there and refuses the query.
		{"failed query", func(t *testing.T) error {
			_, err := connect(t).Exec(ctx, `SELECT * FROM no_such_table`)
			return err
		}, "internal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err(t)
			if err == nil {
				t.Fatal("no error")
			}
			ae := toAPIError(err, "r1")
			if ae.code != tc.want || ae.status != codes[codeOf(t, tc.want)].status {
				t.Fatalf("%v became %d %s, want %s", err, ae.status, ae.code, tc.want)
			}
		})
	}
}

func codeOf(t *testing.T, name string) errorCode {
	t.Helper()
	for c, e := range codes {
		if e.name == name {
			return errorCode(c)
		}
	}
	t.Fatalf("no code %s", name)
	return 0
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
