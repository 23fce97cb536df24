package devices

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The session cache answers AuthenticateDevice from memory for a session
// and device it has seen live (ADR 0072). It holds what the query would
// read: the account, the session's expiry and the devices found live, keyed
// by the SHA-256 of the token, as the sessions table is; it never holds a
// token.
//
// Every change that could make the query answer otherwise sends, inside
// its transaction, a notice on AuthChannel with the account's id; every
// relay instance forgets the account's entries when it arrives (package
// hub listens for it). The instance that made the change holds the
// account out of its cache from before the commit (HoldAccount) and
// forgets it right after (ForgetAccount), so that none of its own
// requests is answered from memory as before the change once the change
// committed, and none waits for the notice. A notice can be missed only
// while the listening connection is down: the cache is off then
// (SetListening), and an entry lives at most CacheTTL whatever happens.
// Another instance answers as before the change until the notice reaches
// it, which is what a reader of the database does while the change has
// not committed; a client that must not be answered from memory asks for
// a fresh read (LookupFresh).
const (
	// AuthChannel is the LISTEN/NOTIFY channel of the cache's notices.
	AuthChannel = "relay_auth"
	// CacheTTL bounds an entry's life, a safety net under the notices.
	CacheTTL = 30 * time.Second
	// CacheSize bounds the sessions held; each is a few hundred bytes.
	CacheSize = 100_000
	// maxLiveDevices bounds the devices held for one session, whatever
	// ids a client asks about.
	maxLiveDevices = 4 * DefaultMaxDevices
)

type sessionEntry struct {
	acc     Account
	expires time.Time           // the session's expires_at
	until   time.Time           // the entry's end, CacheTTL after it was read
	live    map[string]struct{} // devices of the account found live
}

// nameEntry is an account found by its username (Store.Lookup): what the
// key directory and every send to the name read. A username never changes
// owner while its account exists, and a deleted account's name is held
// before anyone may take it again; deletion and key replacement, the only
// changes to what the entry holds, send the notice.
type nameEntry struct {
	acc   Account
	until time.Time // the entry's end, CacheTTL after it was read
}

type sessionCache struct {
	max int // sessions held at most, and names held at most

	mu      sync.Mutex // guards the following
	on      bool       // the notices are being received
	epoch   uint64     // grows at every forgetting: a lookup begun before it is not stored
	entries map[[sha256.Size]byte]*sessionEntry
	names   map[string]*nameEntry
	held    map[int64]int // accounts whose change is under way, with how many: nothing of theirs is stored

	// Counters, for the metrics and the tests.
	hits      atomic.Int64 // session checks answered from memory
	nameHits  atomic.Int64 // username lookups answered from memory
	forgotten atomic.Int64 // accounts forgotten, by notice or after a local change
}

func newSessionCache(max int) *sessionCache {
	return &sessionCache{max: max, entries: make(map[[sha256.Size]byte]*sessionEntry), names: make(map[string]*nameEntry), held: make(map[int64]int)}
}

func (c *sessionCache) getName(username string, now time.Time) (Account, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.names[username]
	if e == nil || !c.on {
		return Account{}, false
	}
	if !now.Before(e.until) {
		delete(c.names, username)
		return Account{}, false
	}
	c.nameHits.Add(1)
	return e.acc, true
}

func (c *sessionCache) storeName(epoch uint64, acc Account, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.epoch != epoch || c.held[acc.ID] > 0 {
		return
	}
	if _, ok := c.names[acc.Username]; !ok && len(c.names) >= c.max {
		for k := range c.names { // any one: the cache is no LRU
			delete(c.names, k)
			break
		}
	}
	c.names[acc.Username] = &nameEntry{acc: acc, until: now.Add(CacheTTL)}
}

// begin is called before a lookup goes to the database; store takes its
// answer only if nothing was forgotten meanwhile.
func (c *sessionCache) begin() (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch, c.on
}

func (c *sessionCache) get(key [sha256.Size]byte, device string, now time.Time) (Account, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil || !c.on {
		return Account{}, false
	}
	if !now.Before(e.expires) || !now.Before(e.until) {
		delete(c.entries, key)
		return Account{}, false
	}
	if _, ok := e.live[device]; !ok {
		return Account{}, false
	}
	c.hits.Add(1)
	return e.acc, true
}

func (c *sessionCache) store(epoch uint64, key [sha256.Size]byte, acc Account, device string, expires, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.epoch != epoch || c.held[acc.ID] > 0 {
		return
	}
	e := c.entries[key]
	if e == nil {
		if len(c.entries) >= c.max {
			for k := range c.entries { // any one: the cache is no LRU
				delete(c.entries, k)
				break
			}
		}
		e = &sessionEntry{acc: acc, expires: expires, until: now.Add(CacheTTL), live: make(map[string]struct{}, 1)}
		c.entries[key] = e
	}
	if len(e.live) < maxLiveDevices {
		e.live[device] = struct{}{}
	}
}

func (c *sessionCache) forget(accountID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(accountID)
	c.forgotten.Add(1)
}

// hold keeps the account out of the cache until release: what it held
// goes, and nothing of it is stored meanwhile.
func (c *sessionCache) hold(accountID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held[accountID]++
	c.drop(accountID)
}

// release ends a hold. A lookup begun under it read the database while
// the change was under way: the new epoch keeps its answer out too.
func (c *sessionCache) release(accountID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[accountID]--; c.held[accountID] <= 0 {
		delete(c.held, accountID)
	}
	c.drop(accountID)
}

// drop removes the account's entries and begins a new epoch. c.mu is held.
func (c *sessionCache) drop(accountID int64) {
	c.epoch++
	for k, e := range c.entries {
		if e.acc.ID == accountID {
			delete(c.entries, k)
		}
	}
	for k, e := range c.names {
		if e.acc.ID == accountID {
			delete(c.names, k)
		}
	}
}

func (c *sessionCache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.entries)
	clear(c.names)
}

func (c *sessionCache) setOn(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.on = on
	clear(c.entries)
	clear(c.names)
}

// notifyAuth queues, inside tx, the notice that makes every relay instance
// forget the account's cached sessions; PostgreSQL sends it on commit.
func notifyAuth(ctx context.Context, tx pgx.Tx, accountID int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", AuthChannel, strconv.FormatInt(accountID, 10)); err != nil {
		return fmt.Errorf("notifying the relay instances: %w", err)
	}
	return nil
}

// ForgetAccount drops the account's cached sessions. The relay calls it
// after committing a change that sent a notice (Revoke, ReplaceKey,
// DeleteAccount …), and the hub when such a notice arrives.
func (s *Store) ForgetAccount(accountID int64) {
	if s.cache != nil {
		s.cache.forget(accountID)
	}
}

// HoldAccount keeps the account out of this instance's cache until the
// returned function is called: a change of the account (package
// lifecycle) holds it from before its commit until after ForgetAccount,
// so that no request is answered from memory as before the change in
// the moment between the commit and the forgetting. Lookups meanwhile
// read the database. Every hold must be released, whether the change
// committed or not.
func (s *Store) HoldAccount(accountID int64) (release func()) {
	if s.cache == nil {
		return func() {}
	}
	s.cache.hold(accountID)
	var once sync.Once
	return func() { once.Do(func() { s.cache.release(accountID) }) }
}

// ForgetNotice is ForgetAccount for the payload of a notice on
// AuthChannel. A payload it cannot read flushes the whole cache.
func (s *Store) ForgetNotice(payload string) {
	if s.cache == nil {
		return
	}
	id, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		s.cache.flush()
		return
	}
	s.cache.forget(id)
}

// SetListening says whether the notices on AuthChannel are being received.
// The cache is used only while they are: each change flushes it.
func (s *Store) SetListening(on bool) {
	if s.cache != nil {
		s.cache.setOn(on)
	}
}

func (c *sessionCache) isOn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on
}

// CacheStats returns the lookups answered from memory and the accounts
// forgotten so far.
func (s *Store) CacheStats() (hits, forgotten int64) {
	if s.cache == nil {
		return 0, 0
	}
	return s.cache.hits.Load(), s.cache.forgotten.Load()
}

// NameCacheHits returns the username lookups (Lookup) answered from memory
// so far.
func (s *Store) NameCacheHits() int64 {
	if s.cache == nil {
		return 0
	}
	return s.cache.nameHits.Load()
}

// CacheOn reports whether lookups may be answered from memory: the cache
// exists and its notices are being received.
func (s *Store) CacheOn() bool { return s.cache != nil && s.cache.isOn() }
