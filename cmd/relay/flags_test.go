package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"relay/internal/testdb"
)

// deadDatabase is a database URL where nothing listens: a relay that got
// past its flags fails there at once instead of serving.
func deadDatabase(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "postgres://x@" + addr + "/x?connect_timeout=2"
}

// TestMalformedEnvironmentStopsTheRelay: a variable its flag cannot take
// stops the relay, naming the variable and what it wants, instead of the
// default being used. With the default the relay would go on to the
// database, which is not there, and fail with another message.
func TestMalformedEnvironmentStopsTheRelay(t *testing.T) {
	for _, c := range []struct{ variable, value, want string }{
		{"RELAY_RATE", "abc", "a whole number"},
		{"RELAY_QUEUE_MAX_BYTES", "64MiB", "a whole number"},
		{"RELAY_NOTIFY", "yes please", "true or false"},
		{"RELAY_PING_INTERVAL", "20", "a duration such as 90s, 15m or 2h"},
		{"RELAY_REGISTRATION", "invites", "open, invite or closed"},
	} {
		t.Run(c.variable, func(t *testing.T) {
			t.Setenv("DATABASE_URL", deadDatabase(t))
			t.Setenv("RELAY_LISTEN", "127.0.0.1:0")
			t.Setenv(c.variable, c.value)
			err := run(nil, io.Discard, io.Discard)
			var ee *envError
			if !errors.As(err, &ee) || ee.Var != c.variable || ee.Value != c.value {
				t.Fatalf("%s=%q: got %v, want an error naming the variable", c.variable, c.value, err)
			}
			want := fmt.Sprintf("%s=%q: want %s", c.variable, c.value, c.want)
			if err.Error() != want {
				t.Fatalf("got %q, want %q", err, want)
			}
			var stderr bytes.Buffer
			if code := exitCode(err, &stderr); code != 2 || stderr.String() != "relay: "+want+"\n" {
				t.Fatalf("exit %d, printed %q", code, stderr.String())
			}
		})
	}
}

// TestCommandLineWinsOverEnvironment: a variable is the default of its
// flag; the command line wins, and a variable the command line overrides is
// not read at all.
func TestCommandLineWinsOverEnvironment(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("RELAY_RATE", "5")
	t.Setenv("RELAY_NOTIFY", "false")
	t.Setenv("RELAY_PING_INTERVAL", "3s")
	o, err := parseFlags("serve", nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rate != 5 || o.notify || o.pingInterval != 3*time.Second {
		t.Fatalf("from the environment: rate %d, notify %v, ping %v", o.rate, o.notify, o.pingInterval)
	}
	o, err = parseFlags("serve", []string{"--rate", "7", "--notify=true", "--ping-interval", "4s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rate != 7 || !o.notify || o.pingInterval != 4*time.Second {
		t.Fatalf("flags and environment: rate %d, notify %v, ping %v; the flags must win", o.rate, o.notify, o.pingInterval)
	}
	t.Setenv("RELAY_RATE", "abc")
	if o, err := parseFlags("serve", []string{"--rate", "7"}, io.Discard); err != nil || o.rate != 7 {
		t.Fatalf("--rate 7 over RELAY_RATE=abc: %v", err)
	}
}

// TestRegistrationFlag: --registration is open unless told, takes
// RELAY_REGISTRATION, loses to the command line, and refuses a mode it
// does not know there too.
func TestRegistrationFlag(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	o, err := parseFlags("serve", nil, io.Discard)
	if err != nil || o.registration != "open" {
		t.Fatalf("by default: %q, %v", o.registration, err)
	}
	t.Setenv("RELAY_REGISTRATION", "invite")
	if o, err := parseFlags("serve", nil, io.Discard); err != nil || o.registration != "invite" {
		t.Fatalf("RELAY_REGISTRATION=invite: %q, %v", o.registration, err)
	}
	if o, err := parseFlags("serve", []string{"--registration", "closed"}, io.Discard); err != nil || o.registration != "closed" {
		t.Fatalf("--registration closed over RELAY_REGISTRATION=invite: %q, %v", o.registration, err)
	}
	_, err = parseFlags("serve", []string{"--registration=Open"}, io.Discard)
	want := `invalid value "Open" for flag -registration: registration is open, invite or closed, not "Open" (see relay --help)`
	if err == nil || err.Error() != want {
		t.Fatalf("--registration=Open: %v, want %q", err, want)
	}
}

// TestNewFlagsValidated: the flags of the limits that had none check their
// values.
func TestNewFlagsValidated(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--header-timeout", "100ms"}, "--header-timeout must be at least 1s, not 100ms"},
		{[]string{"--body-timeout", "0s"}, "--body-timeout must be at least 1s, not 0s"},
		{[]string{"--stream-write-timeout", "-1s"}, "--stream-write-timeout must be at least 1s, not -1s"},
		{[]string{"--purge-interval", "1s"}, "--purge-interval must be at least 1m0s, not 1s"},
		{[]string{"--revoked-keep", "59m"}, "--revoked-keep must be at least 1h0m0s, not 59m0s"},
		{[]string{"--commit-workers", "0"}, "--commit-workers must be at least 1, not 0"},
		{[]string{"--max-group", "0"}, "--max-group must be at least 1, not 0"},
		{[]string{"--self-rate", "0"}, "--self-rate must be at least 1, not 0"},
		{[]string{"--group-rate", "0"}, "--group-rate must be at least 1, not 0"},
		{[]string{"--max-recipients", "0"}, "--max-recipients must be at least 1, not 0"},
		{[]string{"--fanout-rate", "255"}, "--fanout-rate must be at least 256, not 255"},
		{[]string{"--max-recipients", "10", "--fanout-rate", "9"}, "--fanout-rate must be at least 10, not 9"},
		{[]string{"--deleted-name-hold", "59s"}, "--deleted-name-hold must be at least 1m0s, not 59s"},
		{[]string{"--dedup-window", "0s"}, "--dedup-window must be at least 1m0s, not 0s"},
	} {
		if _, err := parseFlags("serve", c.args, io.Discard); err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	o, err := parseFlags("serve", []string{"--header-timeout", "2s", "--body-timeout", "3s", "--stream-write-timeout", "4s",
		"--purge-interval", "5m", "--revoked-keep", "6h", "--commit-workers", "3", "--max-group", "8", "--self-rate", "9", "--deleted-name-hold", "7h",
		"--dedup-window", "36h", "--group-rate", "11", "--max-recipients", "12", "--fanout-rate", "13"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.headerTimeout != 2*time.Second || o.bodyTimeout != 3*time.Second || o.streamWriteTimeout != 4*time.Second ||
		o.purgeInterval != 5*time.Minute || o.revokedKeep != 6*time.Hour || o.commitWorkers != 3 || o.maxGroup != 8 || o.selfRate != 9 ||
		o.nameHold != 7*time.Hour || o.dedupWindow != 36*time.Hour || o.groupRate != 11 ||
		o.maxRcpt != 12 || o.fanoutRate != 13 {
		t.Fatalf("parsed %+v", o)
	}
}

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err     error
		code    int
		printed string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{fmt.Errorf("audit: %w", errHits), 1, ""},
		{errors.New("no database"), 2, "relay: no database\n"},
	} {
		var stderr bytes.Buffer
		if code := exitCode(c.err, &stderr); code != c.code || stderr.String() != c.printed {
			t.Errorf("%v: exit %d, printed %q; want %d, %q", c.err, code, stderr.String(), c.code, c.printed)
		}
	}
}

// runSplit runs the binary and returns its stdout, stderr and exit code.
func runSplit(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestHelpExitsZero: asking for help is no error: usage on stdout, nothing
// on stderr, exit 0, for every command.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"migrate", "--help"}, {"audit", "--help"}} {
		stdout, stderr, code := runSplit(t, nil, args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Usage:") || !strings.Contains(stdout, "-database-url") {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
	}
}

// TestFlagErrorPrintedOnce: a wrong flag or value is said once on stderr,
// with exit 2; the flag package itself prints nothing.
func TestFlagErrorPrintedOnce(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{nil, []string{"--rate", "abc"}, `invalid value "abc" for flag -rate`},
		{nil, []string{"migrate", "--bogus"}, "flag provided but not defined: -bogus"},
		{nil, []string{"audit", "--bogus"}, "flag provided but not defined: -bogus"},
		{nil, []string{"serve"}, `unexpected argument "serve"`},
		{[]string{"RELAY_RATE=abc"}, nil, `RELAY_RATE="abc": want a whole number`},
	} {
		stdout, stderr, code := runSplit(t, c.env, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, c.want) != 1 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit 2 and %q once on one line", c.env, c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestMetricsAddressInUse: a metrics address another process holds stops
// the relay with a message naming the flag, rather than a relay without
// metrics.
func TestMetricsAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stdout, stderr, code := runSplit(t, []string{"DATABASE_URL=" + testdb.New(t)},
		"--listen", "127.0.0.1:0", "--metrics-listen", ln.Addr().String())
	if code != 2 || strings.Contains(stdout, "listening on") ||
		!strings.Contains(stderr, "--metrics-listen "+ln.Addr().String()) || !strings.Contains(stderr, "address already in use") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestPushFlags: push is off by default; --push-contact, --push-interval
// and --push-allow-private reach the options, from the command line or the
// environment; an interval under a second is refused.
func TestPushFlags(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	o, err := parseFlags("serve", nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.pushContact != "" || o.pushInterval != time.Minute || o.pushPrivate {
		t.Fatalf("defaults: contact %q, interval %v, allow private %v; want push off, 1m, false", o.pushContact, o.pushInterval, o.pushPrivate)
	}
	t.Setenv("RELAY_PUSH_CONTACT", "mailto:ops@relay.test")
	o, err = parseFlags("serve", []string{"--push-interval", "5s", "--push-allow-private"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.pushContact != "mailto:ops@relay.test" || o.pushInterval != 5*time.Second || !o.pushPrivate {
		t.Fatalf("set: contact %q, interval %v, allow private %v", o.pushContact, o.pushInterval, o.pushPrivate)
	}
	if _, err := parseFlags("serve", []string{"--push-interval", "100ms"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--push-interval") {
		t.Fatalf("an interval of 100ms: %v, want refused", err)
	}
}
