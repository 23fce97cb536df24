package epoch_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/epoch"
	"relay/internal/testdb"
)

// TestEachPartChangesTheEpoch: a change of any one part is a new epoch,
// and the same parts are the same epoch (table test over the parts).
func TestEachPartChangesTheEpoch(t *testing.T) {
	base := epoch.Parts{System: 7714472379219563886, Timeline: "00000001", Database: 16384, Devices: 16400, Token: "a"}
	same := base
	if same.String() != base.String() || len(base.String()) != 16 {
		t.Fatalf("epoch %q is not 16 stable hex digits", base.String())
	}
	for name, change := range map[string]func(p *epoch.Parts){
		"a new cluster":         func(p *epoch.Parts) { p.System++ },
		"a promotion, PITR":     func(p *epoch.Parts) { p.Timeline = "00000002" },
		"another database":      func(p *epoch.Parts) { p.Database++ },
		"a logical restore":     func(p *epoch.Parts) { p.Devices++ },
		"relay admin new-epoch": func(p *epoch.Parts) { p.Token = "b" },
	} {
		p := base
		change(&p)
		if p.String() == base.String() {
			t.Errorf("%s: the epoch stayed %s", name, base)
		}
	}
}

// TestReadsPostgresOwnIdentity: Read reports the cluster's system
// identifier, its timeline (on a cluster that never changed timeline, the
// one of its last checkpoint too) and this database; two reads agree.
func TestReadsPostgresOwnIdentity(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	p, err := epoch.Read(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	var sys int64
	var tl int64
	var db uint32
	if err := pool.QueryRow(ctx, `SELECT s.system_identifier, c.timeline_id, (SELECT oid FROM pg_database WHERE datname = current_database())
		FROM pg_control_system() s, pg_control_checkpoint() c`).Scan(&sys, &tl, &db); err != nil {
		t.Fatal(err)
	}
	if got, err := strconv.ParseInt(p.Timeline, 16, 64); err != nil || got != tl {
		t.Errorf("timeline %q, the last checkpoint's is %d", p.Timeline, tl)
	}
	if p.System != sys || p.Database != db || p.Token == "" || p.Devices == 0 {
		t.Errorf("read %+v; the cluster is %d, the database %d", p, sys, db)
	}
	again, err := epoch.Read(ctx, pool)
	if err != nil || again != p {
		t.Fatalf("a second read gave %+v (%v), the first %+v", again, err, p)
	}
}

// TestRestoresChangeTheEpoch: a copy of the database, a pg_dump restored
// into a new database, and the same dump restored over the database
// itself each read another epoch, although the relay's token came back
// with the dump; relay admin new-epoch changes it in place.
func TestRestoresChangeTheEpoch(t *testing.T) {
	pgDump, pgRestore := pgTool(t, "pg_dump"), pgTool(t, "pg_restore")
	ctx := context.Background()
	u := testdb.New(t)
	before := read(t, u)

	// A copy: CREATE DATABASE … TEMPLATE is how testdb makes every
	// database, so another one is a copy of the same template.
	if other := read(t, testdb.New(t)); other.String() == before.String() {
		t.Errorf("a copy of the database reads the same epoch %s", before)
	}

	dump := filepath.Join(t.TempDir(), "relay.dump")
	run(t, pgDump, "--format=custom", "--file="+dump, "--dbname="+u)

	fresh := emptyDatabase(t)
	run(t, pgRestore, "--no-owner", "--dbname="+fresh, dump)
	restored := read(t, fresh)
	if restored.Token != before.Token {
		t.Fatalf("the dump did not bring the token back (%q, was %q): this test proves nothing", restored.Token, before.Token)
	}
	if restored.String() == before.String() {
		t.Errorf("a dump restored into a new database reads the same epoch %s", before)
	}

	run(t, pgRestore, "--clean", "--if-exists", "--no-owner", "--dbname="+u, dump)
	over := read(t, u)
	if over.Database != before.Database || over.Token != before.Token {
		t.Fatalf("restored over itself: %+v, was %+v", over, before)
	}
	if over.String() == before.String() {
		t.Errorf("a dump restored over the database reads the same epoch %s", before)
	}

	pool := poolOf(t, u)
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return epoch.Renew(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
	if renewed := read(t, u); renewed.String() == over.String() || renewed.Token == over.Token {
		t.Errorf("relay admin new-epoch left the epoch at %s", over)
	}
}

func poolOf(t *testing.T, u string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func read(t *testing.T, u string) epoch.Parts {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	p, err := epoch.Read(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// emptyDatabase creates a database with nothing in it, dropped when the
// test ends, and returns its URL.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	admin := testdb.AdminURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "relay_restore_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	v, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	v.Path = "/" + name
	return v.String()
}

// pgTool finds a PostgreSQL client program: on $PATH, or where Debian
// installs the server that scripts/pgcluster.sh runs.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(found) == 0 {
		t.Skipf("%s is not installed", name)
	}
	sort.Strings(found)
	return found[len(found)-1]
}

func run(t *testing.T, prog string, args ...string) {
	t.Helper()
	if out, err := exec.Command(prog, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(prog), args, err, out)
	}
}

// BenchmarkRead is what a stream's open pays for its epoch event, and a
// catch-up round for its check: one statement.
func BenchmarkRead(b *testing.B) {
	pool, _ := testdb.Pool(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := epoch.Read(ctx, pool); err != nil {
			b.Fatal(err)
		}
	}
}
