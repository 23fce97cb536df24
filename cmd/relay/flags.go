package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// flags is a flag set whose flags can also be set by environment variables
// and, for the commands that take --config, by a configuration file (ADR
// 0032, ADR 0114). Each flag bound with a variable is a key of the file
// under its own name, parsed by the flag's own parser: a flag added with
// bind is a variable and a key at once.
//
// Precedence: a flag on the command line wins over its variable, the
// variable over the file, the file over the default.
type flags struct {
	*flag.FlagSet
	vars  map[string]string  // flag name → its environment variable
	usage map[string]string  // flag name → its usage, without the variable
	order []string           // flag names in the order they were bound
	from  map[string]setting // flag name → where its value came from, if not the default
	// config is --config's value, on a set that takes a file; nil on one
	// that does not.
	config *string
	// keys makes a fresh set of the relay's flags, the keys of the file:
	// every key is looked up and checked there, and its value goes on to
	// this set's flag of that name, if it has one (relay admin and relay
	// audit have only the database URL) and the command line did not set
	// it.
	keys func() *flags
	// lookupEnv reads the environment: os.LookupEnv, or a function that
	// finds nothing, for relay config check.
	lookupEnv func(string) (string, bool)
}

// setting is where a flag's value came from: the command line (both
// fields empty), a variable, or a line of the configuration file.
type setting struct {
	env  string // the variable's name
	file string // FILE:LINE:COLUMN of the value
}

// configFlag is the flag that names the file; the file cannot set it.
const configFlag = "config"

func newFlags(name string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// parse prints the usage for --help; errors are returned, and main
	// prints them once.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, vars: map[string]string{}, usage: map[string]string{},
		from: map[string]setting{}, lookupEnv: os.LookupEnv}
}

// bind defines a flag with define (fs.IntVar, fs.DurationVar, ...) that
// falls back to the environment variable named variable and, on a set that
// takes --config, is a key of the file.
func bind[T any](fs *flags, define func(*T, string, T, string), p *T, name, variable string, def T, usage string) {
	fs.vars[name] = variable
	fs.usage[name] = usage
	fs.order = append(fs.order, name)
	define(p, name, def, usage+" ($"+variable+")")
}

// bindConfig defines --config: the relay's file then sets this set's
// flags that are keys of it.
func bindConfig(fs *flags, p *string) {
	bind(fs, fs.StringVar, p, configFlag, "RELAY_CONFIG", "",
		"read settings from this TOML file, each key a flag's name; relay config example prints one with every key")
	fs.config = p
	fs.keys = func() *flags { return serveFlags("serve", &options{}) }
}

// fileKey reports whether name is a key the configuration file may set:
// every flag bound with a variable, except --config itself.
func (fs *flags) fileKey(name string) bool {
	_, ok := fs.vars[name]
	return ok && name != configFlag
}

// envError is an environment variable whose value its flag cannot take.
type envError struct {
	Var, Value string
	Want       string // what the flag takes, such as "a whole number"
}

func (e *envError) Error() string { return fmt.Sprintf("%s=%q: want %s", e.Var, e.Value, e.Want) }

// parse parses the command line, printing usage and the flags to stdout
// for --help, then reads the configuration file, if one is named, and
// gives each flag not on the command line its environment variable's
// value. A value a flag cannot take stops it, with an *envError or a
// *fileError: a typo must not silently become the default.
func (fs *flags) parse(args []string, usage string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return err
		}
		return fmt.Errorf("%w (see %s --help)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see %s --help)", fs.Arg(0), fs.Name())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if fs.config != nil {
		if v, set := fs.lookupEnv(fs.vars[configFlag]); set && !given[configFlag] {
			*fs.config = v
		}
		if *fs.config != "" {
			// The file sets the flags the command line did not; the
			// environment, below, overrides it.
			if err := fs.readFile(*fs.config, given); err != nil {
				return err
			}
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) { // in name order, so the same variable is named each time
		variable, ok := fs.vars[f.Name]
		if !ok || f.Name == configFlag || given[f.Name] || err != nil {
			return
		}
		if v, set := fs.lookupEnv(variable); set {
			if f.Value.Set(v) != nil {
				err = &envError{Var: variable, Value: v, Want: want(f.Value)}
			}
			fs.from[f.Name] = setting{env: variable}
		}
	})
	return err
}

// invalid is the error for a value that parsed but that the relay cannot
// use, naming where it was set: the file's line, the variable, or the flag.
func (fs *flags) invalid(name, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch s := fs.from[name]; {
	case s.file != "":
		return fmt.Errorf("%s: %s %s", s.file, name, msg)
	case s.env != "":
		return fmt.Errorf("--%s %s (set by %s)", name, msg, s.env)
	}
	return fmt.Errorf("--%s %s", name, msg)
}

// want says what a flag's value must look like.
func want(v flag.Value) string {
	if w, ok := v.(interface{ want() string }); ok {
		return w.want()
	}
	switch kindOf(v) {
	case kindInt:
		return "a whole number"
	case kindBool:
		return "true or false"
	case kindDuration:
		return "a duration such as 90s, 15m or 2h"
	case kindFloat:
		return "a number"
	}
	return "a valid value"
}

// kind is what a flag's value is, for its variable's message and its type
// in the configuration file.
type kind int

const (
	kindString kind = iota // and every flag.Value that is not a Getter of the others
	kindInt
	kindBool
	kindDuration
	kindFloat
)

func kindOf(v flag.Value) kind {
	g, _ := v.(flag.Getter)
	if g == nil {
		return kindString
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return kindInt
	case bool:
		return kindBool
	case time.Duration:
		return kindDuration
	case float64:
		return kindFloat
	}
	return kindString
}
