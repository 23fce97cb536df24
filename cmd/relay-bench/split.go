package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// The split scenario measures, on one database, what the accept costs in
// the form a distributed database with the account as its distribution
// column needs (docs/scaling.md): no statement touches the rows of two
// accounts, so the one statement of queue.AcceptSQL becomes, in one
// transaction, a lock of each account's device rows (in the order of the
// account ids, so that two sends in opposite directions cannot deadlock),
// then the writes on the sender's account (its idempotency record, its
// other devices' seq and queue rows, its contact) and on the recipient's
// (seq, queue rows, contact, push wake-up). The envelope's ts is taken
// between the two, from what the locks returned, as AcceptSQL takes it.

// splitScript is that transaction as a pgbench script, for a 1 KiB
// envelope from one account's device to another account, each client
// with the pair of its row in bench_pairs.
func splitScript() string {
	body := pgbenchBody(1024)
	// lock takes the device rows of account :aN but the sending device,
	// in id order, and returns their highest ts and, when the sending
	// device is this account's, its ts (read, not locked).
	lock := func(n string) string {
		return `SELECT (SELECT coalesce(max(last_ts), 0) FROM (SELECT last_ts FROM devices` +
			` WHERE account_id = :a` + n + ` AND revoked_at IS NULL AND id <> :from_device ORDER BY id FOR UPDATE) l) AS m` + n + `,` +
			` (SELECT coalesce(max(last_ts), 0) FROM devices WHERE account_id = :a` + n + ` AND id = :from_device) AS s` + n + `,` +
			` ` + pgbenchTS + ` AS now` + n + ` \gset` + "\n"
	}
	// write bumps the seq of account :acct's devices but the sending one,
	// under the locks taken, and writes their queue rows; from its own
	// statement the sender's account also keeps the idempotency record,
	// whose absence (a resend) makes the rest write nothing.
	queued := `queued AS (INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)` +
		` SELECT b.id, b.seq, :eid, :from_username, :from_device, :to_username, b.ts, ` + body + ` FROM bumped b RETURNING device_id)`
	return `SELECT from_account, from_device, from_username, to_account, to_username, md5(random()::text || clock_timestamp()::text) AS eid FROM bench_pairs WHERE client_id = :client_id \gset` + "\n" +
		`\set a1 least(:from_account, :to_account)` + "\n" +
		`\set a2 greatest(:from_account, :to_account)` + "\n" +
		"BEGIN;\n" +
		lock("1") + lock("2") +
		`\set ts greatest(:now2, :m1 + 1, :m2 + 1, :s1 + 1, :s2 + 1)` + "\n" +
		`WITH remembered AS (INSERT INTO sent (account_id, envelope_id, to_username, body_sha256, ts, expires_at)` +
		` VALUES (:from_account, :eid, :to_username, sha256(` + body + `), :ts, now() + interval '6 minutes') ON CONFLICT DO NOTHING RETURNING ts),` +
		` bumped AS (UPDATE devices d SET seq = d.seq + 1, last_ts = r.ts FROM remembered r` +
		` WHERE d.account_id = :from_account AND d.revoked_at IS NULL AND d.id <> :from_device RETURNING d.id, d.seq, d.last_ts AS ts), ` +
		queued + `,` +
		` contacted AS (INSERT INTO contacts (account_id, contact_id, since) SELECT :from_account, :to_account, now() WHERE EXISTS (SELECT 1 FROM remembered) ON CONFLICT DO NOTHING)` +
		` SELECT count(*) AS fresh FROM remembered \gset` + "\n" +
		`WITH bumped AS (UPDATE devices d SET seq = d.seq + 1, last_ts = :ts` +
		` WHERE :fresh = 1 AND d.account_id = :to_account AND d.revoked_at IS NULL AND d.id <> :from_device RETURNING d.id, d.seq, d.last_ts AS ts), ` +
		queued + `,` +
		` contacted AS (INSERT INTO contacts (account_id, contact_id, since) SELECT :to_account, :from_account, now() WHERE :fresh = 1 ON CONFLICT DO NOTHING),` +
		` woken AS (UPDATE push_subscriptions s SET wake_seq = b.seq FROM bumped b WHERE s.device_id = b.id)` +
		` SELECT count(*) FROM queued;` + "\n" +
		"COMMIT;\n"
}

// splitScenario runs the accept as one statement (pgbenchScript) and as
// one statement per account (splitScript) at 8 and 32 clients, in
// alternating rounds, with the relay stopped.
func (b *bench) splitScenario() ([]result, error) {
	type pair struct{ one, split []pgbenchRun }
	runs := map[int]*pair{}
	counts := []int{8, 32}
	for _, n := range counts {
		if err := b.loadPairs(n); err != nil {
			return nil, err
		}
		runs[n] = &pair{}
		for round := 0; round < b.o.rounds; round++ {
			say("accept as one statement, %d clients, round %d…", n, round+1)
			one, err := b.runPgbench(pgbenchScript(), n, refEnv, 0)
			if err != nil {
				return nil, err
			}
			say("accept as one statement per account, %d clients, round %d…", n, round+1)
			split, err := b.runPgbench(splitScript(), n, refEnv, 0)
			if err != nil {
				return nil, err
			}
			runs[n].one, runs[n].split = append(runs[n].one, one), append(runs[n].split, split)
		}
	}
	var out []result
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{"split", metric, v, unit, note})
	}
	of := b.roundsNote()
	for _, n := range counts {
		one, split := medianRun(runs[n].one), medianRun(runs[n].split)
		add(fmt.Sprintf("one statement, %d clients", n), one.tps, "tx/s", "queue.AcceptSQL, 1 KiB to an account of 3 devices from one of 3; "+of)
		add(fmt.Sprintf("per account, %d clients", n), split.tps, "tx/s", "the same rows in 4 statements and a commit, none touching two accounts; "+of)
		add(fmt.Sprintf("per account ÷ one statement, %d", n), split.tps/one.tps, "ratio", "")
		add(fmt.Sprintf("PostgreSQL CPU per tx, one statement, %d", n), one.cpu.postgres, "ms", fmt.Sprintf("pgbench %.2f", one.cpu.load))
		add(fmt.Sprintf("PostgreSQL CPU per tx, per account, %d", n), split.cpu.postgres, "ms", fmt.Sprintf("pgbench %.2f", split.cpu.load))
		add(fmt.Sprintf("WAL per tx, one statement, %d", n), float64(one.wal)/float64(max(one.tx, 1)), "bytes", "")
		add(fmt.Sprintf("WAL per tx, per account, %d", n), float64(split.wal)/float64(max(split.tx, 1)), "bytes", "")
	}
	return out, nil
}

// medianRun is the run of median throughput.
func medianRun(rs []pgbenchRun) pgbenchRun {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b pgbenchRun) int { return cmp.Compare(a.tps, b.tps) })
	return s[len(s)/2]
}

// loadPairs fills bench_pairs with n pairs of new accounts of three
// devices: client i sends from the first device of row i's first account
// to its second.
func (b *bench) loadPairs(n int) error {
	ctx := context.Background()
	ps, err := b.pairs(n)
	if err != nil {
		return err
	}
	if _, err := b.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_pairs (client_id int PRIMARY KEY,
		from_account bigint, from_device text, from_username text, to_account bigint, to_username text)`); err != nil {
		return err
	}
	if _, err := b.pool.Exec(ctx, `TRUNCATE bench_pairs`); err != nil {
		return err
	}
	for i, p := range ps {
		if _, err := b.pool.Exec(ctx, `INSERT INTO bench_pairs SELECT $1, f.id, $2, f.username, t.id, t.username
			FROM accounts f, accounts t, devices d WHERE d.id = $2 AND f.id = d.account_id AND t.username = $3`,
			i, p.from[0].Device, p.name); err != nil {
			return err
		}
	}
	return nil
}
