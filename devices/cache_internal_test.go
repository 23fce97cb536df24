package devices

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"relay/internal/testdb"
)

// cachedStore is a Store with the session cache, whose notices are being
// received, and one account with one device and a session.
func cachedStore(t *testing.T) (s *Store, token, device string) {
	t.Helper()
	pool, _ := testdb.Pool(t)
	s, err := NewStore(pool, Config{Argon2: Argon2Params{Memory: 64, Time: 1, Threads: 1}, Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess, err := s.CreateAccount(ctx, "alice", "correct horse battery", []byte{4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.Authenticate(ctx, sess.Token)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := s.AddDevice(ctx, acc.ID, "phone", []byte{4})
	if err != nil {
		t.Fatal(err)
	}
	s.SetListening(true)
	return s, sess.Token, dev.ID
}

// live is AuthenticateDevice's answer for the device, which must not fail.
func live(t *testing.T, s *Store, token, device string) bool {
	t.Helper()
	_, ok, err := s.AuthenticateDevice(context.Background(), token, device)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// setRevoked changes the device behind the cache's back: no notice.
func setRevoked(t *testing.T, s *Store, device string, revoked bool) {
	t.Helper()
	q := `UPDATE devices SET revoked_at = NULL WHERE id = $1`
	if revoked {
		q = `UPDATE devices SET revoked_at = now() WHERE id = $1`
	}
	if _, err := s.pool.Exec(context.Background(), q, device); err != nil {
		t.Fatal(err)
	}
}

// TestSessionCacheOnlyWhileListening: the cache answers from memory only
// while its notices are being received. When the listening connection is
// lost, what it held is dropped (a notice may have been missed) and every
// lookup is a query until it is back. The first step is the control: a
// change that no notice told stays unseen while the cache is on.
func TestSessionCacheOnlyWhileListening(t *testing.T) {
	s, token, device := cachedStore(t)
	if !live(t, s, token, device) {
		t.Fatal("the device is not live")
	}
	setRevoked(t, s, device, true)
	if !live(t, s, token, device) {
		t.Fatal("the second lookup was not answered from memory: the test would show nothing")
	}

	s.SetListening(false)
	if live(t, s, token, device) {
		t.Fatal("with the notices lost, a lookup was answered from memory")
	}
	setRevoked(t, s, device, false)
	if !live(t, s, token, device) {
		t.Fatal("the device is not live again")
	}
	setRevoked(t, s, device, true)
	if live(t, s, token, device) {
		t.Fatal("with the notices lost, the cache kept an answer")
	}

	// Kept while listening, then lost and back: the entry is gone.
	setRevoked(t, s, device, false)
	s.SetListening(true)
	live(t, s, token, device)
	setRevoked(t, s, device, true)
	s.SetListening(false)
	s.SetListening(true)
	if live(t, s, token, device) {
		t.Fatal("an entry outlived the loss of the notices")
	}
}

// TestSessionCacheLookupRacingAChange: a lookup that read the database
// before a change, and comes back after the change's notice, must not store
// what it read. The control stores the same answer begun after the notice.
func TestSessionCacheLookupRacingAChange(t *testing.T) {
	c := newSessionCache(10)
	c.setOn(true)
	key := sha256.Sum256([]byte("token"))
	now := time.Now()
	acc := Account{ID: 7}

	for _, change := range []struct {
		name string
		f    func()
	}{
		{"notice", func() { c.forget(7) }},
		{"notice of another account", func() { c.forget(8) }},
		{"listening lost and back", func() { c.setOn(false); c.setOn(true) }},
	} {
		epoch, _ := c.begin()
		change.f()
		c.store(epoch, key, acc, "dev", now.Add(time.Hour), now)
		if _, ok := c.get(key, "dev", now); ok {
			t.Fatalf("%s: a lookup begun before it was stored", change.name)
		}
	}
	epoch, _ := c.begin()
	c.store(epoch, key, acc, "dev", now.Add(time.Hour), now)
	if _, ok := c.get(key, "dev", now); !ok {
		t.Fatal("control: a lookup begun after the change was not stored")
	}
}

// TestSessionCacheBounds: the sessions held, and the devices of each, stay
// within their bounds whatever is asked; an unreadable notice drops all.
func TestSessionCacheBounds(t *testing.T) {
	c := newSessionCache(10)
	c.setOn(true)
	now := time.Now()
	for i := range 25 {
		epoch, _ := c.begin()
		c.store(epoch, sha256.Sum256([]byte(fmt.Sprint(i))), Account{ID: int64(i)}, "dev", now.Add(time.Hour), now)
	}
	if n := len(c.entries); n != 10 {
		t.Fatalf("%d sessions held, want the bound of 10", n)
	}
	key := sha256.Sum256([]byte("many devices"))
	for i := range 1000 {
		epoch, _ := c.begin()
		c.store(epoch, key, Account{ID: 99}, fmt.Sprint(i), now.Add(time.Hour), now)
	}
	if n := len(c.entries[key].live); n != maxLiveDevices {
		t.Fatalf("%d devices held for one session, want the bound of %d", n, maxLiveDevices)
	}

	s := &Store{cache: c}
	s.ForgetNotice("not an account id")
	if n := len(c.entries); n != 0 {
		t.Fatalf("an unreadable notice left %d sessions", n)
	}
	if !s.CacheOn() {
		t.Fatal("an unreadable notice turned the cache off")
	}
}

// TestNameCache: an account found by its name is answered from memory
// until its own notice, a lookup racing a notice is not stored, and the
// names held stay within the bound.
func TestNameCache(t *testing.T) {
	c := newSessionCache(10)
	now := time.Now()
	bob := Account{ID: 7, Username: "bob", PublicKey: []byte{1}}
	epoch, _ := c.begin()
	c.storeName(epoch, bob, now)
	if _, ok := c.getName("bob", now); ok {
		t.Fatal("a name was stored while the notices were not received")
	}
	c.setOn(true)
	epoch, _ = c.begin()
	c.storeName(epoch, bob, now)
	if got, ok := c.getName("bob", now); !ok || got.ID != 7 {
		t.Fatalf("control: the stored name answered %+v, %v", got, ok)
	}
	c.forget(8)
	if _, ok := c.getName("bob", now); !ok {
		t.Fatal("another account's notice dropped bob")
	}
	c.forget(7)
	if _, ok := c.getName("bob", now); ok {
		t.Fatal("bob's notice left his entry")
	}

	epoch, _ = c.begin()
	c.forget(8)
	c.storeName(epoch, bob, now)
	if _, ok := c.getName("bob", now); ok {
		t.Fatal("a lookup begun before a notice was stored")
	}

	epoch, _ = c.begin()
	c.storeName(epoch, bob, now)
	if _, ok := c.getName("bob", now.Add(CacheTTL)); ok {
		t.Fatal("an entry outlived CacheTTL")
	}

	for i := range 25 {
		epoch, _ := c.begin()
		c.storeName(epoch, Account{ID: int64(100 + i), Username: fmt.Sprint("u", i)}, now)
	}
	if n := len(c.names); n != 10 {
		t.Fatalf("%d names held, want the bound of 10", n)
	}
	s := &Store{cache: c}
	s.ForgetNotice("not an account id")
	if n := len(c.names); n != 0 {
		t.Fatalf("an unreadable notice left %d names", n)
	}
}

// setKey replaces the account's key behind the cache's back: no notice.
func setKey(t *testing.T, s *Store, username string, key []byte) {
	t.Helper()
	if _, err := s.pool.Exec(context.Background(), `UPDATE accounts SET public_key = $2 WHERE username = $1`, username, key); err != nil {
		t.Fatal(err)
	}
}

// keyOf is Lookup's answer for username, which must not fail, and
// whether it came from memory.
func keyOf(t *testing.T, s *Store, username string, fresh bool) (key byte, fromMemory bool) {
	t.Helper()
	hits := s.NameCacheHits()
	lookup := s.Lookup
	if fresh {
		lookup = s.LookupFresh
	}
	acc, err := lookup(context.Background(), username)
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.PublicKey) != 1 {
		t.Fatalf("a key of %d bytes", len(acc.PublicKey))
	}
	return acc.PublicKey[0], s.NameCacheHits() > hits
}

// TestHoldAccount: while a change of an account is under way on this
// instance (from before its commit until after its forgetting), nothing
// of the account is answered from memory nor stored, and a lookup begun
// under the hold does not store what it read once the hold ends. The
// first steps are the control: a change the cache was not told of is
// answered as before it.
func TestHoldAccount(t *testing.T) {
	s, token, device := cachedStore(t)
	keyOf(t, s, "alice", false)
	if _, mem := keyOf(t, s, "alice", false); !mem {
		t.Fatal("control: the second lookup was not answered from memory")
	}
	live(t, s, token, device)
	setKey(t, s, "alice", []byte{5})
	setRevoked(t, s, device, true)
	if k, _ := keyOf(t, s, "alice", false); k != 4 {
		t.Fatalf("control: the cache answered key %d, want the one it held, 4", k)
	}
	if !live(t, s, token, device) {
		t.Fatal("control: the cache did not answer the device it held")
	}

	acc, err := s.Lookup(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	release := s.HoldAccount(acc.ID)
	if k, mem := keyOf(t, s, "alice", false); k != 5 || mem {
		t.Fatalf("under the hold: key %d from memory %v, want 5 read from the table", k, mem)
	}
	setKey(t, s, "alice", []byte{6})
	if k, mem := keyOf(t, s, "alice", false); k != 6 || mem {
		t.Fatalf("under the hold, a lookup was stored: key %d from memory %v", k, mem)
	}
	if live(t, s, token, device) {
		t.Fatal("under the hold, the revoked device was answered from memory")
	}
	setRevoked(t, s, device, false)
	live(t, s, token, device)
	setRevoked(t, s, device, true)
	if live(t, s, token, device) {
		t.Fatal("under the hold, a session check was stored")
	}

	// A lookup that read the table under the hold, and stores after it.
	epoch, _ := s.cache.begin()
	release()
	release() // a second call changes nothing
	s.cache.storeName(epoch, Account{ID: acc.ID, Username: "alice", PublicKey: []byte{6}}, s.now())
	setKey(t, s, "alice", []byte{7})
	if k, mem := keyOf(t, s, "alice", false); k != 7 || mem {
		t.Fatalf("after the hold: key %d from memory %v, want 7 read from the table", k, mem)
	}
	if k, mem := keyOf(t, s, "alice", false); k != 7 || !mem {
		t.Fatalf("after the hold, the cache is not used again: key %d from memory %v", k, mem)
	}

	// Two holds of one account: the account stays out until both end.
	r1, r2 := s.HoldAccount(acc.ID), s.HoldAccount(acc.ID)
	r1()
	keyOf(t, s, "alice", false)
	if _, mem := keyOf(t, s, "alice", false); mem {
		t.Fatal("with one of two holds released, a lookup was stored")
	}
	r2()
}

// TestLookupFresh: a fresh lookup reads the table whatever the cache
// holds, and what it read replaces what the cache held.
func TestLookupFresh(t *testing.T) {
	s, _, _ := cachedStore(t)
	keyOf(t, s, "alice", false)
	setKey(t, s, "alice", []byte{5})
	if k, mem := keyOf(t, s, "alice", false); k != 4 || !mem {
		t.Fatalf("control: key %d from memory %v, want the held 4 from memory", k, mem)
	}
	if k, mem := keyOf(t, s, "alice", true); k != 5 || mem {
		t.Fatalf("fresh: key %d from memory %v, want 5 read from the table", k, mem)
	}
	if k, mem := keyOf(t, s, "alice", false); k != 5 || !mem {
		t.Fatalf("after the fresh lookup: key %d from memory %v, want 5 from memory", k, mem)
	}
}
