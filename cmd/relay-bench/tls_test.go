package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/relayclient"
)

// relayBin is the relay binary the tests that need real relay processes
// build once per test process; TestMain removes it.
var relayBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if relayBin.dir != "" {
		os.RemoveAll(relayBin.dir)
	}
	os.Exit(code)
}

// relayBinary builds the relay (cmd/relay) on first use.
func relayBinary(t *testing.T) string {
	t.Helper()
	relayBin.once.Do(func() {
		if relayBin.dir, relayBin.err = os.MkdirTemp("", "relay-bench-bin-"); relayBin.err != nil {
			return
		}
		relayBin.path = filepath.Join(relayBin.dir, "relay")
		if out, err := exec.Command("go", "build", "-o", relayBin.path, "relay/cmd/relay").CombinedOutput(); err != nil {
			relayBin.err = errors.New("building the relay: " + err.Error() + "\n" + string(out))
		}
	})
	if relayBin.err != nil {
		t.Fatal(relayBin.err)
	}
	return relayBin.path
}

// TestBenchCert: the bench's certificate, loaded as the relay loads it,
// is trusted by the bench's clients for 127.0.0.1. The controls: a client
// with the system's roots refuses it, and it does not verify for
// another address.
func TestBenchCert(t *testing.T) {
	cert, err := newBenchCert()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cert.close()
		if _, err := os.Stat(cert.dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the certificate's directory is left after close: %v", err)
		}
	}()
	pair, err := tls.LoadX509KeyPair(cert.certFile, cert.keyFile)
	if err != nil {
		t.Fatalf("the relay could not load the bench's certificate: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the control's refused handshake
	srv.StartTLS()
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("the test server is at %s, want https://127.0.0.1:…", srv.URL)
	}

	get := func(n *clientNet) error {
		t.Helper()
		tr := n.transport(false, nil)
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(&clientNet{tls: cert.clientConfig()}); err != nil {
		t.Fatalf("with the bench's pool: %v", err)
	}
	var unknown x509.UnknownAuthorityError
	if err := get(&clientNet{tls: &tls.Config{}}); !errors.As(err, &unknown) {
		t.Fatalf("with the system's roots: %v, want an unknown authority", err)
	}

	data, _ := os.ReadFile(cert.certFile)
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("the certificate file holds no PEM block")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: cert.roots, DNSName: "127.0.0.1"}); err != nil {
		t.Fatalf("does not verify for 127.0.0.1: %v", err)
	}
	var host x509.HostnameError
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: cert.roots, DNSName: "127.0.0.2"}); !errors.As(err, &host) {
		t.Fatalf("for 127.0.0.2: %v, want a host name error", err)
	}
}

// TestOptionsCheck: --http2 without --tls is refused with the reason.
func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string // in the error, "" for none
	}{
		{options{instances: 1}, ""},
		{options{instances: 1, tls: true}, ""},
		{options{instances: 1, tls: true, http2: true}, ""},
		{options{instances: 1, http2: true}, "--http2 needs --tls"},
		{options{instances: 0}, "--instances"},
	} {
		err := c.o.check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestDeviceConnections runs the real relay with the bench's certificate
// and one device of the client-like scenario as the bench makes it: over
// HTTP/2 (--http2) its stream and its ACK share one connection, and the
// responses say HTTP/2.0. The control is HTTP/1.1 over TLS, where the
// stream holds its connection and the ACK needs a second one.
func TestDeviceConnections(t *testing.T) {
	bin := relayBinary(t)
	cert, err := newBenchCert()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cert.close)
	db := testdb.New(t)
	b := &bench{o: options{relay: bin}, db: db, cert: cert, net: &clientNet{tls: cert.clientConfig()}}
	b.transport, b.setup = b.net.transport(false, nil), b.net.setupTransport()
	t.Cleanup(b.transport.CloseIdleConnections)
	in, err := b.startInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.stop)
	b.base = in.base
	if !strings.HasPrefix(b.base, "https://127.0.0.1:") {
		t.Fatalf("the relay listens on %s, want https://127.0.0.1:…", b.base)
	}
	pool, err := pgxpool.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	for _, c := range []struct {
		name     string
		http2    bool
		dials    int64
		protocol string
	}{
		{"h2: the stream and its ACK share one connection", true, 1, "h2, tls"},
		{"control, HTTP/1.1 over TLS: the ACK needs a second connection", false, 2, "http/1.1, tls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.o.http2 = c.http2
			devs, name, err := b.account(1)
			if err != nil {
				t.Fatal(err)
			}
			pubs, _, err := b.account(1)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ph := &clientPhase{ctx: ctx}
			defer func() {
				for _, tr := range ph.own {
					tr.CloseIdleConnections()
				}
			}()
			b.transport.CloseIdleConnections()
			dials0 := b.net.dials.Load()
			dev := b.spread(devs[0], 0, ph)

			events := make(chan relayclient.Event, 16)
			done := make(chan error, 1)
			go func() {
				done <- dev.Stream(ctx, "", false, func(e relayclient.Event) error {
					select {
					case events <- e:
					case <-ctx.Done():
					}
					return nil
				})
			}()
			next := func(want string) relayclient.Event {
				t.Helper()
				for {
					select {
					case e := <-events:
						if e.Name == want {
							return e
						}
					case err := <-done:
						t.Fatalf("the stream ended waiting for %s: %v", want, err)
					case <-time.After(30 * time.Second):
						t.Fatalf("no %s on the stream", want)
					}
				}
			}
			next("ready")
			id := ulid.Make().String()
			if _, err := pubs[0].Send(ctx, id, name, []byte("sealed")); err != nil {
				t.Fatal(err)
			}
			e := next("envelope")
			if e.Envelope.ID != id {
				t.Fatalf("envelope %s arrived, want %s", e.Envelope.ID, id)
			}
			if err := dev.Ack(ctx, e.Envelope.Seq); err != nil {
				t.Fatal(err)
			}
			var left int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM queue WHERE device_id = $1`, dev.Device).Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left != 0 {
				t.Fatalf("%d rows queued after the ACK's answer, want 0", left)
			}
			cancel()
			<-done

			if got := b.net.dials.Load() - dials0; got != c.dials {
				t.Errorf("the device opened %d TCP connections, want %d", got, c.dials)
			}
			if got := ph.traffic.protocol(); got != c.protocol {
				t.Errorf("the responses came in %q, want %q", got, c.protocol)
			}
			if n := ph.traffic.h1.Load() + ph.traffic.h2.Load(); n != 2 {
				t.Errorf("%d responses counted, want 2 (the stream's and the ACK's)", n)
			}
		})
	}
}

// TestTrafficProtocol: a phase's protocol note says what every response
// came in, and gives the counts when they were mixed.
func TestTrafficProtocol(t *testing.T) {
	for _, c := range []struct {
		h1, h2, tls, plain int64
		want               string
	}{
		{0, 5, 5, 0, "h2, tls"},
		{5, 0, 5, 0, "http/1.1, tls"},
		{5, 0, 0, 5, "http/1.1, plain"},
		{3, 2, 5, 0, "mixed: 2 h2, 3 http/1.1, tls"},
		{0, 0, 0, 0, "no responses"},
	} {
		var tr traffic
		tr.h1.Store(c.h1)
		tr.h2.Store(c.h2)
		tr.tls.Store(c.tls)
		tr.plain.Store(c.plain)
		if got := tr.protocol(); got != c.want {
			t.Errorf("%d h1, %d h2, %d tls, %d plain: %q, want %q", c.h1, c.h2, c.tls, c.plain, got, c.want)
		}
	}
}
