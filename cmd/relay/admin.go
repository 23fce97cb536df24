package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/audit"
	"relay/canonical"
	"relay/deletion"
	"relay/devices"
	"relay/epoch"
	"relay/hub"
	"relay/lifecycle"
	"relay/migrations"
	"relay/relay"
)

// errNoAccount makes `relay admin` exit 1: the command is well formed but
// no account has the username it names.
var errNoAccount = errors.New("no such account")

const adminUsage = `Usage:
  relay admin stats                                 counts of what the relay holds
  relay admin disable USERNAME --reason TEXT        the account can no longer log in, send or stream
  relay admin enable USERNAME --reason TEXT         undo disable
  relay admin delete USERNAME --reason TEXT         delete the account as DELETE /api/account does
  relay admin sessions revoke USERNAME --reason TEXT  end every session of the account
  relay admin vacuum                                erase deleted rows from the table files
  relay admin new-epoch --reason TEXT               after a restore: clients resynchronise
  relay admin invites create [--uses N] [--expires D]  an invite code, for --registration invite
  relay admin invites list                          every invite: uses, expiry, never the code
  relay admin invites revoke ID                     the invite's code registers no one any more
  relay admin reports list [--all] [--json]         open reports (all with --all): who, about whom, why
  relay admin reports show N [--json]               a report whole, its messages in plain text
  relay admin reports resolve N [--note TEXT]       close a report; it is deleted 90 days later

Each command works on the relay's database directly (--database-url or
$DATABASE_URL), never through the public API, and needs no password of
any account. Each change to an account is logged on stderr with --reason
and the one username named; each change to invites with the invite's id;
each report resolved with its number, never its content. Exit codes: 0
done, 1 no such account, invite or report, 2 usage or any other error.
relay admin COMMAND --help describes COMMAND.
`

// adminCommand is one `relay admin` command: its words, what it takes and
// what it does.
type adminCommand struct {
	words    string // "disable", "sessions revoke"
	usage    string // for --help
	username bool   // takes USERNAME
	// id reads the number the command takes instead (an invite's ID, a
	// report's N), named idName in messages; nil: it takes none.
	id     func(string) (int64, error)
	idName string
	change bool // changes an account: --reason is required
	// flags binds the command's own flags into a, if it has any.
	flags func(fs *flags, a *admin)
	// run does it; arg is the USERNAME or the ID, checked.
	run func(a *admin, ctx context.Context, arg string) error
}

// admin is what a command runs with.
type admin struct {
	pool     *pgxpool.Pool
	store    *devices.Store
	log      *slog.Logger
	stdout   io.Writer
	reason   string
	nameHold time.Duration // delete
	vacuum   bool          // delete
	uses     int           // invites create
	expires  time.Duration // invites create
	all      bool          // reports list
	asJSON   bool          // reports list, show
	note     string        // reports resolve
}

var adminCommands = append([]adminCommand{
	{words: "stats", run: (*admin).stats, usage: `Usage: relay admin stats [--database-url URL]

Prints the counts that relay audit --stats gives, without the per-device
table: accounts (and how many are disabled), held usernames, recovery
blobs, devices, sessions, contact pairs, idempotency records and queued
envelopes. Nothing else: no username, no device id, no content.
`},
	{words: "disable", username: true, change: true, run: (*admin).disable, usage: `Usage: relay admin disable USERNAME --reason TEXT [--database-url URL]

Disables the account: it can no longer log in (403 account_disabled),
and every request of its sessions, sends and streams included, is
refused the same way. Its open streams end with event: disabled, on
every relay instance. Nothing is deleted: enable gives the account back.
`},
	{words: "enable", username: true, change: true, run: (*admin).enable, usage: `Usage: relay admin enable USERNAME --reason TEXT [--database-url URL]

Enables a disabled account again: its sessions and devices work as
before, and what was sent to it meanwhile waits in its queues.
`},
	{words: "delete", username: true, change: true, run: (*admin).delete, flags: func(fs *flags, a *admin) {
		bindNameHold(fs, &a.nameHold)
		fs.BoolVar(&a.vacuum, "vacuum", true, "run relay admin vacuum after the deletion")
	}, usage: `Usage: relay admin delete USERNAME --reason TEXT [--deleted-name-hold D] [--vacuum=false] [--database-url URL]

Deletes the account and everything the relay holds of it, in one
transaction, as DELETE /api/account does: its streams end with event:
deleted, and its username is held back from new registrations for
--deleted-name-hold. Then, unless --vacuum=false, runs relay admin vacuum.
`},
	{words: "sessions revoke", username: true, change: true, run: (*admin).revokeSessions, usage: `Usage: relay admin sessions revoke USERNAME --reason TEXT [--database-url URL]

Ends every session of the account: its devices must log in again with
the password (the same browser comes back as the same device). Open
streams end with event: logged_out, on every relay instance that hears
the notification; an instance that missed it ends them when they next
reconnect.
`},
	{words: "vacuum", run: (*admin).vacuumTables, usage: `Usage: relay admin vacuum [--database-url URL]

Rewrites the relay's tables with VACUUM FULL and runs CHECKPOINT, so that
deleted rows (deleted accounts, ACKed envelopes) leave the table files
and their indexes. Each table is locked while it is rewritten: sends and
streams wait for that long. See docs/operations.md for what may still
sit in the WAL and in backups.
`},
	{words: "new-epoch", change: true, run: (*admin).newEpoch, usage: `Usage: relay admin new-epoch --reason TEXT [--database-url URL]

Starts a new epoch (ADR 0086). Run it after restoring the relay's
database from any backup (docs/operations.md, "Backups and restores"):
the devices' seq numbers may have gone back, and the clients must not
trust the cursors they stored. Every open stream ends with event:
rewound, on every relay instance; each client reconnects, sees the new
epoch, and resynchronises: it keeps what it stored, recognises what it
already has by id, and tells its user that messages sent while the
backup was older than the database may be missing. Nothing is deleted.
`},
}, append(inviteCommands, reportCommands...)...)

// runAdmin is `relay admin …` (docs/operations.md, "Operator commands").
func runAdmin(args []string, stdout, stderr io.Writer) error {
	var cmd *adminCommand
	for i := range adminCommands {
		words := strings.Fields(adminCommands[i].words)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == adminCommands[i].words {
			cmd, args = &adminCommands[i], args[len(words):]
			break
		}
	}
	if cmd == nil {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-help" || args[0] == "-h") {
			fmt.Fprint(stdout, adminUsage)
			return nil
		}
		if len(args) == 0 {
			return errors.New("relay admin needs a command (see relay admin --help)")
		}
		var then []string // the words that may follow args[0]: "invites" takes create, list, revoke
		for _, c := range adminCommands {
			if first, rest, ok := strings.Cut(c.words, " "); ok && first == args[0] {
				then = append(then, rest)
			}
		}
		if len(then) > 0 {
			return fmt.Errorf("relay admin %s takes %s (see relay admin --help)", args[0], strings.Join(then, ", "))
		}
		return fmt.Errorf("relay admin has no command %q (see relay admin --help)", args[0])
	}
	fs := newFlags("relay admin " + cmd.words)
	a := &admin{stdout: stdout, log: slog.New(slog.NewTextHandler(stderr, nil))}
	var dbURL, config string
	bindConfig(fs, &config)
	bind(fs, fs.StringVar, &dbURL, "database-url", "DATABASE_URL", "", "the relay's database")
	if cmd.change {
		fs.StringVar(&a.reason, "reason", "", "why, for the log (required)")
	}
	if cmd.flags != nil {
		cmd.flags(fs, a)
	}
	flagArgs, positional := splitArgs(args, fs)
	if err := fs.parse(flagArgs, cmd.usage+"\nFlags:\n", stdout); err != nil {
		return err
	}
	var arg string
	takes := cmd.idName
	if cmd.username {
		takes = "USERNAME"
	}
	switch {
	case (cmd.username || cmd.id != nil) && len(positional) != 1:
		return fmt.Errorf("relay admin %s takes one %s (see relay admin %s --help)", cmd.words, takes, cmd.words)
	case !cmd.username && cmd.id == nil && len(positional) > 0:
		return fmt.Errorf("relay admin %s takes no argument, not %q (see relay admin %s --help)", cmd.words, positional[0], cmd.words)
	case cmd.username:
		arg = positional[0]
		if !canonical.ValidUsername(arg) {
			return fmt.Errorf("%q is not a username: a username is 3 to 32 characters from a-z, 0-9 and _", arg)
		}
	case cmd.id != nil:
		arg = positional[0]
		if _, err := cmd.id(arg); err != nil {
			return err
		}
	}
	if cmd.change && strings.TrimSpace(a.reason) == "" {
		return fmt.Errorf("relay admin %s needs --reason TEXT: every change is logged with why it was made", cmd.words)
	}
	if cmd.words == "delete" && a.nameHold < minNameHold {
		return fmt.Errorf("--deleted-name-hold must be at least %v, not %v", minNameHold, a.nameHold)
	}
	if err := checkInviteFlags(cmd.words, a); err != nil {
		return err
	}
	if err := checkReportFlags(cmd.words, a); err != nil {
		return err
	}
	if dbURL == "" {
		return fmt.Errorf("relay admin %s needs --database-url, DATABASE_URL or the relay's --config file", cmd.words)
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	defer pool.Close()
	// An older schema lacks what the commands read and write.
	if v, err := migrations.Version(ctx, pool); err != nil {
		return fmt.Errorf("reading the schema version (is this the relay's database?): %w", err)
	} else if v < migrations.Latest() {
		return fmt.Errorf("the database is at schema version %d, this relay needs %d: run relay migrate first", v, migrations.Latest())
	}
	store, err := devices.NewStore(pool, devices.Config{})
	if err != nil {
		return err
	}
	a.pool, a.store = pool, store
	return cmd.run(a, ctx, arg)
}

// splitArgs separates USERNAME and the other words from the flags, which
// may come before or after them: --reason TEXT, --reason=TEXT, --vacuum.
func splitArgs(args []string, fs *flags) (flagArgs, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flagArgs = append(flagArgs, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flagArgs = append(flagArgs, args[i])
		}
	}
	return flagArgs, positional
}

// minNameHold is the shortest --deleted-name-hold: a hold shorter than a
// minute protects no one.
const minNameHold = time.Minute

// bindNameHold defines --deleted-name-hold, which the relay and relay
// admin delete share.
func bindNameHold(fs *flags, p *time.Duration) {
	bind(fs, fs.DurationVar, p, "deleted-name-hold", "RELAY_DELETED_NAME_HOLD", relay.DefaultConfig().DeletedNameHold,
		"how long a deleted account's username is held back from new registrations")
}

// transitions are the account's lifecycle changes made by relay admin,
// which holds no stream: the relay instances end theirs when the notice
// sent on commit arrives.
func (a *admin) transitions() *lifecycle.Transitions {
	return lifecycle.New(a.pool, a.store, nil)
}

// notFound is errNoAccount for username, saying whether the name is held
// after a deletion.
func (a *admin) notFound(ctx context.Context, username string) error {
	if _, err := a.store.Lookup(ctx, username); errors.Is(err, devices.ErrAccountDeleted) {
		return fmt.Errorf("%w: the account %s was deleted already (its name is held back)", errNoAccount, username)
	}
	return fmt.Errorf("%w: no account is named %s", errNoAccount, username)
}

func (a *admin) stats(ctx context.Context, _ string) error {
	s, err := audit.ReadStats(ctx, a.pool, time.Now())
	if err != nil {
		return fmt.Errorf("reading the relay's tables: %w", err)
	}
	printCounts(a.stdout, s)
	return nil
}

func (a *admin) disable(ctx context.Context, username string) error {
	return a.setDisabled(ctx, username, true)
}

func (a *admin) enable(ctx context.Context, username string) error {
	return a.setDisabled(ctx, username, false)
}

func (a *admin) setDisabled(ctx context.Context, username string, disabled bool) error {
	devs, err := a.transitions().SetDisabled(ctx, username, disabled)
	if errors.Is(err, devices.ErrUnknownAccount) {
		return a.notFound(ctx, username)
	}
	if err != nil {
		return err
	}
	if disabled {
		a.log.Info("account disabled", "username", username, "reason", a.reason, "streams_ended", len(devs))
		fmt.Fprintf(a.stdout, "disabled %s: it cannot log in, send or stream; the streams of its %d devices were told (event: disabled)\n", username, len(devs))
	} else {
		a.log.Info("account enabled", "username", username, "reason", a.reason)
		fmt.Fprintf(a.stdout, "enabled %s: its sessions and devices work again\n", username)
	}
	return nil
}

func (a *admin) delete(ctx context.Context, username string) error {
	d, err := a.transitions().Delete(ctx, username, a.nameHold)
	if errors.Is(err, devices.ErrUnknownAccount) {
		return a.notFound(ctx, username)
	}
	if err != nil {
		return err
	}
	a.log.Info("account deleted", "username", username, "reason", a.reason, "devices", len(d.Devices), "name_held_for", a.nameHold.String())
	fmt.Fprintf(a.stdout, "deleted %s and its %d devices; the name is held back until %s\n", username, len(d.Devices), time.Now().Add(a.nameHold).UTC().Format(time.RFC3339))
	if !a.vacuum {
		return nil
	}
	return a.vacuumTables(ctx, "")
}

func (a *admin) revokeSessions(ctx context.Context, username string) error {
	n, _, err := a.transitions().RevokeSessions(ctx, username)
	if errors.Is(err, devices.ErrUnknownAccount) {
		return a.notFound(ctx, username)
	}
	if err != nil {
		return err
	}
	a.log.Info("sessions revoked", "username", username, "reason", a.reason, "sessions", n)
	fmt.Fprintf(a.stdout, "ended %d sessions of %s; its devices must log in again\n", n, username)
	return nil
}

func (a *admin) newEpoch(ctx context.Context, _ string) error {
	old, err := epoch.Read(ctx, a.pool)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := epoch.Renew(ctx, tx); err != nil {
			return err
		}
		return hub.NotifyEpoch(ctx, tx)
	})
	if err != nil {
		return err
	}
	now, err := epoch.Read(ctx, a.pool)
	if err != nil {
		return err
	}
	a.log.Info("new epoch", "reason", a.reason, "old", old.String(), "epoch", now.String())
	fmt.Fprintf(a.stdout, "epoch %s replaced by %s: every stream ends with event: rewound, and clients resynchronise\n", old, now)
	return nil
}

func (a *admin) vacuumTables(ctx context.Context, _ string) error {
	start := time.Now()
	if err := deletion.Vacuum(ctx, a.pool); err != nil {
		return err
	}
	a.log.Info("tables vacuumed", "tables", strings.Join(deletion.Tables, ","), "duration_ms", time.Since(start).Milliseconds())
	fmt.Fprintf(a.stdout, "rewrote %s and checkpointed: deleted rows have left the table files\n", strings.Join(deletion.Tables, ", "))
	return nil
}

// printCounts prints the totals of s: what relay admin stats shows.
func printCounts(w io.Writer, s *audit.Stats) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "accounts\t%d (%d disabled)\n", s.Accounts, s.DisabledAccounts)
	fmt.Fprintf(tw, "held usernames\t%d\n", s.HeldNames)
	fmt.Fprintf(tw, "recovery blobs\t%d\n", s.RecoveryBlobs)
	fmt.Fprintf(tw, "devices\t%d (and %d revoked)\n", s.Devices, s.RevokedDevices)
	fmt.Fprintf(tw, "sessions\t%d (and %d expired, deleted within a minute)\n", s.Sessions, s.ExpiredSessions)
	fmt.Fprintf(tw, "contact pairs\t%d\n", s.Contacts)
	fmt.Fprintf(tw, "idempotency records\t%d\n", s.IdempotencyRecords)
	fmt.Fprintf(tw, "queued envelopes\t%d (%s of ciphertext)\n", s.Queued, size(s.QueuedBytes))
	fmt.Fprintf(tw, "attachments\t%d (%s of ciphertext)\n", s.Attachments, size(s.AttachmentBytes))
	tw.Flush()
}
