package main

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/relayclient"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "relay-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "relay")
	// No test's relay takes the default metrics address: relays of
	// parallel tests would clash there. Tests that read metrics give
	// --metrics-listen.
	os.Setenv("RELAY_METRICS_LISTEN", "")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic("building the relay: " + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startRelay runs the real binary on a fresh database and returns its URL
// as the binary printed it.
func startRelay(t testing.TB, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, url, _ := launchRelay(t, args...)
	return cmd, url
}

// startRelayWithMetrics is startRelay with metrics on a port of their own,
// and returns their URL too.
func startRelayWithMetrics(t testing.TB, args ...string) (cmd *exec.Cmd, url, metricsURL string) {
	t.Helper()
	cmd, url, lines := launchRelay(t, append([]string{"--metrics-listen", "127.0.0.1:0"}, args...)...)
	select {
	case line := <-lines:
		m := regexp.MustCompile(`metrics are served on (http://\S+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("second line %q does not say where the metrics are", line)
		}
		return cmd, url, m[1]
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not say where its metrics are")
	}
	return nil, "", ""
}

// launchRelay starts the binary, waits for its first line and returns the
// URL it names and the lines that follow.
func launchRelay(t testing.TB, args ...string) (*exec.Cmd, string, <-chan string) {
	t.Helper()
	db := testdb.New(t)
	cmd := exec.Command(binary, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	select {
	case line := <-lines:
		m := regexp.MustCompile(`listening on (https?://\S+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first line %q does not say where the relay listens", line)
		}
		return cmd, m[1], lines
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not start within 30 s")
	}
	return nil, "", nil
}

func TestBinaryServesAndDrainsOnSIGTERM(t *testing.T) {
	cmd, url, metricsURL := startRelayWithMetrics(t, "--ping-interval", "1h")
	resp, err := http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "This relay is running") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, page)
	}
	// Metrics are on their own listener only (ADR 0031).
	if status, body := get(t, url+"/metrics"); status != http.StatusNotFound || strings.Contains(body, "relay_") {
		t.Fatalf("public GET /metrics: %d %s", status, body)
	}
	// The database URL does not set pool_max_conns: the relay's own
	// default applies, not pgxpool's (4 on a small machine).
	if status, body := get(t, metricsURL); status != 200 || !strings.Contains(body, "\nrelay_db_pool_max_conns 16\n") {
		t.Errorf("metrics: %d; the relay does not open its default of 16 database connections:\n%s", status, body)
	}

	ctx := context.Background()
	c := relayclient.New(url)
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	if err := c.Register(ctx, "alice", "long enough password", k.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	var ids [2]string
	for i := range ids {
		if ids[i], err = c.AddDevice(ctx, "d", k.PublicKey().Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	c.Device = ids[0]
	if _, err := c.Send(ctx, ulid.Make().String(), "alice", []byte("note to my other device")); err != nil {
		t.Fatal(err)
	}
	// Stream as the second device; it gets the note, then shutdown.
	reader := *c
	reader.Device = ids[1]
	events := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- reader.Stream(ctx, "", false, func(e relayclient.Event) error {
			events <- e.Name
			return nil
		})
	}()
	for _, want := range []string{"epoch", "envelope", "ready"} {
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event", want)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-events:
		if got != "shutdown" {
			t.Fatalf("got %s, want shutdown", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown event")
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("relay exited with %v after SIGTERM", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("relay did not exit within 15 s of SIGTERM")
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestMigrateCommand(t *testing.T) {
	db := testdb.New(t)
	cmd := exec.Command(binary, "migrate")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "database is at version") {
		t.Fatalf("relay migrate: %v\n%s", err, out)
	}
}

func TestHelpAndMissingDatabase(t *testing.T) {
	out, _ := exec.Command(binary, "--help").CombinedOutput()
	for _, want := range []string{"--listen", "RELAY_LISTEN", "--database-url", "DATABASE_URL", "--origin", "--rate", "--self-rate", "RELAY_SELF_RATE", "--group-rate", "RELAY_GROUP_RATE", "--fanout-rate", "RELAY_FANOUT_RATE", "--max-recipients", "RELAY_MAX_RECIPIENTS", "--ping-interval", "--max-body", "relay migrate"} {
		if !strings.Contains(string(out), strings.TrimPrefix(want, "-")) {
			t.Errorf("--help lacks %s:\n%s", want, out)
		}
	}
	cmd := exec.Command(binary)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "DATABASE_URL") {
		t.Fatalf("without a database: %v\n%s", err, out)
	}
}
