// Command relay-bench measures the relay against a reference run in the
// same session (docs/performance.md). It starts its own relay process on a
// fresh database of a given (or the project's private) PostgreSQL, creates
// accounts and devices through the real API with the rate limit raised, and
// runs the scenarios below, printing a table and writing JSON.
//
//	ingest    senders post 1 KiB envelopes between accounts of three
//	          devices (five target queues) while every device streams and
//	          ACKs; reference: pgbench running the relay's own accept
//	          statement (queue.AcceptSQL) at the same concurrency on the
//	          same database, relay stopped
//	latency   at half the 8-sender peak: POST start to arrival on each
//	          target's stream
//	clientlike  16 recipient accounts × 5 streaming devices, 8 and 32
//	          publishers posting 1,246-byte envelopes (a message sealed in
//	          MLS) round-robin, every device ACKing as the web client
//	          does (stream.js), without and with
//	          the receipts it sends; references: pgbench's durable 1 KiB
//	          insert per envelope (the physical floor) and the accept
//	          transaction, and with --ntfy, ntfy with 16 topics × 5
//	          subscribers in alternate rounds; then the relay at half its
//	          8-publisher peak
//	groups    100 member accounts × 2 streaming devices ACKing as the web
//	          client does, as 10 groups of 10 and then one group of 100;
//	          8 senders at a time post a message to their group, one
//	          envelope with the other members as its "to" list (ADR 0106);
//	          accepted messages/s, copies delivered/s, every copy checked
//	          exactly once, delivery at half the peak; references: pgbench
//	          running the accept of a list envelope (queue.AcceptSQL), the
//	          WAL and table bytes per message with the body per copy and,
//	          simulated, once per envelope (ADR 0076), and with --ntfy,
//	          ntfy with a topic per group in alternate rounds
//	split     the accept transaction as queue.AcceptSQL's one statement
//	          and as one statement per account (the form a database
//	          distributed by account needs, docs/scaling.md), 8 and 32
//	          pgbench clients in alternating rounds: tx/s, PostgreSQL CPU
//	          and WAL per transaction
//	attachments  upload and download of 1 MiB (4 at once) and 50 MiB
//	          attachments, MiB/s; reference: a sequential write of 128 MiB
//	          with fsync beside PostgreSQL's data, measured in the same
//	          run; and the relay's memory growth during the 50 MiB ones
//	replay    10,000 queued envelopes for one device: connect to ready
//	ack       three phases of streaming ingest with ACKs: rows deleted per
//	          second and the queue table's size after each phase
//	idle      idle streams (--idle, from many loopback addresses) in
//	          accounts of 20 devices: time to open them, resident memory
//	          and Go heap per stream, and with all open, messages to a
//	          random 1 % of the devices: delivery p50/p99
//
// Loads go to loopback only and stop by themselves. With --tls the relays
// serve HTTPS with a throw-away certificate that only the bench's clients
// trust; with --http2 besides, each client-like device and publisher has
// one HTTP/2 connection of its own, as a browser tab does.
package main

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

type options struct {
	relay    string
	adminURL string
	duration time.Duration
	idle     int
	out      string
	pgbench  string
	profile  bool
	only     map[string]bool

	latencyRate float64
	ackPhases   int
	ntfy        string // the ntfy binary of the peer, or ""
	instances   int    // relay processes of the client-like scenario
	rounds      int    // alternating rounds of the client-like scenario
	// ackInterval is the client-like devices' ACK interval: the web
	// client's by default, 0 to ACK every delivery at once as it did
	// before ADR 0074
	ackInterval time.Duration
	// tls serves the relays over HTTPS with a throw-away certificate that
	// the bench's clients trust, and nothing else (--tls)
	tls bool
	// http2 gives each device and publisher of the client-like scenario
	// a connection of its own speaking HTTP/2, as a browser tab does
	// (--http2, over TLS only)
	http2 bool
	// settle is how long a phase waits for copies still on their way once
	// its sends are done, before a missing one counts as lost; a group's
	// phase waits twice as long, for its many copies
	settle time.Duration
	// pauses watches the client-like scenario's half-peak phase, run five
	// phases long, for the stretches in which deliveries are late and
	// what lines up with them (--pauses, pauses.go)
	pauses bool
}

// check refuses options that do not go together.
func (o options) check() error {
	if o.instances < 1 {
		return errors.New("--instances must be at least 1")
	}
	if o.http2 && !o.tls {
		return errors.New("--http2 needs --tls: browsers speak HTTP/2 only over TLS, and so does the relay")
	}
	return nil
}

// result is one line of the table.
type result struct {
	Scenario string  `json:"scenario"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Note     string  `json:"note,omitempty"`
}

func main() {
	if mode := os.Getenv(holderEnv); mode != "" {
		if err := holdStreams(os.Stdin, os.Stdout, mode); err != nil {
			fmt.Fprintln(os.Stderr, "relay-bench (holding idle streams):", err)
			os.Exit(1)
		}
		return
	}
	o := options{}
	long := flag.Bool("long", false, "run the long version (longer phases, 100,000 idle streams)")
	flag.StringVar(&o.relay, "relay", "bin/relay", "the relay binary to measure")
	flag.StringVar(&o.adminURL, "database-url", os.Getenv("RELAY_BENCH_DATABASE_URL"), "admin URL of a PostgreSQL server; default the project's private cluster")
	flag.StringVar(&o.out, "json", ".artifacts/bench.json", "where to write the results as JSON")
	flag.StringVar(&o.pgbench, "pgbench", "", "pgbench binary; default the one beside the PostgreSQL server binaries")
	scenarios := flag.String("scenarios", "ingest,latency,clientlike,groups,split,attachments,replay,ack,idle", "which scenarios to run, comma-separated")
	flag.StringVar(&o.ntfy, "ntfy", "", "an ntfy binary to run the client-like and groups scenarios against, in alternate rounds; without it the ntfy lines are left out")
	flag.DurationVar(&o.ackInterval, "ack-interval", clientAckInterval, "the client-like devices' ACK interval; the web client's by default, 0 to ACK every delivery at once (the client before ADR 0074)")
	flag.IntVar(&o.instances, "instances", 1, "relay processes on the same database for the client-like scenario, publishers and streams spread over them")
	flag.Float64Var(&o.latencyRate, "latency-rate", 0, "envelopes per second of the latency scenario; 0: half of the 8-sender ingest peak (300 when ingest is not run)")
	flag.IntVar(&o.ackPhases, "ack-phases", 3, "phases of the ACK and cleanup scenario (each as long as an ingest phase)")
	flag.BoolVar(&o.tls, "tls", false, "serve the relays over HTTPS with a throw-away certificate for 127.0.0.1 that the clients trust; the ntfy phases stay plain HTTP")
	flag.BoolVar(&o.http2, "http2", false, "with --tls: each device and publisher of the client-like scenario has its own HTTP/2 connection, which its stream and its ACKs share, as in a browser")
	idle := flag.Int("idle", 0, "idle streams of the idle scenario (default 10,000, 100,000 with --long)")
	flag.BoolVar(&o.pauses, "pauses", false, "run the client-like scenario's half-peak phase five phases long and name, for each stretch of deliveries over 30 ms, the slowest fdatasync beside PostgreSQL's data, PostgreSQL's wait events, how late the load generator's own timer was and the CPU the hypervisor took (steal) in it")
	flag.BoolVar(&o.profile, "profile", false, "save a CPU profile of the relay during the 8-sender ingest to .artifacts/ingest.cpu.pprof, and a heap profile with the idle streams open to .artifacts/idle.heap.pprof")
	flag.Parse()
	o.only = map[string]bool{}
	for _, sc := range strings.Split(*scenarios, ",") {
		o.only[strings.TrimSpace(sc)] = true
	}
	o.duration, o.idle, o.rounds, o.settle = 4*time.Second, 10000, 1, 15*time.Second
	if *long {
		o.duration, o.idle, o.rounds = 20*time.Second, 100000, 3
	}
	if *idle > 0 {
		o.idle = *idle
	}
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "relay-bench:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "relay-bench:", err)
		os.Exit(1)
	}
}

func say(format string, args ...any) { fmt.Fprintf(os.Stderr, "relay-bench: "+format+"\n", args...) }

func run(o options) error {
	if o.adminURL == "" {
		out, err := exec.Command("scripts/pgcluster.sh", "url").Output()
		if err != nil {
			return fmt.Errorf("starting the private PostgreSQL (run from the top of the checkout, or set --database-url): %w", err)
		}
		o.adminURL = strings.TrimSpace(string(out))
	}
	if o.pgbench == "" {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
		sort.Strings(dirs)
		if len(dirs) == 0 {
			return errors.New("no pgbench found; install PostgreSQL's server package or pass --pgbench")
		}
		o.pgbench = dirs[len(dirs)-1]
	}
	ctx := context.Background()
	dbName := "relay_bench_" + strings.ToLower(ulid.Make().String()[16:])
	admin, err := pgx.Connect(ctx, o.adminURL)
	if err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		return err
	}
	defer func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
		admin.Close(context.Background())
	}()
	u, _ := url.Parse(o.adminURL)
	u.Path = "/" + dbName
	b := &bench{o: o, db: u.String(), refs: map[int]float64{}, net: &clientNet{}}
	if o.tls {
		if b.cert, err = newBenchCert(); err != nil {
			return err
		}
		defer b.cert.close()
		b.net.tls = b.cert.clientConfig()
	}
	b.transport, b.setup = b.net.transport(false, nil), b.net.setupTransport()
	defer b.transport.CloseIdleConnections()
	if err := b.startRelay(); err != nil {
		return err
	}
	defer b.stopRelay()
	b.pool, err = pgxpool.New(ctx, b.db)
	if err != nil {
		return err
	}
	defer b.pool.Close()

	var results []result
	add := func(r ...result) {
		for _, x := range r {
			say("%-8s %-34s %12.1f %s %s", x.Scenario, x.Metric, x.Value, x.Unit, x.Note)
		}
		results = append(results, r...)
	}
	peak8 := 600.0 // when ingest is skipped, latency runs at 300/s unless --latency-rate says
	for _, senders := range []int{8, 32} {
		if !o.only["ingest"] {
			break
		}
		bare, bareCPU, err := b.ingest(senders, false)
		if err != nil {
			return err
		}
		rate, rateCPU, err := b.ingest(senders, true)
		if err != nil {
			return err
		}
		ref, refCPU, err := b.pgbenchRef(senders)
		if err != nil {
			return err
		}
		if senders == 8 {
			peak8 = rate
		}
		add(result{"ingest", fmt.Sprintf("relay, %d senders, no streams", senders), bare, "envelopes/s", "accepting only"},
			result{"ingest", fmt.Sprintf("relay, %d senders", senders), rate, "envelopes/s", "every device streams and ACKs"},
			result{"ingest", fmt.Sprintf("pgbench enqueue tx, %d clients", senders), ref, "tx/s", ""},
			result{"ingest", fmt.Sprintf("relay / pgbench, %d", senders), rate / ref, "ratio", "target ≥ 0.8, then > 1.0"})
		for _, c := range []struct {
			what string
			use  cpuUse
		}{{"no streams", bareCPU}, {"streaming", rateCPU}, {"pgbench", refCPU}} {
			add(result{"ingest", fmt.Sprintf("CPU per envelope, %d, %s", senders, c.what), c.use.total(), "ms",
				fmt.Sprintf("relay %.2f, PostgreSQL %.2f, load %.2f", c.use.relay, c.use.postgres, c.use.load)})
		}
	}
	if o.only["latency"] {
		rate := peak8 / 2
		if o.latencyRate > 0 {
			rate = o.latencyRate
		}
		lat, err := b.latency(rate)
		if err != nil {
			return err
		}
		add(lat...)
	}
	if o.only["clientlike"] {
		cl, err := b.clientLikeScenario()
		if err != nil {
			return err
		}
		add(cl...)
	}
	if o.only["groups"] {
		gr, err := b.groupsScenario()
		if err != nil {
			return err
		}
		add(gr...)
	}
	if o.only["split"] {
		sp, err := b.splitScenario()
		if err != nil {
			return err
		}
		add(sp...)
	}
	if o.only["attachments"] {
		at, err := b.attachmentsScenario()
		if err != nil {
			return err
		}
		add(at...)
	}
	if o.only["replay"] {
		rep, err := b.replay(10000)
		if err != nil {
			return err
		}
		add(rep...)
	}
	if o.only["ack"] {
		ack, err := b.ackCleanup()
		if err != nil {
			return err
		}
		add(ack...)
	}
	if o.only["idle"] {
		setup, err := b.prepareIdle(o.idle)
		if err != nil {
			return err
		}
		// A fresh relay process, so that memory left from the load
		// scenarios and the setup does not blur the per-stream figure.
		b.stopRelay()
		if err := b.startRelay(); err != nil {
			return err
		}
		idle, err := b.idleStreams(setup)
		if err != nil {
			return err
		}
		add(idle...)
	}

	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err == nil {
		data, _ := json.MarshalIndent(map[string]any{
			"date": time.Now().UTC().Format(time.RFC3339), "cpus": runtime.NumCPU(), "go": runtime.Version(),
			"duration_s": o.duration.Seconds(), "results": results,
		}, "", "  ")
		if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%-8s  %-36s  %12s  %s\n", "scenario", "metric", "value", "unit")
	for _, r := range results {
		fmt.Printf("%-8s  %-36s  %12.2f  %s\n", r.Scenario, r.Metric, r.Value, r.Unit)
	}
	fmt.Printf("(JSON in %s)\n", o.out)
	if len(b.violations) > 0 {
		return fmt.Errorf("envelopes lost or duplicated: %s", strings.Join(b.violations, "; "))
	}
	return nil
}

type bench struct {
	o       options
	db      string
	pool    *pgxpool.Pool
	cmd     *exec.Cmd
	base    string
	metrics string // the relay's metrics URL (--metrics-listen)
	n       int    // accounts made so far, for unique names

	extra []*instance     // relay instances 2..N of the client-like scenario (--instances)
	peer  *exec.Cmd       // ntfy, while its phases run (--ntfy)
	refs  map[int]float64 // the accept transaction's pgbench tx/s by clients, once measured

	violations []string // phases that lost or duplicated envelopes

	cert      *benchCert        // the relays' certificate with --tls, or nil
	net       *clientNet        // how the clients reach the relays
	transport *http.Transport   // the client-like scenario's clients' without --http2
	setup     http.RoundTripper // the other clients'; nil for Go's default
}

func (b *bench) startRelay() error {
	in, err := b.startInstance()
	if err != nil {
		return err
	}
	b.base, b.metrics, b.cmd = in.base, in.metrics, in.cmd
	return nil
}

// instance is one relay process.
type instance struct {
	cmd     *exec.Cmd
	base    string
	metrics string
}

// startInstance starts a relay process on the bench's database and waits
// until it says where it listens.
func (b *bench) startInstance() (*instance, error) {
	args := []string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--rate", "1000000000", "--receipt-rate", "1000000000",
		"--group-rate", "1000000000", "--fanout-rate", "1000000000", "--attachment-rate", "1000000000",
		"--auth-rate", "1000000000", "--auth-rate-user", "1000000000", "--max-devices", "1000000", "--log-level", "error"}
	if b.o.profile && b.cmd == nil {
		args = append(args, "--debug-listen", "127.0.0.1:6061")
	}
	if b.cert != nil {
		// The relay's default origins then are its https:// base URL,
		// which is what the clients send as Origin.
		args = append(args, "--tls-cert", b.cert.certFile, "--tls-key", b.cert.keyFile)
	}
	cmd := exec.Command(b.o.relay, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+b.db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (run make build first): %w", b.o.relay, err)
	}
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	// The relay says where it listens, then where its metrics are.
	var urls [2]string
	for i, re := range []*regexp.Regexp{regexp.MustCompile(`listening on (https?://\S+)`), regexp.MustCompile(`metrics are served on (http://\S+)`)} {
		select {
		case l := <-lines:
			m := re.FindStringSubmatch(l)
			if m == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				return nil, fmt.Errorf("unexpected line from the relay: %q", l)
			}
			urls[i] = m[1]
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, errors.New("the relay did not start")
		}
	}
	return &instance{cmd: cmd, base: urls[0], metrics: urls[1]}, nil
}

// startExtras starts relay instances until there are n in all, b's own
// the first, and returns what stops them again.
func (b *bench) startExtras(n int) (func(), error) {
	stop := func() {
		for _, in := range b.extra {
			in.stop()
		}
		b.extra = nil
	}
	for len(b.extra) < n-1 {
		in, err := b.startInstance()
		if err != nil {
			stop()
			return nil, err
		}
		b.extra = append(b.extra, in)
	}
	return stop, nil
}

func (in *instance) stop() {
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	_ = in.cmd.Wait()
}

func (b *bench) stopRelay() {
	if b.cmd != nil {
		(&instance{cmd: b.cmd}).stop()
		b.cmd = nil
	}
}

// client is a client of the relay with a cookie jar of its own, on the
// setup transport.
func (b *bench) client() *relayclient.Client {
	c := relayclient.New(b.base)
	c.HTTP.Transport = b.setup
	return c
}

// account registers an account with n devices; the clients speak as each.
func (b *bench) account(n int) ([]*relayclient.Client, string, error) {
	b.n++
	name := fmt.Sprintf("bench%d", b.n)
	c := b.client()
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	if err := c.Register(context.Background(), name, "bench password", k.PublicKey().Bytes()); err != nil {
		return nil, "", err
	}
	var out []*relayclient.Client
	for i := 0; i < n; i++ {
		id, err := c.AddDevice(context.Background(), "bench", k.PublicKey().Bytes())
		if err != nil {
			return nil, "", err
		}
		d := *c
		d.Device = id
		out = append(out, &d)
	}
	return out, name, nil
}

// saveProfile saves the relay's pprof profile of the given name (and query)
// next to the JSON results.
func (b *bench) saveProfile(name, file string) {
	resp, err := http.Get("http://127.0.0.1:6061/debug/pprof/" + name)
	if err != nil {
		say("profile: %v", err)
		return
	}
	defer resp.Body.Close()
	f, err := os.Create(filepath.Join(filepath.Dir(b.o.out), file))
	if err != nil {
		say("profile: %v", err)
		return
	}
	defer f.Close()
	_, _ = f.ReadFrom(resp.Body)
	say("profile of the relay saved to %s", f.Name())
}
