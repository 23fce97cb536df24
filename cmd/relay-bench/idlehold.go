package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// holderEnv, when set, makes this program a holder of idle streams for the
// idle scenario instead of the bench: "plain", or the PEM file of the
// relays' certificate (--tls). A holder reads from its standard input
//
//	open <host> <source address> <device> <cookie>   (tab-separated)
//	go
//
// opens the streams listed since the last go, idleOpeners at once, reads
// each up to ready and answers "opened N" or "failed <why>"; then, for
// every envelope a stream delivers, "arrived <id> <Unix nanoseconds>". It
// closes its streams and ends when its input ends.
const holderEnv = "RELAY_BENCH_HOLD_STREAMS"

// holder is a holder process, seen from the bench.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	in    *bufio.Writer
	done  chan string // the answer to each go
}

// startHolder starts a holder process whose arrivals go to a.
func (b *bench) startHolder(a *idleArrivals) (*holder, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	mode := "plain"
	if b.cert != nil {
		mode = b.cert.certFile
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), holderEnv+"="+mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &holder{cmd: cmd, stdin: stdin, in: bufio.NewWriterSize(stdin, 64<<10), done: make(chan string, 1)}
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "arrived" {
				nano, _ := strconv.ParseInt(f[2], 10, 64)
				a.add(f[1], time.Unix(0, nano))
				continue
			}
			h.done <- sc.Text()
		}
	}()
	return h, nil
}

// send gives h one line; a go is sent at once.
func (h *holder) send(line string) {
	h.in.WriteString(line)
	h.in.WriteByte('\n')
	if line == "go" {
		h.in.Flush()
	}
}

// wait waits for h's answer to a go.
func (h *holder) wait() error {
	answer, ok := <-h.done
	switch {
	case !ok:
		return errors.New("a holder of idle streams ended")
	case strings.HasPrefix(answer, "opened "):
		return nil
	}
	return fmt.Errorf("holder of idle streams: %s", answer)
}

// stop closes h's input, which closes its streams, and waits for it.
func (h *holder) stop() {
	h.stdin.Close()
	_ = h.cmd.Wait()
}

// holdStreams is a holder's whole life (holderEnv).
func holdStreams(stdin io.Reader, stdout io.Writer, mode string) error {
	var cfg *tls.Config
	if mode != "plain" {
		pem, err := os.ReadFile(mode)
		if err != nil {
			return err
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		cfg = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	var mu sync.Mutex // guards out
	out := bufio.NewWriter(stdout)
	tell := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(line + "\n")
		out.Flush()
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var pending [][]string
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case len(f) == 5 && f[0] == "open":
			pending = append(pending, f[1:])
		case len(f) == 1 && f[0] == "go":
			opened := make([]*idleStream, len(pending))
			err := parallel(idleOpeners, len(pending), func(i int) error {
				p := pending[i]
				s, err := openIdle(cfg, p[0], net.ParseIP(p[1]), p[2], p[3])
				opened[i] = s
				return err
			})
			for _, s := range opened {
				if s != nil {
					conns = append(conns, s.conn)
					go s.read(func(id string, at time.Time) { tell(fmt.Sprintf("arrived %s %d", id, at.UnixNano())) })
				}
			}
			if err != nil {
				tell("failed " + strings.ReplaceAll(err.Error(), "\n", " "))
			} else {
				tell(fmt.Sprintf("opened %d", len(pending)))
			}
			pending = nil
		default:
			return fmt.Errorf("holder: unexpected line %q", sc.Text())
		}
	}
	return sc.Err()
}

// idleStream is one stream a holder keeps open.
type idleStream struct {
	conn net.Conn
	rd   *bufio.Reader
}

// openIdle opens device's stream on host from source address src with the
// session cookie, and reads it up to ready.
func openIdle(cfg *tls.Config, host string, src net.IP, device, cookie string) (*idleStream, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: 30 * time.Second}
	var conn net.Conn
	var err error
	if cfg != nil {
		conn, err = tls.DialWithDialer(d, "tcp", host, cfg)
	} else {
		conn, err = d.Dial("tcp", host)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(conn, "GET /api/events?device=%s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\n\r\n", device, host, cookie)
	rd := bufio.NewReaderSize(conn, 4096)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("idle stream: %w", err)
		}
		if strings.HasPrefix(line, "event: ready") {
			return &idleStream{conn: conn, rd: rd}, nil
		}
	}
}

// read reports the envelopes s delivers until its connection closes.
func (s *idleStream) read(arrived func(id string, at time.Time)) {
	envelope := false
	for {
		line, err := s.rd.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			envelope = bytes.Equal(line, []byte("event: envelope\n"))
		case envelope && bytes.HasPrefix(line, []byte("data: ")):
			at := time.Now()
			var e struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(line[len("data: "):], &e) == nil {
				arrived(e.ID, at)
			}
			envelope = false
		}
	}
}
