package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"relay/queue"
)

// The groups scenario's references: pgbench running the relay's accept
// statement for a list envelope at the scenario's concurrency, and what
// storing the body once per envelope would save (ADR 0076) at its
// fan-outs, from the bytes a fixed number of accepted messages write.

// groupStoreCopies is about how many copies each storage measurement
// queues: enough that a checkpoint's full-page images and autovacuum's
// writes are a small part of what is measured, few enough to take
// seconds.
const groupStoreCopies = 20000

// groupRef is what the references of one group size measured.
type groupRef struct {
	tps        float64 // pgbench of the list accept, groupSenders clients, one phase
	full, once groupStore
}

// groupStore is what a fixed number of accepted messages wrote, per
// message.
type groupStore struct {
	msgs   int
	wal    float64 // WAL bytes, the whole cluster's
	stored float64 // bytes of the tables the messages are in: the queue's (heap, indexes, TOAST), and the bodies' table with the body once
	bodies float64 // bytes of bodies in them
	cpu    cpuUse  // per message
}

// groupSendersSQL is the table a pgbench client takes its senders from,
// a row per turn (groupTurn): a member's device, the "to" list of its
// group and its key, and the target accounts with the "to" of their
// copies, in AcceptSQL's form ($7 and $11: the listed accounts, then the
// sender's).
const groupSendersSQL = `CREATE TABLE IF NOT EXISTS bench_group_senders (sender int PRIMARY KEY,
	from_account bigint, from_device text, from_username text, list_key text, accounts bigint[], tos text[]);
CREATE TABLE IF NOT EXISTS bench_bodies (envelope_id text PRIMARY KEY, body bytea NOT NULL);
ALTER TABLE bench_bodies ALTER COLUMN body SET STORAGE EXTERNAL`

// groupScript is a pgbench script of a message to a group: the relay's
// accept of a list envelope (queue.AcceptSQL) with a body of the
// client-like size, from the sender of the client's next turn in
// bench_group_senders, which has turns rows. As the scenario's senders
// do, client c takes turns c, c + groupSenders, c + 2*groupSenders, …,
// counted in the variable j, which pgbench keeps from one transaction to
// the next (pgbenchGroupVars starts it). With once it
// simulates ADR 0076's body stored once per envelope: the body goes once
// into bench_bodies, in the same transaction, and every copy's body is
// empty. The simulation leaves out what releasing a shared body needs
// (ADR 0076: an index on the copies' reference, and a lock at each ACK),
// so what it saves is an upper bound.
func groupScript(turns int, once bool) string {
	body := pgbenchBody(clientBodySize)
	prelude := fmt.Sprintf(`\set n (:client_id + %d * :j) %% %d`, groupSenders, turns) + "\n" + `\set j :j + 1` + "\n" +
		`SELECT from_account, from_device, from_username, list_key, accounts, tos, md5(random()::text || clock_timestamp()::text) AS eid FROM bench_group_senders WHERE sender = :n \gset` + "\n"
	copies := body
	if once {
		prelude += "BEGIN;\nINSERT INTO bench_bodies (envelope_id, body) VALUES (:eid, " + body + ");\n"
		copies = "''::bytea"
	}
	s := acceptScript(prelude, []string{":from_account", ":eid", ":list_key", "sha256(" + body + ")", pgbenchTS,
		"now() + interval '6 minutes'", ":accounts::bigint[]", ":from_device", ":from_username", copies, ":tos::text[]", "now()",
		"true"}) // $13: a message to other accounts wakes their devices
	if once {
		s += "COMMIT;\n"
	}
	return s
}

// pgbenchGroupVars are groupScript's variables as pgbench starts them.
var pgbenchGroupVars = []string{"j=0"}

// fillGroupSenders writes bench_group_senders for groups of size: one row
// per turn, as many as the members have devices.
func (b *bench) fillGroupSenders(t *groupTopology, size int) error {
	ctx := context.Background()
	if _, err := b.pool.Exec(ctx, groupSendersSQL); err != nil {
		return err
	}
	ids := map[string]int64{}
	rows, err := b.pool.Query(ctx, `SELECT username, id FROM accounts WHERE username = ANY ($1)`, t.names)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			return err
		}
		ids[name] = id
	}
	if err := rows.Err(); err != nil {
		return err
	}
	batch := &pgx.Batch{}
	batch.Queue(`TRUNCATE bench_group_senders`)
	members := len(t.names)
	for n := 0; n < members*groupDevices; n++ {
		m, k := groupTurn(members, size, n)
		name, list := t.names[m], groupList(t.names, size, m)
		accounts := make([]int64, 0, len(list)+1)
		for _, l := range list {
			accounts = append(accounts, ids[l])
		}
		accounts = append(accounts, ids[name])
		tos := append(append([]string(nil), list...), name)
		batch.Queue(`INSERT INTO bench_group_senders VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			n, ids[name], t.members[m][k].Device, name, queue.ListKey(list), accounts, tos)
	}
	return b.pool.SendBatch(ctx, batch).Close()
}

// groupReference runs the references of groups of size: pgbench of the
// list accept for one phase, then the storage of the body as the relay
// keeps it and once per envelope.
func (b *bench) groupReference(t *groupTopology, size int) (groupRef, error) {
	say("groups of %d: pgbench of the list accept, %d clients…", size, groupSenders)
	if err := b.fillGroupSenders(t, size); err != nil {
		return groupRef{}, err
	}
	turns := groupMembers * groupDevices
	run, err := b.runPgbench(groupScript(turns, false), groupSenders, refEnv, 0, pgbenchGroupVars...)
	if err != nil {
		return groupRef{}, err
	}
	ref := groupRef{tps: run.tps}
	count := max(1, groupStoreCopies/(groupCopies(size)*groupSenders))
	say("groups of %d: the bytes of %d messages, body per copy and once…", size, count*groupSenders)
	if ref.full, err = b.groupStore(groupScript(turns, false), count); err != nil {
		return groupRef{}, err
	}
	if ref.once, err = b.groupStore(groupScript(turns, true), count); err != nil {
		return groupRef{}, err
	}
	return ref, nil
}

// groupStore runs script for count messages per pgbench client on empty
// tables, after a checkpoint, and measures what they wrote. The queue is
// emptied before and after: no device will ACK what pgbench queued, and
// the phases' streams must not replay it.
func (b *bench) groupStore(script string, count int) (groupStore, error) {
	ctx := context.Background()
	if _, err := b.pool.Exec(ctx, `TRUNCATE queue, bench_bodies`); err != nil {
		return groupStore{}, err
	}
	// Each run starts from a checkpoint, so that both write the same
	// full-page images: the first change of each page after one. It
	// needs a superuser (or pg_checkpoint); without one the runs are
	// compared as they come.
	if _, err := b.pool.Exec(ctx, `CHECKPOINT`); err != nil {
		say("no checkpoint before the storage measurement: %v", err)
	}
	run, err := b.runPgbench(script, groupSenders, refEnv, count, pgbenchGroupVars...)
	if err != nil {
		return groupStore{}, err
	}
	var stored, bodies int64
	if err := b.pool.QueryRow(ctx, `SELECT pg_total_relation_size('queue') + pg_total_relation_size('bench_bodies'),
		(SELECT coalesce(sum(octet_length(body)), 0) FROM queue) + (SELECT coalesce(sum(octet_length(body)), 0) FROM bench_bodies)`).Scan(&stored, &bodies); err != nil {
		return groupStore{}, err
	}
	if _, err := b.pool.Exec(ctx, `TRUNCATE queue, bench_bodies`); err != nil {
		return groupStore{}, err
	}
	n := float64(run.tx)
	return groupStore{msgs: run.tx, wal: float64(run.wal) / n, stored: float64(stored) / n, bodies: float64(bodies) / n, cpu: run.cpu}, nil
}

// storageLines adds ADR 0076's figures for groups of size: the bytes a
// message writes with a body per copy, as the relay stores it, and once
// per envelope, simulated.
func (b *bench) storageLines(out *[]result, what string, size int, ref groupRef, rl phaseResult) {
	add := func(metric string, v float64, unit, note string) {
		*out = append(*out, result{"groups", metric, v, unit, note})
	}
	kib := func(n float64) float64 { return n / 1024 }
	saved := func(full, once float64) float64 { return 100 * (1 - once/full) }
	add(what+": WAL per message, relay", kib(rl.walPerMsg), "KiB", "accept, delivery and ACKs; the cluster's WAL over the phase")
	add(what+": WAL per message, accept", kib(ref.full.wal), "KiB",
		fmt.Sprintf("pgbench, %d messages of %d copies from a checkpoint", ref.full.msgs, groupCopies(size)))
	add(what+": WAL per message, body once", kib(ref.once.wal), "KiB", "simulated (ADR 0076): empty copies, the body in a table of its own")
	add(what+": body once saves, WAL", saved(ref.full.wal, ref.once.wal), "%",
		fmt.Sprintf("of the accept's; %.1f KiB a message, against %.1f KiB the relay wrote", kib(ref.full.wal-ref.once.wal), kib(rl.walPerMsg)))
	add(what+": stored per message", kib(ref.full.stored), "KiB", fmt.Sprintf("queue table, heap, indexes and TOAST; of which bodies %.1f KiB", kib(ref.full.bodies)))
	add(what+": stored per message, body once", kib(ref.once.stored), "KiB", fmt.Sprintf("queue and bodies' tables; of which bodies %.1f KiB", kib(ref.once.bodies)))
	add(what+": body once saves, stored", saved(ref.full.stored, ref.once.stored), "%", "an upper bound: no index or count to release a body")
	add(what+": PostgreSQL CPU per accept", ref.full.cpu.postgres, "ms", fmt.Sprintf("body per copy; %.2f ms once (the same pgbench runs)", ref.once.cpu.postgres))
}
