package devices

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// Argon2Params are the argon2id costs (ADR 0005). They are stored in every
// hash, so raising them later leaves old hashes verifiable.
type Argon2Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// DefaultArgon2 is OWASP's first recommended argon2id configuration.
var DefaultArgon2 = Argon2Params{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltSize = 16
	keySize  = 32

	// Password length bounds in bytes: long enough for a passphrase, short
	// enough that hashing cannot be used to burn CPU on megabyte inputs.
	MinPassword = 8
	MaxPassword = 1024
)

// hasher hashes and checks passwords with argon2id, with at most cap(sem)
// hashes running at once, so a login flood queues instead of allocating
// Memory KiB per request without bound.
type hasher struct {
	params Argon2Params
	sem    chan struct{}
	dummy  string // a hash of a random password, checked for unknown users

	// runs counts the argon2id computations of hash and verify, the
	// dummy's included: the work a login costs, for the metrics, and so a
	// test can see that an unknown username costs what a known one does.
	runs atomic.Int64
}

func newHasher(p Argon2Params, concurrency int) (*hasher, error) {
	if concurrency < 1 {
		concurrency = 1
	}
	h := &hasher{params: p, sem: make(chan struct{}, concurrency)}
	pw := make([]byte, 32)
	_, _ = rand.Read(pw)
	d, err := h.hash(context.Background(), string(pw))
	if err != nil {
		return nil, err
	}
	h.dummy = d
	h.runs.Store(0) // the dummy's own hash is no login's work
	return h, nil
}

func (h *hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *hasher) release() { <-h.sem }

// hash returns the PHC string form: $argon2id$v=19$m=..,t=..,p=..$salt$key.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, saltSize)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	p := h.params
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keySize)
	h.runs.Add(1)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

var errBadHash = errors.New("unrecognised password hash")

// verify reports whether password matches the stored hash. An empty stored
// hash checks against the dummy, so an unknown user costs as much as a known
// one.
func (h *hasher) verify(ctx context.Context, password, stored string) (bool, error) {
	if stored == "" {
		stored = h.dummy
	}
	parts := strings.Split(stored, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false, errBadHash
	}
	var p Argon2Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return false, errBadHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, errBadHash
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	h.runs.Add(1)
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
