package relay

import (
	"crypto/x509"
	"log/slog"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/attachments"
	"relay/devices"
	"relay/envelope"
	"relay/queue"
)

// What a Server is configured with, and the defaults. New checks it
// (server.go).

// Config is what a Server needs. A zero field takes its value from
// [DefaultConfig], so a caller sets only what it changes.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now; tests move the clock

	// BaseURL is where clients reach this relay, such as
	// "https://relay.example". It sets the default Origin allowlist and
	// whether cookies are Secure.
	BaseURL string
	// Origins allowed on non-GET requests; empty means just BaseURL's.
	Origins []string

	// RatePerMinute bounds the envelopes an account sends to other
	// accounts, SelfRatePerMinute those it sends to itself (read positions,
	// notes to self; ADR 0035); each is also its bucket's burst.
	RatePerMinute, SelfRatePerMinute int
	// ReceiptRatePerMinute bounds the envelopes marked as receipts that an
	// account sends to other accounts: a bucket of their own, so that
	// delivery and read receipts never hold up a message (ADR 0051).
	ReceiptRatePerMinute int
	// GroupRatePerMinute bounds the envelopes marked as MLS commits or
	// welcomes that an account sends, to anyone: a bucket of their own, so
	// that a client's group upkeep never holds up a message (ADR 0105).
	GroupRatePerMinute int
	// FanoutRatePerMinute bounds the other accounts that an account's
	// envelopes name, whatever their kind: each envelope to others takes,
	// besides its own bucket's token, one token from this bucket per
	// other account it names, so that a message to a group costs what
	// its reach is (ADR 0106). Also the burst, and so at least
	// MaxRecipients, or a list of that many could never pass.
	FanoutRatePerMinute int
	// MaxRecipients bounds the usernames of a "to" list (ADR 0106).
	MaxRecipients int

	// AuthPerMinute bounds logins and registrations per client address,
	// AuthPerUserPerMinute logins per username. TrustedProxies are the
	// proxies whose X-Forwarded-For names the client address; without
	// them the peer address counts.
	AuthPerMinute, AuthPerUserPerMinute int
	TrustedProxies                      []netip.Prefix
	PingInterval                        time.Duration // between event: ping on a stream
	MaxBody                             int           // decoded envelope body limit, at most envelope.MaxBody
	Skew                                time.Duration // clock skew allowed on send (ADR 0011)
	// DedupWindow is how long after its accept an envelope's idempotency
	// record is kept at least, so that a resend with the same id is
	// recognised whatever the id's age (ADR 0084).
	DedupWindow time.Duration

	Argon2          devices.Argon2Params
	MaxDevices      int // live devices per account
	HashConcurrency int // argon2id hashes at once; 0: GOMAXPROCS

	// DisableNotify turns off cross-instance wake-ups through
	// LISTEN/NOTIFY; streams fed by other instances are then caught up
	// only by the interval check. For measuring NOTIFY's cost.
	DisableNotify bool
	// DisableSessionCache makes every session and device check a query
	// (ADR 0072). The cache is off anyway without notifications. For
	// measuring the cache, and for tests that change sessions, devices
	// or accounts in SQL behind the relay's back.
	DisableSessionCache bool
	// CatchUp is the interval of the check that makes up for lost
	// notifications (ADR 0016). It bounds the extra delay of a delivery
	// when a notification is lost, and of a push when its signal is lost
	// (the push sweep, ADR 0087).
	CatchUp time.Duration

	// HeaderTimeout bounds the time to send a request's headers,
	// BodyTimeout the time to send a request's body, and
	// StreamWriteTimeout each write to an event stream: slow or stuck
	// clients are cut off instead of holding memory and goroutines.
	HeaderTimeout, BodyTimeout, StreamWriteTimeout time.Duration

	// QueueMaxAge and QueueMaxBytes bound each device's queue: envelopes
	// older than QueueMaxAge are deleted, and so are the oldest beyond
	// QueueMaxBytes of ciphertext; the device is told on its next stream.
	// PurgeInterval is how often the bounds are applied.
	QueueMaxAge, PurgeInterval time.Duration
	QueueMaxBytes              int64
	// RevokedKeep is how long a revoked device's row is kept.
	RevokedKeep time.Duration
	// DeletedNameHold is how long a deleted account's username is held
	// back from new registrations (ADR 0059).
	DeletedNameHold time.Duration
	// Registration is who may create an account: anyone, whoever has an
	// invite code, or no one (ADR 0117). Empty: open.
	Registration Registration

	// AttachmentMaxSize bounds one attachment's ciphertext,
	// AttachmentQuota what one account stores at once, and
	// AttachmentMaxAge how long a finished attachment is kept; at least
	// QueueMaxAge, so that a message delivered late can still fetch it.
	// AttachmentsPerMinute bounds the uploads an account starts (ADR 0107).
	AttachmentMaxSize, AttachmentQuota int64
	AttachmentMaxAge                   time.Duration
	AttachmentsPerMinute               int

	// CommitWorkers and MaxGroup size the group commit of accepted
	// envelopes (ADR 0018).
	CommitWorkers, MaxGroup int

	// PushContact turns Web Push on (ADR 0055): the VAPID subject,
	// "mailto:…" or "https://…". Empty: no push, and the push endpoints
	// answer 404 push_disabled. PushInterval bounds the pushes to one
	// device; PushAllowPrivate lets endpoints reach loopback and private
	// addresses; PushRootCAs, for tests, replaces the system's CAs.
	PushContact      string
	PushInterval     time.Duration
	PushAllowPrivate bool
	PushRootCAs      *x509.CertPool
	// PushWorkers send pushes at once, PushQueue bounds the pushes
	// waiting for them, PushBackoff is the first wait before a retry.
	PushWorkers, PushQueue int
	PushBackoff            time.Duration
}

// DefaultConfig holds the default of every Config field that has one; New
// fills a zero field from it, and the relay command's flags show it.
func DefaultConfig() Config {
	return Config{
		RatePerMinute: 30,
		Registration:  RegistrationOpen,
		// A read record goes out each time a chat is read (ADR 0015): two
		// a second is more than a person reads, and an envelope to self
		// reaches only the account's own devices (ADR 0035).
		SelfRatePerMinute: 120,
		// Receipts are batched by the client (docs/protocol.md, "Rate
		// limit"): 120 a minute is more than a person reading at any pace
		// on a few devices sends.
		ReceiptRatePerMinute: 120,
		// Group upkeep is a commit and a welcome per chat made, a leaf
		// update per chat and device a day, and a commit per device
		// linked or removed (ADR 0105): 120 a minute is more than a
		// person's devices make outside a burst of new chats.
		GroupRatePerMinute: 120,
		// 30 messages a minute to a group of 100 accounts; a person
		// writing to one account at a time never comes near it
		// (ADR 0106).
		FanoutRatePerMinute: 3000,
		// Groups of people who read each other; one send stays one short
		// transaction (ADR 0106).
		MaxRecipients:        envelope.DefaultMaxRecipients,
		AuthPerMinute:        20,
		AuthPerUserPerMinute: 10,
		// Often enough for a client to tell a silent link from a dead one
		// (docs/protocol.md, "GET /api/events").
		PingInterval: 20 * time.Second,
		MaxBody:      envelope.MaxBody,
		Skew:         envelope.DefaultSkew,
		Argon2:       devices.DefaultArgon2,
		MaxDevices:   devices.DefaultMaxDevices,
		// The extra delay of a delivery whose notification was lost, for
		// one query per instance per interval (ADR 0016).
		CatchUp: 5 * time.Second,
		// Headers are at most 16 KiB and a body about 87 KiB (a full
		// envelope in base64): ample time on a slow link, short enough
		// that slow senders cannot pile up connections.
		HeaderTimeout: 10 * time.Second,
		BodyTimeout:   30 * time.Second,
		// A stream's writes are a few KiB: a client that cannot take one
		// in 15 s has stopped reading, and what it missed stays queued.
		StreamWriteTimeout: 15 * time.Second,
		QueueMaxAge:        30 * 24 * time.Hour,
		QueueMaxBytes:      64 << 20,
		// Each purge scans every queue; the bounds are days and MiB, so
		// hourly is precise enough.
		PurgeInterval: time.Hour,
		RevokedKeep:   30 * 24 * time.Hour,
		// ADR 0107: a 100 MiB file fits; a gigabyte an account; kept past
		// the queue's 30 days; a batch of photos a minute.
		AttachmentMaxSize:    attachments.DefaultMaxSize,
		AttachmentQuota:      attachments.DefaultQuota,
		AttachmentMaxAge:     attachments.DefaultMaxAge,
		AttachmentsPerMinute: 60,
		// Long enough that the contacts of a deleted account see "deleted"
		// before anyone else can take its name (ADR 0059).
		DeletedNameHold: devices.DefaultNameHold,
		// Chosen by make bench (ADR 0018, docs/performance.md).
		CommitWorkers: queue.DefaultCommitWorkers,
		MaxGroup:      queue.DefaultMaxGroup,
		// A closed tab needs one wake-up to sync, not one per message;
		// a minute keeps a busy chat from buzzing a phone.
		PushInterval: time.Minute,
		// Pushes wait on a remote service: a few at once, and a queue
		// that holds a burst to many devices; beyond it they are dropped.
		PushWorkers: 4,
		PushQueue:   256,
		// Push services ask for backoff with 429 and 5xx; three retries
		// from 1 s span about 7 s.
		PushBackoff: time.Second,
		// A device offline for a day that retries with its old id is
		// still recognised, with a day of margin; about 231 bytes of
		// database per accepted envelope (ADR 0084, docs/performance.md).
		DedupWindow: 48 * time.Hour,
	}
}
