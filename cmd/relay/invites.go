package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"relay/invites"
)

// relay admin invites: the codes of a relay whose --registration is
// invite (ADR 0117; docs/operations.md, "Who may register").

// errNoInvite makes `relay admin invites revoke` exit 1, as errNoAccount
// does for the commands that name an account.
var errNoInvite = errors.New("no such invite")

// defaultInviteTTL is how long a code lasts unless told: long enough to
// reach someone by mail or chat, short enough that a code forgotten in a
// message registers no one a year later.
const defaultInviteTTL = 7 * 24 * time.Hour

var inviteCommands = []adminCommand{
	{words: "invites create", run: (*admin).createInvite, flags: func(fs *flags, a *admin) {
		fs.IntVar(&a.uses, "uses", 1, "how many accounts the code may create")
		fs.DurationVar(&a.expires, "expires", defaultInviteTTL, "the code registers no one after this long; 0: never")
	}, usage: `Usage: relay admin invites create [--uses N] [--expires DURATION] [--database-url URL]

Makes an invite code and prints it on the first line, in four groups of
five, such as 7K2QD-9XW4M-RT8VB-3HNPF; then what it allows. The code is
shown only now: the relay keeps its SHA-256, never the code. Give it to
whoever may register: under Create account, the web client asks for it
when the relay runs with --registration invite (an open relay ignores
it, a closed one refuses everyone). Each account made with it takes one
of its --uses (default 1); it expires after --expires (default 168h, a
week; 0 for never). Logged on stderr with the invite's id, never the code.
`},
	{words: "invites list", run: (*admin).listInvites, usage: `Usage: relay admin invites list [--database-url URL]

Lists every invite, oldest first: its id, the uses spent of those it
has, when it was made and when it expires, and whether it can still
register someone (usable, used up, expired). Never the code, which the
relay does not keep; nor which accounts used it, which it does not know.
`},
	{words: "invites revoke", id: inviteID, idName: "ID", run: (*admin).revokeInvite, usage: `Usage: relay admin invites revoke ID [--database-url URL]

Deletes the invite whose id relay admin invites list shows: its code
registers no one from then on, and is answered like a code that never
existed. The accounts made with it stay. Logged on stderr with the id.
`},
}

// inviteID reads the ID that relay admin invites revoke takes.
func inviteID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%q is not an invite id: relay admin invites list shows them, whole numbers from 1", s)
	}
	return id, nil
}

// checkInviteFlags checks --uses and --expires of relay admin invites
// create, before the database is opened.
func checkInviteFlags(words string, a *admin) error {
	if words != "invites create" {
		return nil
	}
	switch {
	case a.uses < 1 || a.uses > invites.MaxUses:
		return fmt.Errorf("--uses must be 1 to %d, not %d", invites.MaxUses, a.uses)
	case a.expires != 0 && a.expires < time.Minute:
		return fmt.Errorf("--expires must be 0 (never) or at least 1m, not %v", a.expires)
	}
	return nil
}

func (a *admin) createInvite(ctx context.Context, _ string) error {
	code, inv, err := invites.Create(ctx, a.pool, a.uses, a.expires, time.Now())
	if err != nil {
		return err
	}
	a.log.Info("invite created", "invite", inv.ID, "uses", inv.Uses, "expires", expiry(inv))
	fmt.Fprintln(a.stdout, code)
	fmt.Fprintf(a.stdout, "invite %d: %s, expires %s; the code is shown only now: give it to whoever may register (with --registration invite)\n",
		inv.ID, plural(inv.Uses, "use"), expiry(inv))
	return nil
}

func (a *admin) listInvites(ctx context.Context, _ string) error {
	list, err := invites.List(ctx, a.pool)
	if err != nil {
		return fmt.Errorf("reading the invites: %w", err)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "no invites: relay admin invites create makes one")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tused\tcreated\texpires\tstate")
	for _, inv := range list {
		fmt.Fprintf(tw, "%d\t%d of %d\t%s\t%s\t%s\n", inv.ID, inv.Used, inv.Uses, inv.CreatedAt.UTC().Format(time.RFC3339), expiry(inv), inv.State(now))
	}
	return tw.Flush()
}

func (a *admin) revokeInvite(ctx context.Context, arg string) error {
	id, _ := inviteID(arg) // checked with the arguments
	err := invites.Revoke(ctx, a.pool, id)
	if errors.Is(err, invites.ErrUnknown) {
		return fmt.Errorf("%w: no invite has id %d (relay admin invites list shows them)", errNoInvite, id)
	}
	if err != nil {
		return err
	}
	a.log.Info("invite revoked", "invite", id)
	fmt.Fprintf(a.stdout, "revoked invite %d: its code registers no one from now on\n", id)
	return nil
}

// expiry is when inv expires, or "never".
func expiry(inv invites.Invite) string {
	if inv.ExpiresAt.IsZero() {
		return "never"
	}
	return inv.ExpiresAt.UTC().Format(time.RFC3339)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
