//go:build linux

package packaging

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"relay/internal/testdb"
)

// testVersion is the version of the package this test builds: one found
// installed is this test's, left by a run that was killed, and may go.
const testVersion = "0.0~packagetest"

// TestDebianPackage builds the package with make package's script,
// installs it on this machine with dpkg (as root: the maintainer scripts
// make a system user, which no folder of a test can hold), checks its
// files, its user and its unit, starts the installed binary as systemd
// would, with the installed configuration, against a test database, then
// upgrades it over itself and purges it.
func TestDebianPackage(t *testing.T) {
	for _, tool := range []string{"dpkg", "dpkg-deb", "dpkg-query", "adduser"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on this machine: the Debian package is tested on Debian-like machines only", tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: installing the package needs root")
	}
	claimMachine(t)
	db := testdb.New(t)

	deb := buildPackage(t)
	checkArchive(t, deb)

	_, err := user.Lookup("relay")
	userExisted := err == nil
	t.Cleanup(func() {
		dpkg(t, "--purge", "relay")
		if !userExisted {
			_ = exec.Command("deluser", "--system", "--quiet", "relay").Run()
			_ = exec.Command("delgroup", "--system", "--quiet", "relay").Run()
		}
	})
	dpkg(t, "-i", deb)

	checkInstalledFiles(t)
	u := checkUser(t)
	checkUnit(t)
	runInstalled(t, u, db)

	// An upgrade (here the same version again) keeps a changed
	// configuration file and its permissions.
	const mark = "\n# changed by the operator\n"
	appendFile(t, "/etc/relay/relay.toml", mark)
	dpkg(t, "-i", deb)
	if b, _ := os.ReadFile("/etc/relay/relay.toml"); !strings.HasSuffix(string(b), mark) {
		t.Fatal("the upgrade replaced the changed /etc/relay/relay.toml")
	}
	checkMode(t, "/etc/relay/relay.toml", 0o640, "root", "relay")

	dpkg(t, "--purge", "relay")
	for _, path := range []string{"/usr/bin/relay", "/etc/relay/relay.toml", "/usr/lib/systemd/system/relay.service", "/var/lib/relay", "/usr/share/doc/relay"} {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after purge, %s: %v; want it gone", path, err)
		}
	}
}

// claimMachine makes sure no other relay package is on the machine: a
// package this test left is purged; any other stops the test, which would
// replace it.
func claimMachine(t *testing.T) {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f=${db:Status-Abbrev} ${Version}", "relay").Output()
	if err != nil {
		return // dpkg knows no package relay
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 || strings.HasPrefix(fields[0], "u") || strings.HasPrefix(fields[0], "p") {
		return // known, not installed, no configuration left
	}
	if fields[1] != testVersion {
		t.Skipf("a relay package (%s) is installed on this machine; this test would replace and purge it", strings.Join(fields, " "))
	}
	dpkg(t, "--purge", "relay")
}

// dpkg runs dpkg with args, waiting while another dpkg or apt holds its
// lock (other work on this machine may be installing a package).
func dpkg(t *testing.T, args ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil {
			return
		}
		if !bytes.Contains(out, []byte("lock")) || time.Now().After(deadline) {
			t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		time.Sleep(time.Second) // the other dpkg holds the lock: try again
	}
}

// buildPackage runs make package's script into a temporary folder.
func buildPackage(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("bash", "../scripts/package.sh")
	cmd.Env = append(os.Environ(), "OUT="+out, "VERSION="+testVersion)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/package.sh: %v\n%s", err, b)
	}
	deb := filepath.Join(out, "relay_"+testVersion+"_"+goarch(t)+".deb")
	if _, err := os.Stat(deb); err != nil {
		t.Fatalf("no package: %v", err)
	}
	return deb
}

func goarch(t *testing.T) string {
	t.Helper()
	b, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// checkArchive reads the package's control fields and conffiles.
func checkArchive(t *testing.T, deb string) {
	t.Helper()
	fields, err := exec.Command("dpkg-deb", "-f", deb, "Package", "Version", "Depends").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(fields), "Package: relay\nVersion: "+testVersion+"\nDepends: adduser\n"; got != want {
		t.Errorf("control fields:\n%s\nwant\n%s", got, want)
	}
	conffiles, err := exec.Command("dpkg-deb", "--info", deb, "conffiles").Output()
	if err != nil || string(conffiles) != "/etc/relay/relay.toml\n" {
		t.Errorf("conffiles %q, %v; want /etc/relay/relay.toml alone", conffiles, err)
	}
}

// checkInstalledFiles: every file is where the unit and README say, with
// its owner and mode, and unchanged (dpkg --verify).
func checkInstalledFiles(t *testing.T) {
	t.Helper()
	checkMode(t, "/usr/bin/relay", 0o755, "root", "root")
	checkMode(t, "/usr/lib/systemd/system/relay.service", 0o644, "root", "root")
	checkMode(t, "/usr/share/doc/relay/README.md", 0o644, "root", "root")
	checkMode(t, "/etc/relay/relay.toml", 0o640, "root", "relay")
	checkMode(t, "/var/lib/relay", 0o750|os.ModeDir, "relay", "relay")
	if out, err := exec.Command("dpkg", "--verify", "relay").CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("dpkg --verify relay: %v\n%s", err, out)
	}
	example, err := exec.Command("/usr/bin/relay", "config", "example").Output()
	if err != nil {
		t.Fatal(err)
	}
	if installed, _ := os.ReadFile("/usr/share/doc/relay/examples/relay.toml"); !bytes.Equal(installed, example) {
		t.Error("/usr/share/doc/relay/examples/relay.toml is not what the installed relay config example prints")
	}
}

func checkMode(t *testing.T, path string, mode os.FileMode, owner, group string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	st := fi.Sys().(*syscall.Stat_t)
	uname, gname := strconv.Itoa(int(st.Uid)), strconv.Itoa(int(st.Gid))
	if u, err := user.LookupId(uname); err == nil {
		uname = u.Username
	}
	if g, err := user.LookupGroupId(gname); err == nil {
		gname = g.Name
	}
	if fi.Mode() != mode || uname != owner || gname != group {
		t.Errorf("%s: %v %s:%s, want %v %s:%s", path, fi.Mode(), uname, gname, mode, owner, group)
	}
}

// checkUser: relay is a system user with no login, at home in the state
// folder, in its own group.
func checkUser(t *testing.T) *user.User {
	t.Helper()
	u, err := user.Lookup("relay")
	if err != nil {
		t.Fatalf("no user relay after the install: %v", err)
	}
	out, err := exec.Command("getent", "passwd", "relay").Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	uid, _ := strconv.Atoi(u.Uid)
	if uid == 0 || uid >= 1000 || f[5] != "/var/lib/relay" || !strings.HasSuffix(f[6], "nologin") {
		t.Errorf("user relay: %q; want a system user (uid 1-999) at /var/lib/relay with no login shell", f)
	}
	if g, err := user.LookupGroupId(u.Gid); err != nil || g.Name != "relay" {
		t.Errorf("user relay's group: %v %v, want relay", g, err)
	}
	return u
}

// unitRequired are the unit's settings this package promises (ADR 0115).
var unitRequired = []string{
	"User=relay", "Group=relay",
	"ExecStart=/usr/bin/relay --config /etc/relay/relay.toml",
	"NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes",
	"StateDirectory=relay", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
	"SystemCallFilter=@system-service", "ProtectKernelTunables=yes", "ProtectControlGroups=yes", "RestrictSUIDSGID=yes",
}

// checkUnit: the installed unit has its sandbox; systemd's own checker
// finds nothing wrong with it and rates its exposure OK (2.0 at most of
// 10), where systemd-analyze is installed. No systemd runs as PID 1 here,
// so the service itself is not started by systemd.
func checkUnit(t *testing.T) {
	t.Helper()
	const unit = "/usr/lib/systemd/system/relay.service"
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range unitRequired {
		if !lines[want] {
			t.Errorf("%s lacks %s", unit, want)
		}
	}
	for l := range lines {
		if strings.HasPrefix(l, "ReadWritePaths=") {
			t.Errorf("%s: %s; the state folder is to be the only one writable", unit, l)
		}
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("no systemd-analyze: the unit is not verified by systemd")
		return
	}
	if out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err := exec.Command("systemd-analyze", "security", "--offline=true", "--threshold=20", unit).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security: %v (exposure above 2.0?)\n%s", err, out)
	}
	if m := regexp.MustCompile(`Overall exposure level for relay.service: ([0-9.]+)`).FindSubmatch(out); m == nil {
		t.Errorf("systemd-analyze security said no exposure level:\n%s", out)
	} else {
		t.Logf("systemd-analyze security: exposure %s", m[1])
	}
}

// runInstalled runs the unit's ExecStart as its user, in its working
// folder, with the installed configuration; the environment gives only
// the test database and a free port, which win over the file as they
// would in a drop-in. The relay must serve /healthz and /readyz and stop
// cleanly on SIGTERM. The configuration is closed to other users.
func runInstalled(t *testing.T, u *user.User, db string) {
	t.Helper()
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	as := func(uid, gid int, args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{uint32(gid)}}}
		cmd.Dir = "/var/lib/relay"
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/var/lib/relay"}
		return cmd
	}
	if out, err := as(uid, gid, "/usr/bin/relay", "config", "check", "/etc/relay/relay.toml").CombinedOutput(); err != nil || !strings.Contains(string(out), "valid") {
		t.Errorf("relay config check as relay: %v\n%s", err, out)
	}
	nobody, err := user.Lookup("nobody")
	if err == nil {
		nuid, _ := strconv.Atoi(nobody.Uid)
		nc := as(nuid, nuid, "/usr/bin/relay", "config", "check", "/etc/relay/relay.toml")
		nc.Dir = "/"
		if out, err := nc.CombinedOutput(); err == nil || !strings.Contains(string(out), "permission denied") {
			t.Errorf("relay config check as nobody: %v\n%s; want permission denied", err, out)
		}
	}

	argv := unitExecStart(t)
	cmd := as(uid, gid, argv...)
	cmd.Env = append(cmd.Env, "DATABASE_URL="+db, "RELAY_LISTEN=127.0.0.1:0", "RELAY_METRICS_LISTEN=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	done := make(chan struct{}) // closed when the relay has exited
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			first <- sc.Text()
		}
		for sc.Scan() {
		}
	}()
	var base string
	select {
	case line := <-first:
		m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first line %q", line)
		}
		base = m[1]
	case <-done:
		t.Fatalf("the installed relay stopped: %v\n%s", waitErr, stderr.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done // then stderr is whole, and read by this goroutine alone
		t.Fatalf("the installed relay did not start within 60 s\n%s", stderr.String())
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		if waitErr != nil {
			t.Fatalf("after SIGTERM: %v\n%s", waitErr, stderr.String())
		}
	case <-time.After(45 * time.Second): // the unit's TimeoutStopSec
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the installed relay did not stop within the unit's 45 s\n%s", stderr.String())
	}
}

// unitExecStart is the installed unit's ExecStart, split into words.
func unitExecStart(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/usr/lib/systemd/system/relay.service")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ExecStart=(.+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the unit has no ExecStart")
	}
	return strings.Fields(string(m[1]))
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, text); err != nil {
		t.Fatal(err)
	}
}
