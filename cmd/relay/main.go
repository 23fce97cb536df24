// Command relay runs the end-to-end-encrypted message relay.
//
//	relay [flags]          serve the API, the event streams and the web client
//	relay migrate [flags]  apply database migrations and exit
//	relay audit [flags]    search PostgreSQL's files for plaintext, or report
//	                       what the relay holds (--stats)
//	relay admin COMMAND    operator controls on the database: stats, disable,
//	                       enable, delete, sessions revoke, vacuum, invites,
//	                       reports
//	relay config COMMAND   check a configuration file, or print an example
//
// Every flag has an environment fallback and is a key of the --config
// file; `relay --help` lists the flags and their variables.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/acme/autocert"

	"relay/envelope"
	"relay/migrations"
	"relay/relay"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "audit" {
		err = runAudit(os.Args[2:], os.Stdout, os.Stderr)
	} else if len(os.Args) > 1 && os.Args[1] == "admin" {
		err = runAdmin(os.Args[2:], os.Stdout, os.Stderr)
	} else if len(os.Args) > 1 && os.Args[1] == "config" {
		err = runConfig(os.Args[2:], os.Stdout)
	} else {
		err = run(os.Args[1:], os.Stdout, os.Stderr)
	}
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode is the process's exit code for what run, runAudit, runAdmin or
// runConfig returned: 0 on success and after --help, 1 when the audit found
// plaintext, an admin command found no such account, invite or report,
// or relay config check refused the file, and 2 for any other error,
// which it prints (once: the flag package prints nothing itself).
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errHits):
		return 1
	case errors.Is(err, errNoAccount), errors.Is(err, errNoInvite), errors.Is(err, errNoReport), errors.As(err, new(*configInvalid)):
		fmt.Fprintln(stderr, "relay:", err)
		return 1
	}
	fmt.Fprintln(stderr, "relay:", err)
	return 2
}

type options struct {
	config       string // --config
	listen       string
	databaseURL  string
	baseURL      string
	origins      string
	rate         int
	selfRate     int
	receiptRate  int
	groupRate    int
	fanoutRate   int
	maxRcpt      int // --max-recipients
	pingInterval time.Duration
	maxBody      int
	logLevel     string
	logFormat    string
	notify       bool
	catchUp      time.Duration
	debugListen  string
	metrics      string // --metrics-listen
	authRate     int
	maxDevices   int
	queueAge     time.Duration
	queueBytes   int64
	authUserRate int
	trusted      string
	tlsCert      string
	tlsKey       string
	acmeDomains  string
	acmeCache    string
	acmeEmail    string
	pushContact  string
	pushInterval time.Duration
	pushPrivate  bool

	headerTimeout, bodyTimeout, streamWriteTimeout time.Duration
	purgeInterval, revokedKeep                     time.Duration
	nameHold                                       time.Duration // --deleted-name-hold
	registration                                   relay.Registration
	dedupWindow                                    time.Duration
	commitWorkers, maxGroup                        int
	attach                                         attachmentOptions
}

const serveUsage = `Usage:
  relay [flags]           serve the relay
  relay migrate [flags]   apply database migrations and exit
  relay audit --help      search for plaintext on disk, or report what the relay holds
  relay admin --help      operator controls: stats, disable, enable, delete, sessions revoke, vacuum, invites, reports
  relay config --help     check a configuration file, or print an example

Every flag can also be set by the environment variable named with it, and
in the --config file under its own name. A flag on the command line wins
over its variable, the variable over the file, the file over the default.

Flags:
`

// parseFlags reads the relay's settings from the command line, the
// environment and the configuration file, and checks them.
func parseFlags(cmd string, args []string, stdout io.Writer) (*options, error) {
	o, _, err := parseSettings(cmd, args, stdout, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	if o.databaseURL == "" {
		return nil, errors.New("no database: set --database-url, DATABASE_URL or database-url in the --config file (make run starts a private PostgreSQL for you)")
	}
	return o, nil
}

// serveFlags defines the flags of relay and relay migrate, which set o;
// they are also the keys of the configuration file.
func serveFlags(cmd string, o *options) *flags {
	d := relay.DefaultConfig()
	name := "relay"
	if cmd == "migrate" {
		name = "relay migrate"
	}
	fs := newFlags(name)
	bindConfig(fs, &o.config)
	bind(fs, fs.StringVar, &o.listen, "listen", "RELAY_LISTEN", "127.0.0.1:8080", "address to listen on")
	bind(fs, fs.StringVar, &o.databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	bind(fs, fs.StringVar, &o.baseURL, "base-url", "RELAY_BASE_URL", "", "URL clients use to reach this relay; default http://<listen>")
	bind(fs, fs.StringVar, &o.origins, "origin", "RELAY_ORIGINS", "", "comma-separated Origins allowed on non-GET requests; default the base URL")
	bind(fs, fs.IntVar, &o.rate, "rate", "RELAY_RATE", d.RatePerMinute, "envelopes per minute per account to other accounts, also the burst")
	bind(fs, fs.IntVar, &o.selfRate, "self-rate", "RELAY_SELF_RATE", d.SelfRatePerMinute, "envelopes per minute per account to itself (read positions, notes to self), also the burst")
	bind(fs, fs.IntVar, &o.receiptRate, "receipt-rate", "RELAY_RECEIPT_RATE", d.ReceiptRatePerMinute, "envelopes marked as receipts per minute per account to other accounts, also the burst")
	bind(fs, fs.IntVar, &o.groupRate, "group-rate", "RELAY_GROUP_RATE", d.GroupRatePerMinute, "envelopes marked as MLS commits or welcomes per minute per account, to anyone, also the burst")
	bind(fs, fs.IntVar, &o.fanoutRate, "fanout-rate", "RELAY_FANOUT_RATE", d.FanoutRatePerMinute, "other accounts named by an account's envelopes per minute, each envelope to others taking one per account it names besides its own bucket's token; also the burst, at least --max-recipients")
	bind(fs, fs.IntVar, &o.maxRcpt, "max-recipients", "RELAY_MAX_RECIPIENTS", d.MaxRecipients, "most usernames in the list of one envelope's \"to\" (a group's members)")
	bind(fs, fs.IntVar, &o.authRate, "auth-rate", "RELAY_AUTH_RATE", d.AuthPerMinute, "logins and registrations per minute per client address, also the burst")
	bind(fs, fs.IntVar, &o.authUserRate, "auth-rate-user", "RELAY_AUTH_RATE_USER", d.AuthPerUserPerMinute, "logins per minute per username, also the burst")
	bind(fs, fs.IntVar, &o.maxDevices, "max-devices", "RELAY_MAX_DEVICES", d.MaxDevices, "live devices per account")
	bind(fs, fs.DurationVar, &o.queueAge, "queue-max-age", "RELAY_QUEUE_MAX_AGE", d.QueueMaxAge, "envelopes not ACKed within this time are deleted, and the device told; so is a group's GroupInfo not stored again within it")
	bind(fs, fs.Int64Var, &o.queueBytes, "queue-max-bytes", "RELAY_QUEUE_MAX_BYTES", d.QueueMaxBytes, "ciphertext a device's queue may hold; the oldest beyond it are deleted, and the device told")
	bind(fs, fs.DurationVar, &o.purgeInterval, "purge-interval", "RELAY_PURGE_INTERVAL", d.PurgeInterval, "how often the queue limits are applied and old revoked devices deleted")
	bind(fs, fs.DurationVar, &o.revokedKeep, "revoked-keep", "RELAY_REVOKED_KEEP", d.RevokedKeep, "how long a revoked device's row is kept")
	bind(fs, fs.DurationVar, &o.dedupWindow, "dedup-window", "RELAY_DEDUP_WINDOW", d.DedupWindow, "a resend of an accepted envelope with the same id is recognised for at least this long after its accept, whatever the id's age")
	bindNameHold(fs, &o.nameHold)
	bindRegistration(fs, &o.registration)
	bindAttachments(fs, &o.attach, d)
	bind(fs, fs.StringVar, &o.trusted, "trusted-proxy", "RELAY_TRUSTED_PROXIES", "", "comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client address")
	bind(fs, fs.DurationVar, &o.pingInterval, "ping-interval", "RELAY_PING_INTERVAL", d.PingInterval, "interval of event: ping on streams")
	bind(fs, fs.IntVar, &o.maxBody, "max-body", "RELAY_MAX_BODY", d.MaxBody, "largest decoded envelope body in bytes")
	bind(fs, fs.DurationVar, &o.headerTimeout, "header-timeout", "RELAY_HEADER_TIMEOUT", d.HeaderTimeout, "time a client has to send a request's headers")
	bind(fs, fs.DurationVar, &o.bodyTimeout, "body-timeout", "RELAY_BODY_TIMEOUT", d.BodyTimeout, "time a client has to send a request's body")
	bind(fs, fs.DurationVar, &o.streamWriteTimeout, "stream-write-timeout", "RELAY_STREAM_WRITE_TIMEOUT", d.StreamWriteTimeout, "a stream whose client takes longer than this to accept a write is cut off")
	bind(fs, fs.IntVar, &o.commitWorkers, "commit-workers", "RELAY_COMMIT_WORKERS", d.CommitWorkers, "group commits of accepted envelopes at once, each holding a database connection")
	bind(fs, fs.IntVar, &o.maxGroup, "max-group", "RELAY_MAX_GROUP", d.MaxGroup, "largest number of envelopes committed together")
	bind(fs, fs.BoolVar, &o.notify, "notify", "RELAY_NOTIFY", !d.DisableNotify, "wake streams on other relay instances through LISTEN/NOTIFY")
	bind(fs, fs.DurationVar, &o.catchUp, "catch-up-interval", "RELAY_CATCH_UP_INTERVAL", d.CatchUp, "how often every stream is checked against the database, bounding the delay when a notification is lost, and the database swept for devices due a push")
	bind(fs, fs.StringVar, &o.tlsCert, "tls-cert", "RELAY_TLS_CERT", "", "serve HTTPS with this certificate file (PEM, with its chain); needs --tls-key")
	bind(fs, fs.StringVar, &o.tlsKey, "tls-key", "RELAY_TLS_KEY", "", "private key file (PEM) of --tls-cert")
	bind(fs, fs.StringVar, &o.acmeDomains, "acme-domain", "RELAY_ACME_DOMAIN", "", "serve HTTPS with certificates from Let's Encrypt for these comma-separated domains; listen on :443")
	bind(fs, fs.StringVar, &o.acmeCache, "acme-cache", "RELAY_ACME_CACHE", "acme-cache", "folder that keeps the ACME account and certificates")
	bind(fs, fs.StringVar, &o.acmeEmail, "acme-email", "RELAY_ACME_EMAIL", "", "contact address given to the certificate authority, optional")
	bind(fs, fs.StringVar, &o.pushContact, "push-contact", "RELAY_PUSH_CONTACT", d.PushContact, "turn Web Push notifications on, with this mailto: or https:// contact for the push services (the VAPID subject); empty: no push")
	bind(fs, fs.DurationVar, &o.pushInterval, "push-interval", "RELAY_PUSH_INTERVAL", d.PushInterval, "at most one push per device per interval")
	bind(fs, fs.BoolVar, &o.pushPrivate, "push-allow-private", "RELAY_PUSH_ALLOW_PRIVATE", d.PushAllowPrivate, "let push endpoints be loopback, private or link-local addresses (off: refused, against SSRF)")
	bind(fs, fs.StringVar, &o.metrics, "metrics-listen", "RELAY_METRICS_LISTEN", "127.0.0.1:9464", "serve Prometheus metrics at this address, never on --listen; empty for none; each relay on a machine needs its own")
	bind(fs, fs.StringVar, &o.debugListen, "debug-listen", "RELAY_DEBUG_LISTEN", "", "if set, serve Go's pprof profiles at this address (keep it on loopback)")
	bind(fs, fs.StringVar, &o.logLevel, "log-level", "RELAY_LOG_LEVEL", "info", "debug, info, warn or error")
	bind(fs, fs.StringVar, &o.logFormat, "log-format", "RELAY_LOG_FORMAT", "text", "text or json")
	return fs
}

// parseSettings parses the flags of cmd, reading the environment with
// lookupEnv, and checks every value but the database URL's presence: what
// relay config check checks.
func parseSettings(cmd string, args []string, stdout io.Writer, lookupEnv func(string) (string, bool)) (*options, *flags, error) {
	o := &options{}
	fs := serveFlags(cmd, o)
	fs.lookupEnv = lookupEnv
	if err := fs.parse(args, serveUsage, stdout); err != nil {
		return nil, nil, err
	}
	if err := checkSettings(o, fs); err != nil {
		return nil, nil, err
	}
	return o, fs, nil
}

// checkSettings checks what the flags' parsers cannot: minimums, and
// flags that go together. Each error names where the value was set.
func checkSettings(o *options, fs *flags) error {
	for _, c := range []struct {
		flag     string
		got, min time.Duration
	}{
		{"catch-up-interval", o.catchUp, 10 * time.Millisecond},
		{"ping-interval", o.pingInterval, 10 * time.Millisecond},
		{"queue-max-age", o.queueAge, time.Hour},
		// Below a second, clients on slow links are cut off.
		{"header-timeout", o.headerTimeout, time.Second},
		{"body-timeout", o.bodyTimeout, time.Second},
		{"stream-write-timeout", o.streamWriteTimeout, time.Second},
		// Each purge scans every queue.
		{"purge-interval", o.purgeInterval, time.Minute},
		{"revoked-keep", o.revokedKeep, time.Hour},
		// Any value up to the clock-skew window plus a minute keeps records
		// just as long as a resend can pass the skew check (ADR 0003).
		{"dedup-window", o.dedupWindow, time.Minute},
		{"deleted-name-hold", o.nameHold, minNameHold},
		// Below a second, a chat would buzz a phone for every message.
		{"push-interval", o.pushInterval, time.Second},
	} {
		if c.got < c.min {
			return fs.invalid(c.flag, "must be at least %v, not %v", c.min, c.got)
		}
	}
	for _, c := range []struct {
		flag     string
		got, min int64
	}{
		{"rate", int64(o.rate), 1},
		{"self-rate", int64(o.selfRate), 1},
		{"receipt-rate", int64(o.receiptRate), 1},
		{"group-rate", int64(o.groupRate), 1},
		{"max-recipients", int64(o.maxRcpt), 1},
		// Its burst is its rate: a list of the most names allowed must fit.
		{"fanout-rate", int64(o.fanoutRate), int64(o.maxRcpt)},
		{"auth-rate", int64(o.authRate), 1},
		{"auth-rate-user", int64(o.authUserRate), 1},
		{"max-devices", int64(o.maxDevices), 1},
		{"queue-max-bytes", o.queueBytes, envelope.MaxBody},
		{"commit-workers", int64(o.commitWorkers), 1},
		{"max-group", int64(o.maxGroup), 1},
	} {
		if c.got < c.min {
			return fs.invalid(c.flag, "must be at least %d, not %d", c.min, c.got)
		}
	}
	if o.databaseURL != "" {
		if _, err := pgxpool.ParseConfig(o.databaseURL); err != nil {
			// pgx's message quotes the URL; its password must not reach a log.
			return fs.invalid("database-url", "is not a PostgreSQL URL or connection string (the value is not shown: it may hold a password)")
		}
	}
	if err := o.attach.check(o.queueAge, fs); err != nil {
		return err
	}
	if _, err := parsePrefixes(o.trusted); err != nil {
		return fs.invalid("trusted-proxy", "lists %v", err)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		name := "tls-cert"
		if o.tlsCert == "" {
			name = "tls-key"
		}
		return fs.invalid(name, "is set alone: --tls-cert and --tls-key go together")
	}
	if o.tlsCert != "" && o.acmeDomains != "" {
		return fs.invalid("acme-domain", "is set with --tls-cert: use either --tls-cert/--tls-key or --acme-domain, not both")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fs.invalid("log-level", "must be debug, info, warn or error, not %q", o.logLevel)
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return fs.invalid("log-format", "must be text or json, not %q", o.logFormat)
	}
	return nil
}

func newLogger(o *options, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %v", err)
	}
	hopts := &slog.HandlerOptions{Level: level}
	switch o.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", o.logFormat)
}

func run(args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] == "migrate" {
		cmd, args = "migrate", args[1:]
	}
	o, err := parseFlags(cmd, args, stdout)
	if err != nil {
		return err
	}
	log, err := newLogger(o, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	pcfg, err := poolConfig(o.databaseURL)
	if err != nil {
		return err
	}
	if o.commitWorkers >= int(pcfg.MaxConns) {
		return fmt.Errorf("--commit-workers %d would leave requests no database connection: the pool has %d (pool_max_conns)", o.commitWorkers, pcfg.MaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	defer pool.Close()
	n, err := migrations.Apply(ctx, pool)
	if err != nil {
		return fmt.Errorf("is PostgreSQL reachable at the database URL? %w", err)
	}
	log.Info("migrations applied", "ran", n, "version", migrations.Latest())
	if cmd == "migrate" {
		fmt.Fprintf(stdout, "database is at version %d (%d steps applied now)\n", migrations.Latest(), n)
		return nil
	}
	return serve(ctx, o, pool, log, stdout)
}

// defaultPoolSize is the relay's database connections when the URL does not
// say (pool_max_conns).
const defaultPoolSize = 16

// poolConfig is the relay's database pool for url: the URL's settings, and
// the relay's own where the URL says nothing.
//
//   - pool_max_conns: pgxpool's default (4 on a 2-core machine) leaves
//     requests waiting for a connection while the group commit's workers
//     hold theirs (docs/performance.md).
//   - plan_cache_mode = force_generic_plan: every statement of the relay is
//     prepared once per connection, and with PostgreSQL's default (auto)
//     the accept and ACK statements, whose arrays make the generic plan
//     look dearer than it is, were planned again on every run: planning
//     was a quarter of PostgreSQL's CPU per envelope (ADR 0077).
func poolConfig(url string) (*pgxpool.Config, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = defaultPoolSize
	}
	if _, set := pcfg.ConnConfig.RuntimeParams[planCacheMode]; !set {
		pcfg.ConnConfig.RuntimeParams[planCacheMode] = "force_generic_plan"
	}
	return pcfg, nil
}

const planCacheMode = "plan_cache_mode"

func serve(ctx context.Context, o *options, pool *pgxpool.Pool, log *slog.Logger, stdout io.Writer) error {
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	tlsConf, err := tlsConfig(o)
	if err != nil {
		ln.Close()
		return err
	}
	base := o.baseURL
	switch {
	case base != "":
	case o.acmeDomains != "":
		base = "https://" + splitList(o.acmeDomains)[0]
	case tlsConf != nil:
		base = "https://" + displayAddr(ln.Addr().(*net.TCPAddr))
	default:
		base = "http://" + displayAddr(ln.Addr().(*net.TCPAddr))
	}
	origins := splitList(o.origins)
	if len(origins) == 0 {
		origins = defaultOrigins(base)
	}
	trusted, _ := parsePrefixes(o.trusted) // checked with the flags
	srv, err := relay.New(relay.Config{
		Pool: pool, Logger: log, BaseURL: base, Origins: origins,
		RatePerMinute: o.rate, SelfRatePerMinute: o.selfRate, ReceiptRatePerMinute: o.receiptRate, GroupRatePerMinute: o.groupRate,
		FanoutRatePerMinute: o.fanoutRate, MaxRecipients: o.maxRcpt, PingInterval: o.pingInterval, MaxBody: o.maxBody,
		DisableNotify: !o.notify, CatchUp: o.catchUp,
		MaxDevices: o.maxDevices, QueueMaxAge: o.queueAge, QueueMaxBytes: o.queueBytes,
		PurgeInterval: o.purgeInterval, RevokedKeep: o.revokedKeep, DeletedNameHold: o.nameHold, DedupWindow: o.dedupWindow,
		Registration:  o.registration,
		AuthPerMinute: o.authRate, AuthPerUserPerMinute: o.authUserRate, TrustedProxies: trusted,
		HeaderTimeout: o.headerTimeout, BodyTimeout: o.bodyTimeout, StreamWriteTimeout: o.streamWriteTimeout,
		CommitWorkers: o.commitWorkers, MaxGroup: o.maxGroup,
		AttachmentMaxSize: o.attach.maxSize, AttachmentQuota: o.attach.quota, AttachmentMaxAge: o.attach.maxAge, AttachmentsPerMinute: o.attach.rate,
		PushContact: o.pushContact, PushInterval: o.pushInterval, PushAllowPrivate: o.pushPrivate,
	})
	if err != nil {
		ln.Close()
		return err
	}
	metricsURL, stopMetrics, err := serveMetrics(o.metrics, srv.MetricsHandler(), log)
	if err != nil {
		srv.Close()
		ln.Close()
		return err
	}
	defer stopMetrics()
	hs := srv.HTTPServer()
	hs.TLSConfig = tlsConf
	if o.debugListen != "" {
		// pprof for profiling before optimising (docs/performance.md);
		// its own listener, never on the public address.
		dl, err := net.Listen("tcp", o.debugListen)
		if err != nil {
			return fmt.Errorf("--debug-listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		go http.Serve(dl, mux) //nolint:errcheck // ends with the process
		log.Info("pprof", "addr", dl.Addr().String())
	}
	// Not ctx: group commit and wake-ups to other instances go on while
	// requests drain after the signal; Close stops them.
	go srv.Run(context.WithoutCancel(ctx)) //nolint:errcheck // Close reports what matters
	errc := make(chan error, 1)
	go func() {
		if tlsConf != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	fmt.Fprintf(stdout, "relay is listening on %s (allowed origins: %s)\n", base, strings.Join(origins, ", "))
	log.Info("listening", "addr", ln.Addr().String(), "base_url", base, "registration", string(o.registration))
	if metricsURL != "" {
		fmt.Fprintf(stdout, "metrics are served on %s\n", metricsURL)
	}

	select {
	case err := <-errc:
		return errors.Join(err, srv.Close())
	case <-ctx.Done():
	}
	log.Info("shutting down")
	// Refuse new streams and end the open ones (each gets event:
	// shutdown) first: Shutdown does not see the streams that took their
	// connection over, and would wait for the others.
	srv.BeginClose()
	// Then stop listening and drain the other requests, for up to 10 s:
	// a send takes well under a second, and an orchestrator's grace
	// period is commonly 30 s.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	// Last, stop the background work and wait for it and for the streams'
	// last writes (Close has its own bound).
	return errors.Join(err, srv.Close())
}

// serveMetrics serves the relay's metrics on their own listener at addr
// (--metrics-listen), never on the public one (ADR 0031), and returns
// their URL and a function that stops serving them. An empty addr serves
// nothing. An address in use is an error, not a relay without metrics: a
// second relay on one machine needs its own address.
func serveMetrics(addr string, h http.Handler, log *slog.Logger) (where string, stop func(), err error) {
	if addr == "" {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--metrics-listen %s: %w (give each relay on a machine its own address, or --metrics-listen '' for none)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	ms := &http.Server{
		Handler: mux,
		// Scrapers send small requests and read small answers.
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go ms.Serve(ln) //nolint:errcheck // ends with stop
	log.Info("metrics", "addr", ln.Addr().String())
	return "http://" + displayAddr(ln.Addr().(*net.TCPAddr)) + "/metrics", func() { ms.Close() }, nil
}

// parsePrefixes reads a comma-separated list of addresses and CIDR ranges.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(list) {
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q, neither an address nor a CIDR range", item)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// tlsConfig is the relay's TLS setup: a certificate from files, checked
// now so that a wrong path fails at start; certificates from an ACME
// authority (Let's Encrypt) through autocert, answering its TLS-ALPN-01
// challenge on the same port; or nil for plain HTTP.
func tlsConfig(o *options) (*tls.Config, error) {
	switch {
	case o.tlsCert != "":
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	case o.acmeDomains != "":
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			HostPolicy: autocert.HostWhitelist(splitList(o.acmeDomains)...),
			Cache:      autocert.DirCache(o.acmeCache),
			Email:      o.acmeEmail,
		}
		c := m.TLSConfig()
		c.MinVersion = tls.VersionTLS12
		return c, nil
	}
	return nil, nil
}

// displayAddr turns a listening address into a host a browser can use.
func displayAddr(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// defaultOrigins is the base URL's origin; on loopback both spellings a
// browser may use.
func defaultOrigins(base string) []string {
	out := []string{base}
	u, err := url.Parse(base)
	if err != nil {
		return out
	}
	switch u.Hostname() {
	case "127.0.0.1":
		out = append(out, u.Scheme+"://"+net.JoinHostPort("localhost", u.Port()))
	case "localhost":
		out = append(out, u.Scheme+"://"+net.JoinHostPort("127.0.0.1", u.Port()))
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
