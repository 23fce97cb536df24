package relay_test

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

// openRaw opens device's event stream on a connection of its own, with no
// goroutine on the client's side, and reads it up to ready.
func openRaw(t *testing.T, s *testServer, u *user, device string) (net.Conn, *bufio.Reader) {
	t.Helper()
	base, _ := url.Parse(s.URL)
	var cookies []string
	for _, c := range u.Client.HTTP.Jar.Cookies(base) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	conn, err := net.Dial("tcp", base.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /api/events?device=%s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\n\r\n", device, base.Host, strings.Join(cookies, "; "))
	rd := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream of %s: %v", device, err)
		}
		if strings.HasPrefix(line, "event: ready") {
			return conn, rd
		}
	}
}

// goroutinesAtMost waits until the process runs at most n goroutines.
func goroutinesAtMost(t *testing.T, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines, want at most %d", what, runtime.NumGoroutine(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleStreamIsOneGoroutine: an idle event stream over HTTP/1.1 costs
// the relay one parked goroutine (docs/performance.md, "Idle streams"),
// and that goroutine still delivers, pings, and ends when its client goes.
// Two goroutines per stream (a reader beside the writer) fail it.
func TestIdleStreamIsOneGoroutine(t *testing.T) {
	const n = 40
	const slack = 8 // goroutines that come and go: the database pool's, the HTTP server's
	s := newTestServer(t, withMaxDevices(n+1), withPing(200*time.Millisecond))
	bob := s.register(t, "bob", n+1)
	alice := s.register(t, "alice", 1)
	openRaw(t, s, bob, bob.Devices[0]) // warms the pool and the server up
	base := runtime.NumGoroutine()
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		conns[i], readers[i] = openRaw(t, s, bob, bob.Devices[i+1])
	}
	goroutinesAtMost(t, base+n+slack, fmt.Sprintf("%d idle streams", n))

	// A ping comes by itself; an envelope interrupts the wait at once.
	waitFor := func(rd *bufio.Reader, prefix string) {
		t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for %q: %v", prefix, err)
			}
			if strings.HasPrefix(line, prefix) {
				return
			}
		}
	}
	_ = conns[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	waitFor(readers[0], "event: ping")
	s.send(t, alice.device(0), "bob", "hello")
	_ = conns[n-1].SetReadDeadline(time.Now().Add(10 * time.Second))
	waitFor(readers[n-1], "event: envelope")

	for _, c := range conns {
		c.Close()
	}
	goroutinesAtMost(t, base+slack, "after the clients left")
}
