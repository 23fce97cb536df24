-- 0015: invite codes, for a relay whose registration is by invite (ADR 0117).
--
-- A code is made by `relay admin invites create` and shown once; the
-- table keeps only its SHA-256, so a copy of the database registers no
-- one. A registration spends one use in the transaction that creates the
-- account, by one UPDATE whose WHERE holds every condition (uses left, not
-- expired): the row lock serialises two registrations with the same code,
-- and the second sees the first's use. The CHECK on used is a net under
-- that statement: a use past the last fails rather than counts.
-- `relay admin invites revoke` deletes the row. No column names an
-- account: which account used which code is not kept.
CREATE TABLE invites (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code_hash  bytea NOT NULL UNIQUE CHECK (octet_length(code_hash) = 32),
    uses       integer NOT NULL CHECK (uses > 0),
    used       integer NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= uses),
    created_at timestamptz NOT NULL,
    -- NULL: the code never expires.
    expires_at timestamptz CHECK (expires_at > created_at)
);
