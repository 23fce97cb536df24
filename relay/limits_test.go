package relay_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readsUntilClosed reads conn until the relay closes it or answers, and
// returns what it sent; it fails the test if nothing happens within limit.
func readsUntilClosed(t *testing.T, conn net.Conn, limit time.Duration) string {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	data, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the relay still held the connection after %v", limit)
	}
	return string(data)
}

// TestSlowHeadersCutOff: a client that sends its headers slowly (a
// slow-loris) is disconnected after the header timeout; the control is a
// client that finishes its headers in time on the same kind of connection.
func TestSlowHeadersCutOff(t *testing.T) {
	s := newTestServer(t, withTimeouts(200*time.Millisecond, time.Second, time.Second))
	host := strings.TrimPrefix(s.URL, "http://")

	// Timed from before the dial: the relay's clock starts when it
	// accepts, and a loaded machine may take a while to get from the dial
	// to the first bytes written.
	start := time.Now()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\nX-Slow: ", host)
	if got := readsUntilClosed(t, conn, 5*time.Second); strings.Contains(got, "200 OK") {
		t.Fatalf("a request whose headers never ended was served: %q", got)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("cut off after %v, before the header timeout", d)
	}

	ok, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	fmt.Fprintf(ok, "GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host)
	if got := readsUntilClosed(t, ok, 5*time.Second); !strings.HasPrefix(got, "HTTP/1.1 200 OK") {
		t.Fatalf("control: a prompt request got %q", got)
	}
}

// TestSlowBodyCutOff: a body that does not arrive within the body timeout
// gets 408 request_timeout, and nothing is written: the account it would
// have created does not exist.
func TestSlowBodyCutOff(t *testing.T) {
	s := newTestServer(t, withTimeouts(time.Second, 300*time.Millisecond, time.Second))
	host := strings.TrimPrefix(s.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/accounts HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"username\":\"slowpoke\",",
		host, s.URL)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"request_timeout"`) {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, body)
	}
	if n := s.count(t, `SELECT count(*) FROM accounts`); n != 0 {
		t.Fatalf("%d accounts after a stalled registration", n)
	}
}

// TestStuckStreamCutOff: a client that opens its stream and never reads
// is cut off once a write has waited for the stream write timeout, so it
// holds neither a goroutine nor buffers; what it did not read stays
// queued for its next connection.
func TestStuckStreamCutOff(t *testing.T) {
	s := newTestServer(t, withTimeouts(time.Second, time.Second, 300*time.Millisecond), withPing(time.Hour))
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	host := strings.TrimPrefix(s.URL, "http://")
	// A tiny receive window, so that the relay's writes back up soon.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.DialContext(context.Background(), "tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	u := strings.TrimPrefix(s.URL, "http://")
	cookie := ""
	for _, c := range bob.Client.HTTP.Jar.Cookies(mustURL(t, s.URL)) {
		cookie = c.Name + "=" + c.Value
	}
	fmt.Fprintf(conn, "GET /api/events HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nX-Device: %s\r\n\r\n", u, cookie, bob.Devices[0])
	deadline := time.Now().Add(10 * time.Second)
	for s.metric(t, "relay_streams_open") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the stream did not open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Never read. Send far more than the socket buffers hold.
	big := strings.Repeat("x", 60<<10)
	sent := 0
	for ; sent < 150 && s.metric(t, "relay_streams_open") == "1"; sent++ {
		s.send(t, alice.device(0), "bob", big)
	}
	deadline = time.Now().Add(10 * time.Second)
	for s.metric(t, "relay_streams_open") != "0" {
		if time.Now().After(deadline) {
			t.Fatalf("a stream that never reads was still open after %d envelopes", sent)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, bob.Devices[0]); n != sent {
		t.Fatalf("%d envelopes queued for the cut-off device, %d sent", n, sent)
	}
	t.Logf("cut off after %d envelopes of 60 KiB", sent)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestHugeHeadersRefused: headers beyond the limit (16 KiB) get 431 and are
// not read further; the control, a request with ordinary headers on the
// same relay, is served.
func TestHugeHeadersRefused(t *testing.T) {
	s := newTestServer(t)
	req, _ := http.NewRequest("GET", s.URL+"/healthz", nil)
	req.Header.Set("X-Filler", strings.Repeat("a", 40<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("40 KiB of headers: %d, want 431", resp.StatusCode)
	}
	resp, err = http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("control: %d", resp.StatusCode)
	}
}
