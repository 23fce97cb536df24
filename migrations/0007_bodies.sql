-- 0007: the body once per envelope (ADR 0076). An envelope to an account
-- of three devices from a sender with three waited in five queue rows,
-- each with its own copy of the ciphertext; now the envelope is one row of
-- bodies and each device's queue row points at it.
--
-- A body lives exactly as long as a queue row references it: the trigger
-- below deletes it in the transaction that deletes its last queue row,
-- whatever deleted it (ACK, revocation, purge, account deletion, a device
-- row's cascade). Its ciphertext is stored uncompressed for the same reason
-- as before (0001): a byte search of the data directory sees what the
-- client sent.
CREATE TABLE bodies (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    envelope_id   text NOT NULL,
    from_username text NOT NULL,
    from_device   text NOT NULL,
    to_username   text NOT NULL,
    ts            bigint NOT NULL,
    body          bytea NOT NULL
);
ALTER TABLE bodies ALTER COLUMN body SET STORAGE EXTERNAL;

-- The rows already queued: one body per distinct envelope, then the queue
-- table rebuilt around it. The old table is dropped rather than altered,
-- because a dropped column stays on disk until the table is rewritten.
INSERT INTO bodies (envelope_id, from_username, from_device, to_username, ts, body)
SELECT DISTINCT envelope_id, from_username, from_device, to_username, ts, body FROM queue;

ALTER TABLE queue RENAME TO queue_0006;
ALTER INDEX queue_pkey RENAME TO queue_0006_pkey;
ALTER TABLE queue_0006 RENAME CONSTRAINT queue_device_id_fkey TO queue_0006_device_id_fkey;

CREATE TABLE queue (
    device_id text NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    seq       bigint NOT NULL,
    body_id   bigint NOT NULL,
    PRIMARY KEY (device_id, seq)
);
INSERT INTO queue (device_id, seq, body_id)
SELECT q.device_id, q.seq, b.id FROM queue_0006 q JOIN bodies b
    ON (b.envelope_id, b.from_username, b.from_device, b.to_username, b.ts, b.body)
     = (q.envelope_id, q.from_username, q.from_device, q.to_username, q.ts, q.body);
DROP TABLE queue_0006;

-- What the release below looks up for each body a deletion touched.
CREATE INDEX queue_body ON queue (body_id);

-- release_bodies deletes the bodies that the deleted queue rows referenced
-- and no queue row references any more. Two transactions that each delete
-- one of a body's last two rows would each still see the other's row and
-- keep the body, so each first locks the bodies it touches, in id order
-- (no deadlock between two releases): the second waits for the first to
-- commit, and its next statement, with a new snapshot, sees both rows gone.
CREATE FUNCTION release_bodies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM bodies WHERE id IN (SELECT body_id FROM gone) ORDER BY id FOR UPDATE;
    DELETE FROM bodies b WHERE b.id IN (SELECT body_id FROM gone)
        AND NOT EXISTS (SELECT 1 FROM queue q WHERE q.body_id = b.id);
    RETURN NULL;
END
$$;
CREATE TRIGGER queue_release AFTER DELETE ON queue
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION release_bodies();
