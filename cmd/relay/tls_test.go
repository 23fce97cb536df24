package main

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"relay/internal/testdb"
)

// selfSigned writes a certificate and key for 127.0.0.1 to dir and returns
// their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots = x509.NewCertPool()
	roots.AddCert(cert)
	return certFile, keyFile, roots
}

// TestTLS serves HTTPS from certificate files: the relay says https, sends
// HSTS, sets Secure cookies, and refuses plain HTTP on its port.
func TestTLS(t *testing.T) {
	certFile, keyFile, roots := selfSigned(t, t.TempDir())
	_, url := startRelay(t, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("the relay listens on %s, want https://127.0.0.1:…", url)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}

	resp, err := client.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("GET /healthz over TLS: %d", resp.StatusCode)
	}
	if hsts := resp.Header.Get("Strict-Transport-Security"); !strings.Contains(hsts, "max-age=") {
		t.Errorf("no HSTS over TLS: %q", hsts)
	}

	pub, _ := ecdh.P256().GenerateKey(rand.Reader)
	body, _ := json.Marshal(map[string]string{"username": "alice", "password": "long enough password",
		"publicKey": base64.StdEncoding.EncodeToString(pub.PublicKey().Bytes())})
	req, _ := http.NewRequest("POST", url+"/api/accounts", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", url)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK || len(cookies) == 0 {
		t.Fatalf("register over TLS: %d, %d cookies", resp.StatusCode, len(cookies))
	}
	if c := cookies[0]; !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("session cookie %+v is not Secure, HttpOnly and SameSite=Strict", c)
	}

	plain, err := http.Get(strings.Replace(url, "https://", "http://", 1) + "/healthz")
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode == 200 {
			t.Error("plain HTTP was served on the TLS port")
		}
	}
}

// TestTLSOffersHTTP2: with certificate files the relay negotiates HTTP/2
// with a client that offers it, as browsers do, so that a tab's stream
// and its requests share one connection; a client that speaks only
// HTTP/1.1 is still served, and is the control that the protocol seen
// comes from the negotiation.
func TestTLSOffersHTTP2(t *testing.T) {
	certFile, keyFile, roots := selfSigned(t, t.TempDir())
	_, url := startRelay(t, "--tls-cert", certFile, "--tls-key", keyFile)
	for _, c := range []struct {
		name  string
		h2    bool
		major int
		proto string // negotiated by ALPN; none when the client offers only HTTP/1.1
	}{{"HTTP/2 offered", true, 2, "h2"}, {"HTTP/1.1 only", false, 1, ""}} {
		t.Run(c.name, func(t *testing.T) {
			var p http.Protocols
			p.SetHTTP1(true)
			p.SetHTTP2(c.h2)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, Protocols: &p}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get(url + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.TLS == nil {
				t.Fatal("not served over TLS")
			}
			if resp.StatusCode != http.StatusOK || resp.ProtoMajor != c.major || resp.TLS.NegotiatedProtocol != c.proto {
				t.Fatalf("GET /healthz: %d over %s, ALPN %q; want 200 over HTTP/%d, ALPN %q",
					resp.StatusCode, resp.Proto, resp.TLS.NegotiatedProtocol, c.major, c.proto)
			}
		})
	}
}

// TestTLSBadFiles: a certificate that cannot be loaded stops the relay at
// start with a message naming the flag.
func TestTLSBadFiles(t *testing.T) {
	cmd := exec.Command(binary, "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+testdb.New(t))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--tls-cert") {
		t.Fatalf("exit %v, output %s", err, out)
	}
	cmd = exec.Command(binary, "--tls-cert", "x.pem")
	cmd.Env = append(os.Environ(), "DATABASE_URL=postgres://unused")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "go together") {
		t.Fatalf("--tls-cert alone: exit %v, output %s", err, out)
	}
}

// TestACMEConfig: with --acme-domain the relay answers the TLS-ALPN-01
// challenge on its port and asks for certificates only for its domains
// (no certificate authority is reachable here, so the request for a
// listed domain is not made).
func TestACMEConfig(t *testing.T) {
	c, err := tlsConfig(&options{acmeDomains: "relay.example, chat.example", acmeCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.NextProtos, "acme-tls/1") || c.GetCertificate == nil {
		t.Fatalf("TLS config %+v does not serve ACME", c)
	}
	_, err = c.GetCertificate(&tls.ClientHelloInfo{ServerName: "other.example", CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}})
	if err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Fatalf("a certificate was sought for a domain not listed: %v", err)
	}
	if plain, err := tlsConfig(&options{}); plain != nil || err != nil {
		t.Fatalf("no TLS flags: %v, %v", plain, err)
	}
}
