// Command relay runs the end-to-end-encrypted message relay.
//
//	relay [flags]          serve the API, the event streams and the web client
//	relay migrate [flags]  apply database migrations and exit
//	relay audit [flags]    search PostgreSQL's files for plaintext, or report
//	                       what the relay holds (--stats)
//
// Every flag has an environment fallback; `relay --help` lists both.
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

	"relay/devices"
	"relay/envelope"
	"relay/migrations"
	"relay/relay"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "audit" {
		err = runAudit(os.Args[2:], os.Stdout, os.Stderr)
	} else {
		err = run(os.Args[1:], os.Stdout, os.Stderr)
	}
	switch {
	case err == nil:
	case errors.Is(err, errHits):
		os.Exit(1)
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(2)
	}
}

type options struct {
	listen       string
	databaseURL  string
	baseURL      string
	origins      string
	rate         int
	pingInterval time.Duration
	maxBody      int
	logLevel     string
	logFormat    string
	notify       bool
	catchUp      time.Duration
	debugListen  string
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
}

// env returns the environment variable's value, or def when it is unset.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, ok := os.LookupEnv(name); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

func envBool(name string, def bool) bool {
	if v, ok := os.LookupEnv(name); ok {
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(name); ok {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

func parseFlags(cmd string, args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("relay "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", env("RELAY_LISTEN", "127.0.0.1:8080"), "address to listen on ($RELAY_LISTEN)")
	fs.StringVar(&o.databaseURL, "database-url", env("DATABASE_URL", ""), "PostgreSQL URL ($DATABASE_URL)")
	fs.StringVar(&o.baseURL, "base-url", env("RELAY_BASE_URL", ""), "URL clients use to reach this relay; default http://<listen> ($RELAY_BASE_URL)")
	fs.StringVar(&o.origins, "origin", env("RELAY_ORIGINS", ""), "comma-separated Origins allowed on non-GET requests; default the base URL ($RELAY_ORIGINS)")
	fs.IntVar(&o.rate, "rate", envInt("RELAY_RATE", 30), "envelopes per minute per account, also the burst ($RELAY_RATE)")
	fs.IntVar(&o.authRate, "auth-rate", envInt("RELAY_AUTH_RATE", 20), "logins and registrations per minute per client address, also the burst ($RELAY_AUTH_RATE)")
	fs.IntVar(&o.authUserRate, "auth-rate-user", envInt("RELAY_AUTH_RATE_USER", 10), "logins per minute per username, also the burst ($RELAY_AUTH_RATE_USER)")
	fs.IntVar(&o.maxDevices, "max-devices", envInt("RELAY_MAX_DEVICES", devices.DefaultMaxDevices), "live devices per account ($RELAY_MAX_DEVICES)")
	fs.DurationVar(&o.queueAge, "queue-max-age", envDuration("RELAY_QUEUE_MAX_AGE", 30*24*time.Hour), "envelopes not ACKed within this time are deleted, and the device told ($RELAY_QUEUE_MAX_AGE)")
	fs.Int64Var(&o.queueBytes, "queue-max-bytes", int64(envInt("RELAY_QUEUE_MAX_BYTES", 64<<20)), "ciphertext a device's queue may hold; the oldest beyond it are deleted, and the device told ($RELAY_QUEUE_MAX_BYTES)")
	fs.StringVar(&o.trusted, "trusted-proxy", env("RELAY_TRUSTED_PROXIES", ""), "comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client address ($RELAY_TRUSTED_PROXIES)")
	fs.DurationVar(&o.pingInterval, "ping-interval", envDuration("RELAY_PING_INTERVAL", 20*time.Second), "interval of event: ping on streams ($RELAY_PING_INTERVAL)")
	fs.IntVar(&o.maxBody, "max-body", envInt("RELAY_MAX_BODY", envelope.MaxBody), "largest decoded envelope body in bytes ($RELAY_MAX_BODY)")
	fs.BoolVar(&o.notify, "notify", envBool("RELAY_NOTIFY", true), "wake streams on other relay instances through LISTEN/NOTIFY ($RELAY_NOTIFY)")
	fs.DurationVar(&o.catchUp, "catch-up-interval", envDuration("RELAY_CATCH_UP_INTERVAL", 5*time.Second), "how often every stream is checked against the database, bounding the delay when a notification is lost ($RELAY_CATCH_UP_INTERVAL)")
	fs.StringVar(&o.tlsCert, "tls-cert", env("RELAY_TLS_CERT", ""), "serve HTTPS with this certificate file (PEM, with its chain); needs --tls-key ($RELAY_TLS_CERT)")
	fs.StringVar(&o.tlsKey, "tls-key", env("RELAY_TLS_KEY", ""), "private key file (PEM) of --tls-cert ($RELAY_TLS_KEY)")
	fs.StringVar(&o.acmeDomains, "acme-domain", env("RELAY_ACME_DOMAIN", ""), "serve HTTPS with certificates from Let's Encrypt for these comma-separated domains; listen on :443 ($RELAY_ACME_DOMAIN)")
	fs.StringVar(&o.acmeCache, "acme-cache", env("RELAY_ACME_CACHE", "acme-cache"), "folder that keeps the ACME account and certificates ($RELAY_ACME_CACHE)")
	fs.StringVar(&o.acmeEmail, "acme-email", env("RELAY_ACME_EMAIL", ""), "contact address given to the certificate authority, optional ($RELAY_ACME_EMAIL)")
	fs.StringVar(&o.debugListen, "debug-listen", env("RELAY_DEBUG_LISTEN", ""), "if set, serve Go's pprof profiles at this address (keep it on loopback) ($RELAY_DEBUG_LISTEN)")
	fs.StringVar(&o.logLevel, "log-level", env("RELAY_LOG_LEVEL", "info"), "debug, info, warn or error ($RELAY_LOG_LEVEL)")
	fs.StringVar(&o.logFormat, "log-format", env("RELAY_LOG_FORMAT", "text"), "text or json ($RELAY_LOG_FORMAT)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  relay [flags]           serve the relay\n  relay migrate [flags]   apply database migrations and exit\n  relay audit --help      search for plaintext on disk, or report what the relay holds\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.databaseURL == "" {
		return nil, errors.New("no database: set --database-url or DATABASE_URL (make run starts a private PostgreSQL for you)")
	}
	if o.rate < 1 {
		return nil, errors.New("--rate must be at least 1")
	}
	if o.catchUp < 10*time.Millisecond {
		return nil, errors.New("--catch-up-interval must be at least 10ms")
	}
	if o.pingInterval < 10*time.Millisecond {
		return nil, errors.New("--ping-interval must be at least 10ms")
	}
	if o.queueAge < time.Hour || o.queueBytes < envelope.MaxBody {
		return nil, fmt.Errorf("--queue-max-age must be at least 1h and --queue-max-bytes at least %d", envelope.MaxBody)
	}
	if o.maxDevices < 1 {
		return nil, errors.New("--max-devices must be at least 1")
	}
	if o.authRate < 1 || o.authUserRate < 1 {
		return nil, errors.New("--auth-rate and --auth-rate-user must be at least 1")
	}
	if _, err := parsePrefixes(o.trusted); err != nil {
		return nil, err
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if o.tlsCert != "" && o.acmeDomains != "" {
		return nil, errors.New("use either --tls-cert/--tls-key or --acme-domain, not both")
	}
	return o, nil
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
	o, err := parseFlags(cmd, args, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(o, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	pcfg, err := pgxpool.ParseConfig(o.databaseURL)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(o.databaseURL, "pool_max_conns") {
		// pgxpool's default (4 on a 2-core machine) leaves requests
		// waiting for a connection while the group commit's workers hold
		// theirs (docs/performance.md); the URL's pool_max_conns wins.
		pcfg.MaxConns = defaultPoolSize
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
		RatePerMinute: o.rate, PingInterval: o.pingInterval, MaxBody: o.maxBody,
		DisableNotify: !o.notify, CatchUp: o.catchUp,
		MaxDevices: o.maxDevices, QueueMaxAge: o.queueAge, QueueMaxBytes: o.queueBytes,
		AuthPerMinute: o.authRate, AuthPerUserPerMinute: o.authUserRate, TrustedProxies: trusted,
	})
	if err != nil {
		return err
	}
	hs := srv.HTTPServer()
	hs.TLSConfig = tlsConf
	go srv.Run(ctx)
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
	errc := make(chan error, 1)
	go func() {
		if tlsConf != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	fmt.Fprintf(stdout, "relay is listening on %s (allowed origins: %s)\n", base, strings.Join(origins, ", "))
	log.Info("listening", "addr", ln.Addr().String(), "base_url", base)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	// End the streams first (each gets event: shutdown); Shutdown would
	// otherwise wait for them. Then drain other requests for up to 10 s.
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
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
			return nil, fmt.Errorf("--trusted-proxy: %q is neither an address nor a CIDR range", item)
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
