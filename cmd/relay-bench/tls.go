package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// benchCert is the throw-away certificate of a run with --tls: self-signed
// for 127.0.0.1, written to a directory of its own that close removes.
// The relays serve it; the bench's clients trust it and nothing else.
type benchCert struct {
	dir      string
	certFile string
	keyFile  string
	roots    *x509.CertPool // the certificate alone
}

// newBenchCert makes an ECDSA P-256 key and a certificate for 127.0.0.1
// valid for a day, and writes both as PEM files.
func newBenchCert() (*benchCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "relay-bench"},
		// An hour back, for clocks a little apart; a day is longer than
		// any run.
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "relay-bench-tls-")
	if err != nil {
		return nil, err
	}
	c := &benchCert{dir: dir, certFile: filepath.Join(dir, "cert.pem"), keyFile: filepath.Join(dir, "key.pem"), roots: x509.NewCertPool()}
	c.roots.AddCert(cert)
	for _, f := range []struct {
		path string
		pem  *pem.Block
	}{{c.certFile, &pem.Block{Type: "CERTIFICATE", Bytes: der}}, {c.keyFile, &pem.Block{Type: "PRIVATE KEY", Bytes: kder}}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(f.pem), 0o600); err != nil {
			c.close()
			return nil, fmt.Errorf("writing the bench's certificate: %w", err)
		}
	}
	return c, nil
}

// clientConfig is the TLS configuration of the bench's clients: the
// bench's certificate as the only root. Each transport gets its own copy,
// since a transport that offers HTTP/2 writes its protocols into it.
func (c *benchCert) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: c.roots, MinVersion: tls.VersionTLS12}
}

func (c *benchCert) close() { os.RemoveAll(c.dir) }

// clientNet is how the bench's clients reach the relays: plain HTTP, or
// HTTPS trusting only the bench's certificate. It counts every TCP
// connection its transports open.
type clientNet struct {
	tls   *tls.Config  // nil for plain HTTP; copied into each transport
	dials atomic.Int64 // TCP connections opened, by every transport made here
}

// transport returns a transport of the client-like scenario's clients.
// Without h2 it keeps idle connections for reuse, as many as the load
// needs (one shared by all clients stands for each browser keeping its
// own), and speaks HTTP/1.1; with h2 (over TLS only) it offers HTTP/2 as
// a browser does, and one client's requests then share one connection.
// Each dial also counts on also, when given.
func (n *clientNet) transport(h2 bool, also *atomic.Int64) *http.Transport {
	t := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err == nil {
			n.dials.Add(1)
			if also != nil {
				also.Add(1)
			}
		}
		return conn, err
	}
	if n.tls != nil {
		t.TLSClientConfig = n.tls.Clone()
	}
	if h2 {
		t.ForceAttemptHTTP2 = true
	} else {
		// Said, not left to the defaults, which offer HTTP/2 over TLS
		// for some transports.
		var p http.Protocols
		p.SetHTTP1(true)
		t.Protocols = &p
	}
	return t
}

// setupTransport is what the scenarios other than client-like use over
// TLS: Go's default transport, trusting the bench's certificate, speaking
// HTTP/1.1. Without TLS it is nil, and those clients keep Go's default.
func (n *clientNet) setupTransport() http.RoundTripper {
	if n.tls == nil {
		return nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = n.tls.Clone()
	var p http.Protocols
	p.SetHTTP1(true)
	t.Protocols = &p
	return t
}

// traffic is what the clients of one phase saw of their connections: the
// protocols their responses came in.
type traffic struct {
	h1, h2     atomic.Int64 // responses by HTTP version
	tls, plain atomic.Int64 // responses by transport security
}

// protocol names what the responses came in, "h2, tls" or "http/1.1,
// plain", or the counts when they were mixed.
func (tr *traffic) protocol() string {
	if tr.h1.Load()+tr.h2.Load() == 0 {
		return "no responses"
	}
	version := func(a, b int64, an, bn string) string {
		switch {
		case a > 0 && b == 0:
			return an
		case b > 0 && a == 0:
			return bn
		}
		return fmt.Sprintf("mixed: %d %s, %d %s", a, an, b, bn)
	}
	return version(tr.h2.Load(), tr.h1.Load(), "h2", "http/1.1") + ", " + version(tr.tls.Load(), tr.plain.Load(), "tls", "plain")
}

// observed is a client's transport that tells the phase's traffic how
// each response came.
type observed struct {
	rt http.RoundTripper
	tr *traffic
}

func (o observed) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := o.rt.RoundTrip(r)
	if err == nil {
		if resp.ProtoMajor == 2 {
			o.tr.h2.Add(1)
		} else {
			o.tr.h1.Add(1)
		}
		if resp.TLS != nil {
			o.tr.tls.Add(1)
		} else {
			o.tr.plain.Add(1)
		}
	}
	return resp, err
}
