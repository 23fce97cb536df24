// Package devices knows who is speaking: accounts, their password logins and
// sessions, their devices, the X-Device check, and who is whose contact.
//
// It stores password hashes (argon2id), SHA-256 hashes of session tokens,
// public keys and each account's recovery blob, which it treats as opaque
// bytes. It never sees a private key, a plaintext message or an envelope
// body, and it never logs a password, a token or a blob.
package devices

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"
)

// Errors the API maps to its stable codes.
var (
	ErrUsernameTaken   = errors.New("username taken")
	ErrBadCredentials  = errors.New("bad credentials")
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrUnknownAccount  = errors.New("unknown account")
	ErrDeviceForbidden = errors.New("device forbidden")
	ErrUnknownDevice   = errors.New("unknown device")
	ErrTooManyDevices  = errors.New("too many devices")
	ErrNoRecovery      = errors.New("no recovery blob")
)

// SessionTTL is how long a session lasts after login.
const SessionTTL = 30 * 24 * time.Hour

// MaxDeviceName bounds a device's display name, in bytes.
const MaxDeviceName = 64

// Account is the public face of an account.
type Account struct {
	ID        int64
	Username  string
	PublicKey []byte
}

// Device is one registered device of an account.
type Device struct {
	ID         string
	AccountID  int64
	Name       string
	PublicKey  []byte
	CreatedAt  time.Time
	LastSeenAt *time.Time
	// Linked reports whether the device holds the account key
	// (docs/protocol.md, "GET /api/devices").
	Linked bool
}

// Contact is an account that has exchanged an envelope with this one.
type Contact struct {
	Username  string
	PublicKey []byte
	Since     time.Time
}

// Store reads and writes accounts, sessions, devices and contacts.
type Store struct {
	pool       *pgxpool.Pool
	now        func() time.Time
	pw         *hasher
	maxDevices int
	cache      *sessionCache // nil: every lookup is a query
}

// Config tunes a Store. The zero value means the defaults.
type Config struct {
	Argon2 Argon2Params // zero: DefaultArgon2
	// HashConcurrency bounds concurrent argon2id computations; zero means
	// GOMAXPROCS.
	HashConcurrency int
	Now             func() time.Time // zero: time.Now
	// MaxDevices bounds an account's devices that are not revoked; zero
	// means DefaultMaxDevices.
	MaxDevices int
	// Cache answers AuthenticateDevice from memory while SetListening
	// says the notices arrive (ADR 0072). Off, every lookup is a query.
	Cache bool
}

// TooManyDevicesError is AddDevice's answer when the account has its
// Max live devices; it matches ErrTooManyDevices.
type TooManyDevicesError struct{ Max int }

func (e *TooManyDevicesError) Error() string {
	return fmt.Sprintf("the account has %d devices, the most allowed", e.Max)
}

func (e *TooManyDevicesError) Is(target error) bool { return target == ErrTooManyDevices }

// DefaultMaxDevices is how many live devices an account may have.
const DefaultMaxDevices = 20

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool, cfg Config) (*Store, error) {
	if cfg.Argon2 == (Argon2Params{}) {
		cfg.Argon2 = DefaultArgon2
	}
	if cfg.HashConcurrency == 0 {
		cfg.HashConcurrency = runtime.GOMAXPROCS(0)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxDevices == 0 {
		cfg.MaxDevices = DefaultMaxDevices
	}
	h, err := newHasher(cfg.Argon2, cfg.HashConcurrency)
	if err != nil {
		return nil, err
	}
	st := &Store{pool: pool, now: cfg.Now, pw: h, maxDevices: cfg.MaxDevices}
	if cfg.Cache {
		st.cache = newSessionCache(CacheSize)
	}
	return st, nil
}

// Session is a new login: the token goes to the client, only its hash is kept.
type Session struct {
	Token   string
	Expires time.Time
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func (s *Store) newSession(ctx context.Context, tx pgx.Tx, accountID int64) (Session, error) {
	b := make([]byte, 32) // 256 bits
	if _, err := rand.Read(b); err != nil {
		return Session{}, err
	}
	sess := Session{Token: base64.RawURLEncoding.EncodeToString(b), Expires: s.now().Add(SessionTTL)}
	_, err := tx.Exec(ctx, `INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		hashToken(sess.Token), accountID, s.now(), sess.Expires)
	return sess, err
}

// CreateAccount registers username and logs it in. The caller has checked the
// username, the password length and the public key. admit, when not nil,
// runs first in the transaction that creates the account, after the
// password is hashed whatever it answers: an error from it (an invite code
// that cannot be spent, ADR 0117) is returned and creates nothing, and
// what it wrote is rolled back with the rest when the account cannot be
// created.
func (s *Store) CreateAccount(ctx context.Context, username, password string, publicKey []byte, admit func(context.Context, pgx.Tx) error) (Session, error) {
	hash, err := s.pw.hash(ctx, password)
	if err != nil {
		return Session{}, err
	}
	var sess Session
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if admit != nil {
			if err := admit(ctx, tx); err != nil {
				return err
			}
		}
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO accounts (username, password_hash, public_key, created_at)
			VALUES ($1, $2, $3, $4) RETURNING id`, username, hash, publicKey, s.now()).Scan(&id)
		if err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation
				return ErrUsernameTaken
			}
			return err
		}
		// Checked after the insert: an insert of a name whose account is
		// being deleted waits for that deletion on the unique index, so
		// this read sees the name it held (ADR 0059).
		held, err := s.heldName(ctx, tx, username)
		if err != nil {
			return err
		}
		if held {
			return ErrUsernameHeld
		}
		sess, err = s.newSession(ctx, tx, id)
		return err
	})
	return sess, err
}

// Login checks a password and opens a session. An unknown username and a
// wrong password both return ErrBadCredentials after the same argon2id work.
func (s *Store) Login(ctx context.Context, username, password string) (Account, Session, error) {
	var acc Account
	var stored string
	var disabled bool
	err := s.pool.QueryRow(ctx, `SELECT id, username, public_key, password_hash, disabled_at IS NOT NULL FROM accounts WHERE username = $1`,
		username).Scan(&acc.ID, &acc.Username, &acc.PublicKey, &stored, &disabled)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Account{}, Session{}, err
	}
	ok, verr := s.pw.verify(ctx, password, stored)
	if verr != nil {
		return Account{}, Session{}, verr
	}
	if !ok || stored == "" {
		return Account{}, Session{}, ErrBadCredentials
	}
	// Only after the password: the answer tells that the account is
	// disabled to its owner, not to anyone who tries the name.
	if disabled {
		return Account{}, Session{}, ErrAccountDisabled
	}
	var sess Session
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		sess, err = s.newSession(ctx, tx, acc.ID)
		return err
	})
	return acc, sess, err
}

// Logout ends the session with this token, and no other.
func (s *Store) Logout(ctx context.Context, token string) error {
	var accountID int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `DELETE FROM sessions WHERE token_hash = $1 RETURNING account_id`, hashToken(token)).Scan(&accountID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return notifyAuth(ctx, tx, accountID)
	})
	if err == nil && accountID != 0 {
		s.ForgetAccount(accountID)
	}
	return err
}

// Authenticate returns the account of a live session.
func (s *Store) Authenticate(ctx context.Context, token string) (Account, error) {
	if token == "" {
		return Account{}, ErrUnauthenticated
	}
	var acc Account
	var disabled bool
	err := s.pool.QueryRow(ctx, `SELECT a.id, a.username, a.public_key, a.disabled_at IS NOT NULL
		FROM sessions s JOIN accounts a ON a.id = s.account_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, hashToken(token), s.now()).Scan(&acc.ID, &acc.Username, &acc.PublicKey, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrUnauthenticated
	}
	if err == nil && disabled {
		return Account{}, ErrAccountDisabled
	}
	return acc, err
}

// AuthenticateDevice is the session check and the X-Device check in one
// query, for the requests that speak as a device. It returns the account
// and whether deviceID is a live device of it (it must exist, be live and
// belong to the session's account; an empty deviceID never is). Callers
// answer every failure of the device part the same way, so the answer does
// not tell whether a foreign id exists.
func (s *Store) AuthenticateDevice(ctx context.Context, token, deviceID string) (Account, bool, error) {
	if token == "" {
		return Account{}, false, ErrUnauthenticated
	}
	key := sha256.Sum256([]byte(token))
	var epoch uint64
	var cached bool
	if s.cache != nil && deviceID != "" {
		if acc, ok := s.cache.get(key, deviceID, s.now()); ok {
			return acc, true, nil
		}
		epoch, cached = s.cache.begin()
	}
	var acc Account
	var live, disabled bool
	var expires time.Time
	now := s.now()
	err := s.pool.QueryRow(ctx, `SELECT a.id, a.username, a.public_key,
			EXISTS (SELECT 1 FROM devices d WHERE d.id = $3 AND d.account_id = a.id AND d.revoked_at IS NULL),
			a.disabled_at IS NOT NULL, s.expires_at
		FROM sessions s JOIN accounts a ON a.id = s.account_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, key[:], now, deviceID).Scan(&acc.ID, &acc.Username, &acc.PublicKey, &live, &disabled, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, false, ErrUnauthenticated
	}
	if err == nil && disabled {
		return Account{}, false, ErrAccountDisabled
	}
	if err == nil && live && cached {
		// Only what passes is kept: a failure stays a query, so no
		// one fills memory with tokens or ids that do not exist.
		s.cache.store(epoch, key, acc, deviceID, expires, now)
	}
	return acc, live, err
}

// Lookup returns an account by username: the key directory. A username
// held after its account was deleted is ErrAccountDeleted, any other
// unknown one ErrUnknownAccount.
//
// With the cache, an account found is answered from memory until a notice
// says it changed (ADR 0080); a name not found is a query each time.
func (s *Store) Lookup(ctx context.Context, username string) (Account, error) {
	return s.lookup(ctx, username, false)
}

// LookupFresh is Lookup read from the database whatever the cache holds,
// and kept in the cache in place of what it held: for a client that
// suspects the answer it had is older than a change whose notice has not
// reached this instance yet (ADR 0104).
func (s *Store) LookupFresh(ctx context.Context, username string) (Account, error) {
	return s.lookup(ctx, username, true)
}

func (s *Store) lookup(ctx context.Context, username string, fresh bool) (Account, error) {
	var epoch uint64
	var cached bool
	if s.cache != nil {
		if !fresh {
			if acc, ok := s.cache.getName(username, s.now()); ok {
				return acc, nil
			}
		}
		epoch, cached = s.cache.begin()
	}
	now := s.now()
	var acc Account
	err := s.pool.QueryRow(ctx, `SELECT id, username, public_key FROM accounts WHERE username = $1`,
		username).Scan(&acc.ID, &acc.Username, &acc.PublicKey)
	if err == nil && cached {
		s.cache.storeName(epoch, acc, now)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		held, err := s.heldName(ctx, s.pool, username)
		if err != nil {
			return Account{}, err
		}
		if held {
			return Account{}, ErrAccountDeleted
		}
		return Account{}, ErrUnknownAccount
	}
	return acc, err
}

// AddDevice registers a device for an account and returns its new id.
func (s *Store) AddDevice(ctx context.Context, accountID int64, name string, publicKey []byte) (Device, error) {
	now := s.now()
	d := Device{ID: ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String(), AccountID: accountID,
		Name: name, PublicKey: publicKey, CreatedAt: now}
	// The account row's lock makes concurrent additions count one after
	// the other; the count runs after the lock, so it sees them. It also
	// orders the addition with a key replacement (ReplaceKey), so "no live
	// linked device" is read after any revocation has committed.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM devices WHERE account_id = $1 AND revoked_at IS NULL`, accountID).Scan(&n); err != nil {
			return err
		}
		if n >= s.maxDevices {
			return &TooManyDevicesError{Max: s.maxDevices}
		}
		// An account's first device is the browser that made the account
		// key at registration: it is linked from the start. Any later one
		// (even after every device was revoked, when a browser comes back
		// to restore with the recovery key) holds no key until it reports
		// itself linked or replaces the key.
		err := tx.QueryRow(ctx, `INSERT INTO devices (id, account_id, name, public_key, created_at, linked)
			VALUES ($1, $2, $3, $4, $5, NOT EXISTS (SELECT 1 FROM devices WHERE account_id = $2))
			RETURNING linked`, d.ID, accountID, name, publicKey, now).Scan(&d.Linked)
		return err
	})
	return d, err
}

// MaxDevices is how many live devices an account may have.
func (s *Store) MaxDevices() int { return s.maxDevices }

// PasswordHashes is how many argon2id computations the store has run: one
// per registration and one per login that reaches the password check,
// whether the username exists or not.
func (s *Store) PasswordHashes() int64 { return s.pw.runs.Load() }

// PurgeRevoked deletes the rows of devices revoked before before. Their
// queues went at revocation; an id that is gone is refused like a revoked
// one, and ids are never issued twice.
func (s *Store) PurgeRevoked(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM devices WHERE revoked_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("deleting revoked devices: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Devices lists an account's devices that are not revoked, oldest first.
func (s *Store) Devices(ctx context.Context, accountID int64) ([]Device, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, account_id, name, public_key, created_at, last_seen_at, linked
		FROM devices WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Device, error) {
		var d Device
		err := row.Scan(&d.ID, &d.AccountID, &d.Name, &d.PublicKey, &d.CreatedAt, &d.LastSeenAt, &d.Linked)
		return d, err
	})
}

// DeviceIDs lists the ids of an account's devices that are not revoked,
// in id order: the devices that may be members of its MLS groups (ADR
// 0101). The same devices as a key package claim's (package keypackages).
func (s *Store) DeviceIDs(ctx context.Context, accountID int64) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM devices WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("listing the device ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing the device ids: %w", err)
	}
	return ids, nil
}

// OpenStream records that a device opened its event stream now, on relay
// instance instance, and returns the stream's generation: one more than any
// earlier stream of the device, on any relay instance (ADR 0016, ADR 0055).
func (s *Store) OpenStream(ctx context.Context, deviceID, instance string) (int64, error) {
	var gen int64
	err := s.pool.QueryRow(ctx, `UPDATE devices SET last_seen_at = $2, stream_gen = stream_gen + 1, stream_instance = $3
		WHERE id = $1 AND revoked_at IS NULL RETURNING stream_gen`, deviceID, s.now(), instance).Scan(&gen)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrDeviceForbidden // revoked since the check
	}
	return gen, err
}

// StreamState is what a relay instance compares its open streams with.
type StreamState struct {
	Seq      int64 // the last seq handed out
	Gen      int64 // the newest stream generation
	Revoked  bool
	Disabled bool // the account is disabled
}

// StreamStates reads the state of these devices in one query. A device
// missing from the answer does not exist.
func (s *Store) StreamStates(ctx context.Context, deviceIDs []string) (map[string]StreamState, error) {
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.seq, d.stream_gen, d.revoked_at IS NOT NULL, a.disabled_at IS NOT NULL
		FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.id = ANY($1)`, deviceIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]StreamState, len(deviceIDs))
	for rows.Next() {
		var id string
		var st StreamState
		if err := rows.Scan(&id, &st.Seq, &st.Gen, &st.Revoked, &st.Disabled); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// StreamsEnded records that the streams of these devices, of these
// generations, ended on relay instance instance. A device whose stream is
// newer (it opened again, here or elsewhere) keeps it.
func (s *Store) StreamsEnded(ctx context.Context, instance string, deviceIDs []string, gens []int64) error {
	// The rows are locked first, in id order, the order an accept locks
	// its target devices in (ADR 0002): an UPDATE joined to the list locks
	// them in the list's order and can deadlock with an accept.
	_, err := s.pool.Exec(ctx, `WITH ended AS (
			SELECT d.id FROM devices d JOIN unnest($2::text[], $3::bigint[]) AS e (id, gen)
				ON d.id = e.id AND d.stream_gen = e.gen
			WHERE d.stream_instance = $1
			ORDER BY d.id
			FOR UPDATE OF d
		)
		UPDATE devices d SET stream_instance = NULL FROM ended WHERE d.id = ended.id`, instance, deviceIDs, gens)
	return err
}

// Revoke marks a device of accountID revoked inside tx; the caller drops its
// queue in the same transaction. Another account's device, an unknown id and
// an already revoked device are all ErrUnknownDevice.
func (s *Store) Revoke(ctx context.Context, tx pgx.Tx, accountID int64, deviceID string) error {
	// The UPDATE takes the device row's lock, so a fan-out that is about to
	// pick this device waits and then sees revoked_at set (ADR 0002).
	if err := notifyAuth(ctx, tx, accountID); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `UPDATE devices SET revoked_at = $3
		WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL`, deviceID, accountID, s.now())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrUnknownDevice
	}
	return nil
}

// Contacts lists an account's contacts, oldest first.
func (s *Store) Contacts(ctx context.Context, accountID int64) ([]Contact, error) {
	rows, err := s.pool.Query(ctx, `SELECT a.username, a.public_key, c.since
		FROM contacts c JOIN accounts a ON a.id = c.contact_id
		WHERE c.account_id = $1 ORDER BY c.since, a.username`, accountID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Contact, error) {
		var c Contact
		err := row.Scan(&c.Username, &c.PublicKey, &c.Since)
		return c, err
	})
}

// PurgeSessions deletes expired sessions and returns how many.
func (s *Store) PurgeSessions(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, s.now())
	if err != nil {
		return 0, fmt.Errorf("purging sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
