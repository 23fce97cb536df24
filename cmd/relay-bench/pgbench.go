package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"relay/queue"
)

// pgbenchRef runs the relay's enqueue transaction with pgbench at the same
// concurrency, with the relay stopped so that both runs have the machine.
func (b *bench) pgbenchRef(clients int) (float64, cpuUse, error) {
	say("pgbench reference with %d clients…", clients)
	if err := b.loadPairs(clients); err != nil {
		return 0, cpuUse{}, err
	}
	run, err := b.runPgbench(pgbenchScript(), clients, refEnv, 0)
	if err == nil {
		b.refs[clients] = run.tps
	}
	return run.tps, run.cpu, err
}

// pgbenchRun is what one pgbench run measured.
type pgbenchRun struct {
	tps float64
	tx  int    // transactions processed
	cpu cpuUse // per transaction
	// wal is the WAL the cluster wrote from just before pgbench started to
	// just after it ended (pg_current_wal_lsn), with the relay stopped
	wal int64
}

// runPgbench runs script with pgbench at the given concurrency, for one
// phase or, when count > 0, for count transactions per client, with the
// relay stopped so that both runs have the machine. vars start the
// script's variables ("name=value").
func (b *bench) runPgbench(script string, clients int, env []string, count int, vars ...string) (pgbenchRun, error) {
	f, err := os.CreateTemp("", "relay-bench-*.sql")
	if err != nil {
		return pgbenchRun{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script); err != nil {
		return pgbenchRun{}, err
	}
	f.Close()
	b.stopRelay()
	defer func() {
		if err := b.startRelay(); err != nil {
			say("restarting the relay: %v", err)
		}
	}()
	length := []string{"-T", strconv.Itoa(int(b.o.duration.Seconds()))}
	if count > 0 {
		length = []string{"-t", strconv.Itoa(count)}
	}
	args := append([]string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", "2"}, length...)
	for _, v := range vars {
		args = append(args, "-D", v)
	}
	cmd := exec.Command(b.o.pgbench, append(args, "-f", f.Name(), b.db)...)
	cmd.Env = append(os.Environ(), env...)
	wal0, err := b.walLSN()
	if err != nil {
		return pgbenchRun{}, err
	}
	cpu0 := b.cpu()
	out, err := cmd.CombinedOutput()
	used := b.cpu().sub(cpu0)
	if err != nil {
		return pgbenchRun{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	wal1, err := b.walLSN()
	if err != nil {
		return pgbenchRun{}, err
	}
	tps, tpsErr := pgbenchNumber(out, `tps = ([0-9.]+)`)
	tx, txErr := pgbenchNumber(out, `number of transactions actually processed: ([0-9]+)`)
	if tpsErr != nil || txErr != nil {
		return pgbenchRun{}, fmt.Errorf("no tps or transaction count in pgbench's output:\n%s", out)
	}
	return pgbenchRun{tps: tps, tx: int(tx), cpu: used.per(tx), wal: wal1 - wal0}, nil
}

// pgbenchNumber is the number that re's group matches in pgbench's output.
func pgbenchNumber(out []byte, re string) (float64, error) {
	m := regexp.MustCompile(re).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no %q", re)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// walLSN is the cluster's current WAL position in bytes. The WAL is the
// cluster's, not the database's: a figure taken with it holds whatever
// else the cluster wrote meanwhile (the relay's own, when it runs;
// autovacuum).
func (b *bench) walLSN() (int64, error) {
	var n int64
	err := b.pool.QueryRow(context.Background(), `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint`).Scan(&n)
	return n, err
}

// acceptScript is a pgbench script of the relay's own accept statement
// (queue.AcceptSQL, one statement and so one transaction) after prelude,
// the meta-commands and query that set its variables, with args, SQL
// expressions of those variables, in place of the parameters $1, $2, ….
func acceptScript(prelude string, args []string) string {
	sql := queue.AcceptSQL
	for i := len(args); i >= 1; i-- {
		sql = strings.ReplaceAll(sql, "$"+strconv.Itoa(i), args[i-1])
	}
	return prelude + strings.ReplaceAll(sql, "\n", " ") + ";\n"
}

// pgbenchTS is the relay's clock at the request, in the SQL of a script.
const pgbenchTS = "(extract(epoch from now()) * 1000)::bigint"

// pgbenchBody is a body of n bytes in the SQL of a script. Bytes repeated
// are stored as random ones are: the queue's bodies are never compressed
// (STORAGE EXTERNAL), and neither is the WAL here.
func pgbenchBody(n int) string { return fmt.Sprintf("decode(repeat('ab', %d), 'hex')", n) }

// pgbenchScript is the accept of a 1 KiB envelope from one account's
// device to another account, each client with the pair of its row in
// bench_pairs.
func pgbenchScript() string {
	body := pgbenchBody(1024)
	return acceptScript(`SELECT from_account, from_device, from_username, to_account, to_username, md5(random()::text || clock_timestamp()::text) AS eid FROM bench_pairs WHERE client_id = :client_id \gset`+"\n",
		[]string{":from_account", ":eid", ":to_username", "sha256(" + body + ")", pgbenchTS, "now() + interval '6 minutes'",
			"ARRAY[:to_account, :from_account]::bigint[]", ":from_device", ":from_username", body,
			"ARRAY[:to_username, :to_username]::text[]", "now()",
			"true"}) // $13: a message to another account wakes its devices
}
