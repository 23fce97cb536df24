package main

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"relay/relayclient"
)

// rssKiB reads a process's resident set size.
func rssKiB(b *testing.B, pid int) int {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkIdleStreamMemory opens b.N idle event streams on a real relay
// process and reports the growth of its resident memory per stream. Run it
// with a fixed count, for example -benchtime=2000x.
func BenchmarkIdleStreamMemory(b *testing.B) {
	cmd, base := startRelay(b, "--ping-interval", "1h")
	ctx := context.Background()
	c := relayclient.New(base)
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	if err := c.Register(ctx, "bench", "long enough password", k.PublicKey().Bytes()); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, b.N)
	for i := range ids {
		id, err := c.AddDevice(ctx, "d", k.PublicKey().Bytes())
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = id
	}
	u, _ := url.Parse(base)
	cookies := c.HTTP.Jar.Cookies(u)
	// Warm up: one stream, so the baseline includes the first-use costs.
	warm := openStream(b, u.Host, ids[0], cookies)
	warm.Close()
	time.Sleep(200 * time.Millisecond) // let the server notice the close
	before := rssKiB(b, cmd.Process.Pid)
	b.ResetTimer()
	conns := make([]net.Conn, 0, b.N)
	for i := 0; i < b.N; i++ {
		conns = append(conns, openStream(b, u.Host, ids[i], cookies))
	}
	b.StopTimer()
	after := rssKiB(b, cmd.Process.Pid)
	b.ReportMetric(float64(after-before)/float64(b.N), "KiB/stream")
	for _, c := range conns {
		c.Close()
	}
}

// openStream opens a stream with a raw connection and reads until "ready",
// so the server has done all the work of an idle stream.
func openStream(b *testing.B, host, device string, cookies []*http.Cookie) net.Conn {
	b.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		b.Fatal(err)
	}
	var cookie []string
	for _, c := range cookies {
		cookie = append(cookie, c.Name+"="+c.Value)
	}
	fmt.Fprintf(conn, "GET /api/events?device=%s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nAccept: text/event-stream\r\n\r\n",
		device, host, strings.Join(cookie, "; "))
	rd := bufio.NewReader(conn)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			b.Fatalf("stream %s: %v", device, err)
		}
		if strings.HasPrefix(line, "event: ready") {
			return conn
		}
	}
}
