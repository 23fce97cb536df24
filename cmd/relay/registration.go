package main

import (
	"relay/relay"
)

// --registration (ADR 0117): who may create an account.

// registrationFlag is --registration's value: one of the modes, refused
// at parse time otherwise, from the command line or the environment.
type registrationFlag struct{ p *relay.Registration }

func (f registrationFlag) String() string {
	if f.p == nil {
		return ""
	}
	return string(*f.p)
}

func (f registrationFlag) Set(s string) error {
	r, err := relay.ParseRegistration(s)
	if err != nil {
		return err
	}
	*f.p = r
	return nil
}

func (f registrationFlag) Get() any { return f.String() }

// want is what the environment's value must be (flags.go, want).
func (registrationFlag) want() string { return "open, invite or closed" }

// choices are the values the flag takes.
func (registrationFlag) choices() []string {
	return []string{string(relay.RegistrationOpen), string(relay.RegistrationInvite), string(relay.RegistrationClosed)}
}

func bindRegistration(fs *flags, p *relay.Registration) {
	*p = relay.DefaultConfig().Registration
	bind(fs, func(p *relay.Registration, name string, _ relay.Registration, usage string) {
		fs.Var(registrationFlag{p}, name, usage)
	}, p, "registration", "RELAY_REGISTRATION", *p,
		"who may create an account, a `mode`: open (anyone), invite (with a code from relay admin invites create) or closed (no one; existing accounts carry on)")
}
