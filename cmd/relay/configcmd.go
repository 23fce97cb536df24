package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// relay config: check a configuration file, or print one (ADR 0114).

const configUsage = `Usage:
  relay config check FILE   check a configuration file without starting the relay
  relay config example      print a configuration file with every key, its
                            meaning and its default, each commented out

relay config check reads FILE as relay --config FILE would, over the
built-in defaults and without the environment, and checks every value as
the relay does at start; it connects to nothing. Exit status: 0 the file
is valid, 1 it is not (or cannot be read), each problem printed with its
line and column, 2 a usage error.
`

// configInvalid is a file relay config check refused: exit 1.
type configInvalid struct{ err error }

func (e *configInvalid) Error() string { return e.err.Error() }
func (e *configInvalid) Unwrap() error { return e.err }

func runConfig(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("relay config needs a command: check FILE or example (see relay config --help)")
	}
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "--help" || cmd == "-help" || cmd == "-h":
		fmt.Fprint(stdout, configUsage)
		return nil
	case cmd == "example" && len(rest) == 0:
		writeExample(stdout)
		return nil
	case cmd == "check" && len(rest) == 1 && !strings.HasPrefix(rest[0], "-"):
		return checkConfig(rest[0], stdout)
	case cmd == "check" || cmd == "example":
		return fmt.Errorf("relay config %s takes %s (see relay config --help)", cmd, map[string]string{"check": "one FILE", "example": "no argument"}[cmd])
	}
	return fmt.Errorf("relay config has no command %q (see relay config --help)", args[0])
}

// noEnv is an environment with no variable set: relay config check judges
// the file alone.
func noEnv(string) (string, bool) { return "", false }

func checkConfig(path string, stdout io.Writer) error {
	o, fs, err := parseSettings("serve", []string{"--config", path}, io.Discard, noEnv)
	if err != nil {
		return &configInvalid{err}
	}
	n := 0
	for _, s := range fs.from {
		if s.file != "" {
			n++
		}
	}
	fmt.Fprintf(stdout, "%s: valid; it sets %d of %d keys, the others keep their defaults\n", path, n, len(fs.sortedKeys()))
	if o.databaseURL == "" {
		fmt.Fprintln(stdout, "It sets no database-url: the relay will need --database-url or DATABASE_URL.")
	}
	return nil
}

const exampleHeader = `# The relay's configuration file, in TOML, read by relay --config FILE
# or RELAY_CONFIG=FILE. Every key is a flag of relay --help under the same
# name, taking the same values: numbers and true or false as they are,
# durations ("90s", "15m", "2h") and text in quotes. A flag on the
# command line wins over its environment variable, the variable over this
# file, the file over the built-in default. Each key below is commented
# out with its default: remove the # to set it. relay config check FILE
# checks a file without starting the relay.
`

// writeExample prints a configuration file with every key, in the order
// the flags are defined, each commented out with its usage and default.
func writeExample(w io.Writer) {
	fs := serveFlags("serve", &options{})
	fmt.Fprint(w, exampleHeader)
	for _, name := range fs.order {
		if !fs.fileKey(name) {
			continue
		}
		fmt.Fprintln(w)
		for _, line := range wrapWords(fs.usage[name], 72) {
			fmt.Fprintln(w, "# "+line)
		}
		fmt.Fprintf(w, "# (--%s, $%s)\n", name, fs.vars[name])
		fmt.Fprintf(w, "#%s = %s\n", name, exampleValue(fs.Lookup(name)))
	}
}

// wrapWords breaks s into lines of at most width bytes, at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
