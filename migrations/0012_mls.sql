-- 0012: the relay's part of MLS (ADR 0099).
--
-- mls_groups orders commits: one row per group that has had a commit, with
-- the epoch its next commit must name. The accept of a commit locks the
-- row, checks the epoch and raises it in the transaction that queues the
-- envelope. A group without a row is at epoch 0. Nothing here names an
-- account or a device: the relay keeps no membership. Rows are never
-- deleted: a group that lost its row would take a second commit at an
-- epoch it already had, which is the fork the table exists to prevent.
CREATE TABLE mls_groups (
    group_id   bytea PRIMARY KEY CHECK (octet_length(group_id) BETWEEN 1 AND 256),
    epoch      bigint NOT NULL CHECK (epoch >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- key_packages holds each device's published MLS key packages, opaque to
-- the relay: one-time ones, handed out once each and deleted as they are
-- claimed, and at most one last-resort one, handed out whenever no
-- one-time one is left and never deleted by a claim. They go with their
-- device: revoked (package lifecycle deletes them), or deleted with its
-- account (the cascade). STORAGE EXTERNAL as for the queue's bodies.
CREATE TABLE key_packages (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device_id   text NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    last_resort boolean NOT NULL,
    data        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE key_packages ALTER COLUMN data SET STORAGE EXTERNAL;
-- A claim takes a device's oldest one-time package; a count reads them all.
CREATE INDEX key_packages_one_time ON key_packages (device_id, id) WHERE NOT last_resort;
CREATE UNIQUE INDEX key_packages_last_resort ON key_packages (device_id) WHERE last_resort;
