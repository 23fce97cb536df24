package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"relay/internal/testdb"
)

// envOf is an environment holding exactly vars.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// writeFile writes a configuration file into a test's folder.
func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "relay.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// probe is the n-th value, unlike the default, that the flag f takes: as
// on the command line and as in the file.
func probe(t *testing.T, f *flag.Flag, n int) (arg, toml string) {
	t.Helper()
	switch kindOf(f.Value) {
	case kindInt:
		d, err := strconv.ParseInt(f.DefValue, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		s := strconv.FormatInt(d+int64(n), 10)
		return s, s
	case kindBool:
		if n != 1 { // a boolean has one value unlike its default
			t.Skipf("--%s is a boolean: one value besides its default", f.Name)
		}
		s := strconv.FormatBool(f.DefValue != "true")
		return s, s
	case kindDuration:
		d, err := time.ParseDuration(f.DefValue)
		if err != nil {
			t.Fatal(err)
		}
		s := (d + time.Duration(n)*time.Second).String()
		return s, tomlString(s)
	case kindString:
		// A flag of a few values: the n-th of those unlike the default.
		if c, ok := f.Value.(interface{ choices() []string }); ok {
			var others []string
			for _, v := range c.choices() {
				if v != f.DefValue {
					others = append(others, v)
				}
			}
			s := others[(n-1)%len(others)]
			return s, tomlString(s)
		}
		s := fmt.Sprintf("probe %d of %s", n, f.Name)
		return s, tomlString(s)
	}
	t.Fatalf("--%s: a flag of a kind this test does not know", f.Name)
	return "", ""
}

// TestFlagsVariablesAndFileAgree: every flag of the relay has an
// environment variable and is a key of the configuration file, and each of
// the three sets it to the same value, with the precedence flag >
// variable > file > default. The flags are read from the flag set, so a
// flag added later is checked without changing this test; a flag defined
// without bind (so with no variable and no key) fails it.
func TestFlagsVariablesAndFileAgree(t *testing.T) {
	all := serveFlags("serve", &options{})
	n := 0
	all.VisitAll(func(f *flag.Flag) {
		n++
		if _, ok := all.vars[f.Name]; !ok {
			t.Errorf("--%s has no environment variable: define it with bind", f.Name)
		}
	})
	if n < 40 {
		t.Fatalf("only %d flags", n)
	}
	for _, name := range all.sortedKeys() {
		t.Run(name, func(t *testing.T) {
			variable := all.vars[name]
			// The value a fresh flag set ends with, for this command line,
			// environment and file.
			value := func(args []string, env map[string]string, file string) string {
				t.Helper()
				fs := serveFlags("serve", &options{})
				fs.lookupEnv = envOf(env)
				if file != "" {
					args = append([]string{"--config", writeFile(t, file)}, args...)
				}
				if err := fs.parse(args, "", io.Discard); err != nil {
					t.Fatalf("args %q, env %v, file %q: %v", args, env, file, err)
				}
				return fs.Lookup(name).Value.String()
			}
			f := all.Lookup(name)
			a1, _ := probe(t, f, 1)
			want := value([]string{"--" + name + "=" + a1}, nil, "")
			if want == f.DefValue {
				t.Fatalf("--%s=%s left the default %q", name, a1, f.DefValue)
			}
			if got := value(nil, map[string]string{variable: a1}, ""); got != want {
				t.Errorf("%s=%s gave %q, --%s %q", variable, a1, got, name, want)
			}
			_, t1 := probe(t, f, 1)
			if got := value(nil, nil, name+" = "+t1+"\n"); got != want {
				t.Errorf("%s = %s in the file gave %q, --%s %q", name, t1, got, name, want)
			}
			if got := value(nil, nil, "# nothing\n"); got != f.DefValue {
				t.Errorf("with neither: %q, want the default %q", got, f.DefValue)
			}
			if kindOf(f.Value) == kindBool {
				return // two values only: the orders below need three
			}
			_, inFile := probe(t, f, 1)
			inEnv, _ := probe(t, f, 2)
			onLine, _ := probe(t, f, 3)
			file := name + " = " + inFile + "\n"
			fromFile := value(nil, nil, file)
			fromEnv := value(nil, map[string]string{variable: inEnv}, "")
			fromLine := value([]string{"--" + name + "=" + onLine}, nil, "")
			if got := value([]string{"--" + name + "=" + onLine}, map[string]string{variable: inEnv}, file); got != fromLine {
				t.Errorf("flag, variable and file: %q, want the flag's %q", got, fromLine)
			}
			if got := value(nil, map[string]string{variable: inEnv}, file); got != fromEnv {
				t.Errorf("variable and file: %q, want the variable's %q", got, fromEnv)
			}
			if fromFile == fromEnv || fromEnv == fromLine {
				t.Fatalf("probes not distinct: %q %q %q", fromFile, fromEnv, fromLine)
			}
		})
	}
}

// TestConfigFileNamedByVariable: RELAY_CONFIG names the file when --config
// does not; --config wins, and the variable is then not read.
func TestConfigFileNamedByVariable(t *testing.T) {
	byVar := writeFile(t, "rate = 41\n")
	byFlag := writeFile(t, "rate = 42\n")
	for _, c := range []struct {
		args []string
		env  map[string]string
		rate int
	}{
		{nil, map[string]string{"RELAY_CONFIG": byVar}, 41},
		{[]string{"--config", byFlag}, map[string]string{"RELAY_CONFIG": byVar}, 42},
		{[]string{"--config", byFlag}, map[string]string{"RELAY_CONFIG": "/no/such/file"}, 42},
		{nil, map[string]string{"RELAY_CONFIG": ""}, 30},
	} {
		o := &options{}
		fs := serveFlags("serve", o)
		fs.lookupEnv = envOf(c.env)
		if err := fs.parse(c.args, "", io.Discard); err != nil || o.rate != c.rate {
			t.Errorf("%v %v: rate %d, %v; want %d", c.args, c.env, o.rate, err, c.rate)
		}
	}
}

// TestConfigFileProblems: an unknown key, a wrong type or a bad value
// stops the relay naming the file, the line and column, and what was
// expected; every problem of the file is listed at once.
func TestConfigFileProblems(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"unknown key", "rate = 3\nrat = 30\n", `F:2:1: unknown key "rat"; did you mean "rate"? (relay config example lists every key)`},
		{"unknown far key", "colour = 3\n", `F:1:1: unknown key "colour" (relay config example lists every key)`},
		{"string for a number", "\n  rate = \"30\"\n", `F:2:10: rate wants a whole number, such as rate = 30; this is a string`},
		{"fraction", "queue-max-bytes = 1.5", `F:1:19: queue-max-bytes wants a whole number, such as queue-max-bytes = 67108864; this is a number with a fraction`},
		{"string for a boolean", `notify = "yes"`, `F:1:10: notify wants true or false, such as notify = true; this is a string`},
		{"number for a duration", `ping-interval = 20`, `F:1:17: ping-interval wants a duration in quotes, such as ping-interval = "20s"; this is a whole number`},
		{"bad duration", `ping-interval = "20"`, `F:1:17: ping-interval wants a duration such as 90s, 15m or 2h, not "20"`},
		{"array for a string", `listen = ["a"]`, `F:1:10: listen wants text in quotes, such as listen = "127.0.0.1:8080"; this is an array`},
		{"date", `listen = 2024-01-01`, `F:1:10: listen wants text in quotes, such as listen = "127.0.0.1:8080"; this is a date or time`},
		{"table", "rate = 3\n[server]\nlisten = \"x\"\n", `F:2:2: the file has no tables: write every key at the top level, under its flag's name`},
		{"dotted key", `server.listen = "x"`, `F:1:1: dotted keys are not used: write every key at the top level, under its flag's name`},
		{"config in the file", `config = "other.toml"`, `F:1:1: config cannot be set in the file: the file is named by --config or RELAY_CONFIG`},
		{"key twice", "rate = 3\nrate = 4\n", `F:2:1: key rate is already defined (relay config example prints a valid file to start from)`},
		{"not TOML", "rate: 3\n", `F:1:5: expected '=' after key (relay config example prints a valid file to start from)`},
		{"below the minimum", "# limits\nrate = 0\n", `F:2:8: rate must be at least 1, not 0`},
		{"depends on another", "max-recipients = 10\nfanout-rate = 9\n", `F:2:15: fanout-rate must be at least 10, not 9`},
		{"log level", `log-level = "loud"`, `F:1:13: log-level must be debug, info, warn or error, not "loud"`},
		{"two problems", "rate = \"x\"\nmax-devices = true\n", "F has 2 problems:\n" +
			"  F:1:8: rate wants a whole number, such as rate = 30; this is a string\n" +
			"  F:2:15: max-devices wants a whole number, such as max-devices = 20; this is a boolean"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file)
			_, _, err := parseSettings("serve", []string{"--config", path}, io.Discard, noEnv)
			if err == nil {
				t.Fatalf("%q: accepted", c.file)
			}
			if got := strings.ReplaceAll(err.Error(), path, "F"); got != c.want {
				t.Fatalf("%q:\n got %s\nwant %s", c.file, got, c.want)
			}
		})
	}
}

// TestConfigFileNeverEchoesStrings: a string's value, which may be the
// database URL with its password, never appears in an error, whatever is
// wrong with it or around it.
func TestConfigFileNeverEchoesStrings(t *testing.T) {
	const secret = "hunter2-secret"
	for _, file := range []string{
		`database-url = "postgres://relay:` + secret + `@db:notaport/relay"`,
		`database-url = "postgres://relay:` + secret + `@db/relay"` + "\nrate = 0\n",
		`database-url = ["postgres://relay:` + secret + `@db/relay"]`,
		`tls-cert = "/etc/` + secret + `"`,
		`"` + secret + `" = "x"`,
		`database-url = "postgres://relay:` + secret + `@db/relay"` + "\n[" + "x]\n",
	} {
		path := writeFile(t, file)
		_, _, err := parseSettings("serve", []string{"--config", path}, io.Discard, noEnv)
		if err == nil {
			t.Fatalf("%q: accepted", file)
		}
		if strings.Contains(err.Error(), "hunter2") && !strings.Contains(file, `"`+secret+`" =`) {
			t.Errorf("%q: the error shows the value: %v", file, err)
		}
	}
}

// TestConfigFileCheckedWhateverOverridesIt: a bad value in the file stops
// the relay even where the command line or a variable sets that flag, so
// that the file is wrong or right on its own.
func TestConfigFileCheckedWhateverOverridesIt(t *testing.T) {
	path := writeFile(t, "rate = \"x\"\nping-interval = \"3s\"\n")
	fs := serveFlags("serve", &options{})
	fs.lookupEnv = envOf(map[string]string{"RELAY_RATE": "5"})
	var fe *fileError
	if err := fs.parse([]string{"--config", path, "--rate", "7"}, "", io.Discard); !errors.As(err, &fe) || fe.Problems[0].Line != 1 {
		t.Fatalf("got %v, want the file's line 1", err)
	}
	// Control: the same flags and variable over a good file are fine.
	path = writeFile(t, "rate = 6\nping-interval = \"3s\"\n")
	o := &options{}
	fs = serveFlags("serve", o)
	fs.lookupEnv = envOf(map[string]string{"RELAY_RATE": "5"})
	if err := fs.parse([]string{"--config", path, "--rate", "7"}, "", io.Discard); err != nil || o.rate != 7 || o.pingInterval != 3*time.Second {
		t.Fatalf("rate %d, ping %v, %v", o.rate, o.pingInterval, err)
	}
}

// TestConfigExample: relay config example lists every key once, in order,
// and is a valid file; with every key uncommented it sets each flag to its
// default, so that the defaults shown are the real ones.
func TestConfigExample(t *testing.T) {
	var b bytes.Buffer
	writeExample(&b)
	example := b.String()
	keyLine := regexp.MustCompile(`(?m)^#([a-z0-9-]+) = `)
	var listed []string
	for _, m := range keyLine.FindAllStringSubmatch(example, -1) {
		listed = append(listed, m[1])
	}
	fs := serveFlags("serve", &options{})
	if got, want := strings.Join(slices.Sorted(slices.Values(listed)), " "), strings.Join(fs.sortedKeys(), " "); got != want {
		t.Fatalf("example lists\n%s\nthe flags are\n%s", got, want)
	}
	for _, text := range []string{example, keyLine.ReplaceAllString(example, "$1 = ")} {
		o := &options{}
		fs := serveFlags("serve", o)
		fs.lookupEnv = noEnv
		if err := fs.parse([]string{"--config", writeFile(t, text)}, "", io.Discard); err != nil {
			t.Fatal(err)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != configFlag && f.Value.String() != f.DefValue {
				t.Errorf("--%s is %q, its default %q", f.Name, f.Value.String(), f.DefValue)
			}
		})
	}
}

// TestConfigExampleInDocs: docs/operations.md holds exactly what relay
// config example prints, so the two cannot drift.
func TestConfigExampleInDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- relay config example -->\n```toml\n", "```\n<!-- end of relay config example -->"
	i := bytes.Index(doc, []byte(begin))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("docs/operations.md has no block between %q and %q", begin, end)
	}
	var b bytes.Buffer
	writeExample(&b)
	if got := string(doc[i+len(begin) : j]); got != b.String() {
		t.Fatalf("docs/operations.md's example differs from relay config example: replace it with the command's output")
	}
}

// TestReadmeFlagTable: the README's flag table has a row for every flag,
// with its variable, and no row for a flag that is gone.
func TestReadmeFlagTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // flag → variable
	row := regexp.MustCompile("(?m)^\\| ((?:`--[a-z0-9-]+`(?:, )?)+) \\| ((?:`[A-Z_]+`(?:, )?)+) \\|")
	name := regexp.MustCompile("`-*([A-Za-z0-9_-]+)`")
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		fl, vs := name.FindAllStringSubmatch(m[1], -1), name.FindAllStringSubmatch(m[2], -1)
		if len(fl) != len(vs) {
			t.Fatalf("row %q: %d flags, %d variables", m[0], len(fl), len(vs))
		}
		for k := range fl {
			rows[fl[k][1]] = vs[k][1]
		}
	}
	fs := serveFlags("serve", &options{})
	for name, variable := range fs.vars {
		if rows[name] != variable {
			t.Errorf("README: --%s should be in the flag table with %s, has %q", name, variable, rows[name])
		}
	}
	for name := range rows {
		if fs.Lookup(name) == nil {
			t.Errorf("README's flag table has --%s, which relay has not", name)
		}
	}
}

// TestConfigCommand: relay config check and example through the binary,
// with their exit codes; the relay itself stops at start on a bad file,
// before touching the database.
func TestConfigCommand(t *testing.T) {
	good := writeFile(t, "rate = 40\ndatabase-url = \"postgres://relay@db/relay\"\n")
	bad := writeFile(t, "\nrate = \"forty\"\n")
	noDB := writeFile(t, "rate = 40\n")
	example, _, _ := runSplit(t, nil, "config", "example")
	for _, c := range []struct {
		env            []string
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, []string{"config", "check", good}, 0, good + ": valid; it sets 2 of ", ""},
		{nil, []string{"config", "check", noDB}, 0, "It sets no database-url: the relay will need --database-url or DATABASE_URL.", ""},
		// The environment does not count: a variable cannot spoil the check.
		{[]string{"RELAY_RATE=abc", "RELAY_CONFIG=" + bad}, []string{"config", "check", good}, 0, "valid", ""},
		{nil, []string{"config", "check", bad}, 1, "", "relay: " + bad + ":2:8: rate wants a whole number, such as rate = 30; this is a string\n"},
		{nil, []string{"config", "check", bad + ".missing"}, 1, "", "no such file or directory"},
		{nil, []string{"config", "check"}, 2, "", "relay config check takes one FILE"},
		{nil, []string{"config", "check", "a", "b"}, 2, "", "relay config check takes one FILE"},
		{nil, []string{"config", "frobnicate"}, 2, "", `relay config has no command "frobnicate"`},
		{nil, []string{"config", "--help"}, 0, "relay config check FILE", ""},
		{nil, []string{"config", "example"}, 0, "#rate = 30\n", ""},
		{[]string{"DATABASE_URL=" + deadDatabase(t)}, []string{"--config", bad}, 2, "", "relay: " + bad + ":2:8: rate wants"},
		{[]string{"DATABASE_URL=" + deadDatabase(t), "RELAY_CONFIG=" + bad}, nil, 2, "", "relay: " + bad + ":2:8: rate wants"},
		{[]string{"DATABASE_URL=" + deadDatabase(t), "RELAY_CONFIG=" + bad}, []string{"migrate"}, 2, "", "relay: " + bad + ":2:8: rate wants"},
	} {
		stdout, stderr, code := runSplit(t, c.env, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) || (c.stderr == "") != (stderr == "") {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				c.env, c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
	var b bytes.Buffer
	writeExample(&b)
	if example != b.String() {
		t.Fatal("relay config example printed something else than writeExample")
	}
}

// FuzzConfigFile: the loader never panics on any file; what it refuses
// it refuses with problems at real positions, and what it takes it takes
// from the file.
func FuzzConfigFile(f *testing.F) {
	var b bytes.Buffer
	writeExample(&b)
	f.Add(b.String())
	f.Add("rate = 3\nping-interval = \"20s\"\nnotify = false\n")
	f.Add("rate = \"x\"\n[t]\na.b = [1, {c = 2}]\n")
	f.Add("rat = 1979-05-27T07:32:00Z\nrate = 0x1F\n")
	f.Fuzz(func(t *testing.T, text string) {
		fs := serveFlags("serve", &options{})
		fs.lookupEnv = noEnv
		err := fs.loadFile("F", []byte(text), nil)
		var fe *fileError
		if errors.As(err, &fe) {
			lines := strings.Count(text, "\n") + 1
			for _, p := range fe.Problems {
				if p.Line < 1 || p.Line > lines || p.Column < 1 {
					t.Fatalf("problem at %d:%d of a file of %d lines: %s", p.Line, p.Column, lines, p.Msg)
				}
			}
			return
		}
		if err != nil {
			t.Fatalf("not a *fileError: %v", err)
		}
		for name, s := range fs.from {
			if !strings.HasPrefix(s.file, "F:") || !fs.fileKey(name) {
				t.Fatalf("%s set from %+v", name, s)
			}
		}
	})
}

// TestRelayRunsFromConfigFile: the binary, given only RELAY_CONFIG, takes
// its database, address and origins from the file and serves; a flag on
// the command line still wins over the file.
func TestRelayRunsFromConfigFile(t *testing.T) {
	path := writeFile(t, fmt.Sprintf("database-url = %s\nlisten = \"127.0.0.1:0\"\norigin = \"https://from-file.test\"\nping-interval = \"5s\"\n",
		tomlString(testdb.New(t))))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "RELAY_CONFIG=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(binary, "--origin", "https://from-flag.test")
	cmd.Env = append(env, "RELAY_CONFIG="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not start within 30 s")
	}
	m := regexp.MustCompile(`listening on (http://\S+) \(allowed origins: (.*)\)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q; stderr %s", line, stderr.String())
	}
	if m[2] != "https://from-flag.test" {
		t.Fatalf("allowed origins %q: the flag must win over the file", m[2])
	}
	if status, body := get(t, m[1]+"/readyz"); status != 200 {
		t.Fatalf("GET /readyz: %d %s", status, body)
	}
}

// TestAdminAndAuditReadConfigFile: relay admin and relay audit take their
// database URL from the relay's file, named by --config or RELAY_CONFIG;
// the relay's other keys are checked there too but used by none of them,
// and a key the relay does not know is refused as it would be at start.
func TestAdminAndAuditReadConfigFile(t *testing.T) {
	db := testdb.New(t)
	good := writeFile(t, "database-url = "+tomlString(db)+"\nrate = 40\nlisten = \"127.0.0.1:0\"\n")
	unknown := writeFile(t, "database-url = "+tomlString(db)+"\nrat = 40\n")
	wrongType := writeFile(t, "database-url = "+tomlString(db)+"\nrate = \"forty\"\n")
	pgdata := writeFile(t, "pgdata = \"/var/lib/postgresql\"\n") // audit's flag, not a key of the relay's file
	// Unset, not empty: an empty variable is set, and wins over the file.
	t.Setenv("DATABASE_URL", "")
	os.Unsetenv("DATABASE_URL")
	var noDB []string
	for _, c := range []struct {
		env    []string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{noDB, []string{"admin", "stats", "--config", good}, 0, "accounts", ""},
		{append(noDB, "RELAY_CONFIG="+good), []string{"admin", "stats"}, 0, "accounts", ""},
		{noDB, []string{"audit", "--stats", "--config", good}, 0, "accounts", ""},
		{noDB, []string{"admin", "stats"}, 2, "", "needs --database-url, DATABASE_URL or the relay's --config file"},
		{noDB, []string{"admin", "stats", "--config", unknown}, 2, "", unknown + `:2:1: unknown key "rat"; did you mean "rate"?`},
		{noDB, []string{"admin", "stats", "--config", wrongType}, 2, "", wrongType + ":2:8: rate wants a whole number"},
		{noDB, []string{"audit", "--stats", "--config", pgdata}, 2, "", pgdata + `:1:1: unknown key "pgdata"`},
	} {
		stdout, stderr, code := runSplit(t, c.env, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				c.env, c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
}

// TestCommandLineReadOnce: with a file, each flag on the command line is
// set once, so that a flag that gathers its values (relay audit's
// --needle) holds each once.
func TestCommandLineReadOnce(t *testing.T) {
	fs := newFlags("relay audit")
	var config string
	bindConfig(fs, &config)
	var needles []string
	fs.Func("needle", "", func(s string) error { needles = append(needles, s); return nil })
	fs.lookupEnv = noEnv
	if err := fs.parse([]string{"--config", writeFile(t, "rate = 3\n"), "--needle", "a", "--needle", "b"}, "", io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Join(needles, " ") != "a b" {
		t.Fatalf("needles %q, want a b", needles)
	}
}
