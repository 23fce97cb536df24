// Package pushtest is a Web Push service of the tests' own, on loopback: the
// receiving side of RFC 8030 that a browser vendor would run. It checks
// every push's VAPID JWT (RFC 8292: ES256 signature under the key in the
// Authorization header, aud, exp, sub), decrypts its RFC 8291 payload
// with the subscription's private key, and answers 201, or what a test
// asks for (410, 429, a 5xx, or no answer at all).
//
// It holds the private keys of the subscriptions it hands out, as a
// browser would; the relay under test sees only their public halves.
package pushtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Hang is an answer that never comes: the request waits until the pusher
// gives up or the service closes.
const Hang = -1

// Service is the push service.
type Service struct {
	srv     *httptest.Server
	subject string // the VAPID sub every push must carry
	closing chan struct{}

	mu      sync.Mutex // guards the following
	subs    map[string]*Subscription
	answers map[string][]int // per subscription, answers before 201s
	hangAll bool
	pushes  map[string][]Push
	tries   map[string]int
	errs    []error
	changed chan struct{} // closed and replaced on every request
}

// Subscription is one browser's subscription at the service.
type Subscription struct {
	ID       string
	Endpoint string // https://127.0.0.1:port/push/ID
	P256dh   string // unpadded base64url, as PushSubscription.toJSON() gives
	Auth     string

	key  *ecdh.PrivateKey
	auth []byte
}

// Push is one push the service accepted, decrypted.
type Push struct {
	Payload  []byte // the plaintext
	TTL      string
	Urgency  string
	Topic    string
	VAPIDKey string // the k= of the Authorization header
}

// New starts a service whose pushes must carry VAPID subject subject; it
// closes when the test ends.
func New(t testing.TB, subject string) *Service {
	t.Helper()
	s := &Service{subject: subject, closing: make(chan struct{}), subs: map[string]*Subscription{},
		answers: map[string][]int{}, pushes: map[string][]Push{}, tries: map[string]int{}, changed: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{certificate(t)}}
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes a test refuses on purpose
	s.srv.StartTLS()
	t.Cleanup(func() {
		close(s.closing)
		s.srv.Close()
		for _, err := range s.Errors() {
			t.Errorf("push service: %v", err)
		}
	})
	return s
}

// certificate makes a self-signed certificate for the loopback names:
// localhost, 127.0.0.1 and ::1.
func certificate(t testing.TB) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "pushtest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// Roots trusts the service's certificate (for localhost, 127.0.0.1 and ::1).
func (s *Service) Roots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.srv.Certificate())
	return p
}

// CertificatePEM is the service's certificate in PEM, for a relay process
// that trusts it through SSL_CERT_FILE.
func (s *Service) CertificatePEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
}

// URL is the service's base URL, https://127.0.0.1:port.
func (s *Service) URL() string { return s.srv.URL }

// Subscribe makes a new subscription with a fresh key pair.
func (s *Service) Subscribe(t testing.TB) *Subscription {
	t.Helper()
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 9)
	auth := make([]byte, 16)
	_, _ = rand.Read(id)
	_, _ = rand.Read(auth)
	sub := &Subscription{ID: base64.RawURLEncoding.EncodeToString(id), P256dh: b64(key.PublicKey().Bytes()), Auth: b64(auth), key: key, auth: auth}
	sub.Endpoint = s.srv.URL + "/push/" + sub.ID
	s.mu.Lock()
	s.subs[sub.ID] = sub
	s.mu.Unlock()
	return sub
}

// Answer makes the next pushes to sub answered with these statuses, in
// order (Hang: no answer), and 201 after them.
func (s *Service) Answer(sub *Subscription, statuses ...int) {
	s.mu.Lock()
	s.answers[sub.ID] = append(s.answers[sub.ID], statuses...)
	s.mu.Unlock()
}

// HangAll makes every push wait without an answer.
func (s *Service) HangAll() {
	s.mu.Lock()
	s.hangAll = true
	s.mu.Unlock()
}

// Pushes returns the pushes to sub accepted so far.
func (s *Service) Pushes(sub *Subscription) []Push {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Push(nil), s.pushes[sub.ID]...)
}

// Tries returns the requests made for sub, whatever they were answered.
func (s *Service) Tries(sub *Subscription) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tries[sub.ID]
}

// Errors returns what was wrong with the pushes received: a bad JWT, a
// payload that does not decrypt. Each was answered 400.
func (s *Service) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

// WaitFor waits, up to a minute, until cond holds after a request; it
// fails the test otherwise. The bound is generous: a push goes through the
// relay's pusher and the browser's service worker, which a loaded machine
// can hold back for many seconds, and a test that passes never waits it.
func (s *Service) WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("push service: waited a minute for %s", what)
		}
	}
}

func (s *Service) handle(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.URL.Path, "/push/")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8192))
	s.mu.Lock()
	sub := s.subs[id]
	answer := http.StatusCreated
	if q := s.answers[id]; len(q) > 0 {
		answer, s.answers[id] = q[0], q[1:]
	}
	if s.hangAll {
		answer = Hang
	}
	s.tries[id]++
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if !ok || sub == nil || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if answer == Hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	p, err := s.check(r, sub, body)
	s.mu.Lock()
	defer func() {
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}()
	if err != nil {
		s.errs = append(s.errs, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if answer == http.StatusTooManyRequests || answer >= 500 {
		w.WriteHeader(answer)
		return
	}
	if answer != http.StatusCreated {
		w.WriteHeader(answer)
		return
	}
	s.pushes[id] = append(s.pushes[id], p)
	w.Header().Set("Location", s.srv.URL+"/message/"+id)
	w.WriteHeader(http.StatusCreated)
}

// check verifies the request as a push service must, the push resource
// being at r.Host (RFC 8030, 8291,
// 8292) and decrypts it.
func (s *Service) check(r *http.Request, sub *Subscription, body []byte) (Push, error) {
	p := Push{TTL: r.Header.Get("TTL"), Urgency: r.Header.Get("Urgency"), Topic: r.Header.Get("Topic")}
	if p.TTL == "" {
		return p, errors.New("no TTL header (RFC 8030, section 5.2)")
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		return p, fmt.Errorf("Content-Encoding %q, want aes128gcm (RFC 8291)", ce)
	}
	key, err := s.checkVAPID(r.Header.Get("Authorization"), "https://"+r.Host)
	if err != nil {
		return p, fmt.Errorf("VAPID: %w", err)
	}
	p.VAPIDKey = key
	if p.Payload, err = decrypt(sub, body); err != nil {
		return p, fmt.Errorf("RFC 8291 payload: %w", err)
	}
	return p, nil
}

// checkVAPID checks an Authorization header "vapid t=<JWT>, k=<key>"
// (RFC 8292, section 3) and returns the key.
func (s *Service) checkVAPID(h, origin string) (string, error) {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return "", errors.New("the Authorization scheme is not vapid")
	}
	var token, k string
	for _, part := range strings.Split(rest, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "t":
			token = value
		case "k":
			k = value
		}
	}
	rawKey, err := base64.RawURLEncoding.DecodeString(k)
	if err != nil {
		return "", fmt.Errorf("k is not unpadded base64url: %w", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), rawKey)
	if err != nil {
		return "", fmt.Errorf("k is not a P-256 point: %w", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", errors.New("t is not a JWS in compact form")
	}
	var header struct{ Typ, Alg string }
	if err := decodePart(parts[0], &header); err != nil || header.Alg != "ES256" {
		return "", fmt.Errorf("JWT header %+v: want alg ES256 (%v)", header, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return "", errors.New("the signature is not 64 bytes of r and s")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", errors.New("the JWT signature does not verify under k")
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return "", fmt.Errorf("JWT claims: %w", err)
	}
	if claims.Aud != origin {
		return "", fmt.Errorf("aud %q, want the push resource's origin %q", claims.Aud, origin)
	}
	now := time.Now().Unix()
	if claims.Exp <= now || claims.Exp > now+24*60*60 {
		return "", fmt.Errorf("exp %d is not within 24 hours from now (%d)", claims.Exp, now)
	}
	if claims.Sub != s.subject {
		return "", fmt.Errorf("sub %q, want %q", claims.Sub, s.subject)
	}
	return k, nil
}

func decodePart(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// decrypt undoes RFC 8291's aes128gcm content coding (RFC 8188) with the
// subscription's private key and authentication secret.
func decrypt(sub *Subscription, body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("shorter than the content coding header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("keyid of %d bytes, want the sender's 65-byte P-256 key", idlen)
	}
	asPublic, ct := body[21:21+idlen], body[21+idlen:]
	if rs < 18 || len(ct) > int(rs) || len(ct) < 17 {
		return nil, fmt.Errorf("one record of %d bytes with rs %d", len(ct), rs)
	}
	peer, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, fmt.Errorf("the sender's key: %w", err)
	}
	secret, err := sub.key.ECDH(peer)
	if err != nil {
		return nil, err
	}
	prkKey, err := hkdf.Extract(sha256.New, secret, sub.auth)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), sub.key.PublicKey().Bytes()...), asPublic...)
	ikm, err := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("does not decrypt with the subscription's keys: %w", err)
	}
	// The last record ends with the delimiter 2, then zero padding.
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, errors.New("the last record has no delimiter 0x02")
	}
	return plain[:len(plain)-1], nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
