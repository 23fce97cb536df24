-- 0010: the relay's part of the epoch, the name of the history that every
-- device's seq numbers belong to (ADR 0086, docs/protocol.md "epoch").
-- PostgreSQL tells a new cluster, a promotion and a point-in-time recovery
-- apart by itself; a restore it cannot see is covered by `relay admin
-- new-epoch`, which replaces token. One row, always.
CREATE TABLE relay_epoch (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    token text NOT NULL,
    renewed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO relay_epoch (token) VALUES (gen_random_uuid()::text);
