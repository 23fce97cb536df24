-- 0001: accounts, sessions, devices, contacts, per-device queues and the
-- idempotency record of accepted sends. See docs/adr for the reasoning.

CREATE TABLE accounts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username      text NOT NULL UNIQUE,
    password_hash text NOT NULL,
    public_key    bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Only a SHA-256 of the session token is stored: a copy of this table does
-- not let anyone log in.
CREATE TABLE sessions (
    token_hash bytea PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- seq is the last sequence number handed out for this device's queue. It is
-- only ever advanced by UPDATE ... SET seq = seq + 1 while the row is locked,
-- inside the transaction that inserts the queue row (ADR 0002).
CREATE TABLE devices (
    id           text PRIMARY KEY,
    account_id   bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         text NOT NULL,
    public_key   bytea NOT NULL,
    seq          bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX devices_account ON devices (account_id) WHERE revoked_at IS NULL;

CREATE TABLE contacts (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    contact_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    since      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, contact_id)
);

-- One row per (device, envelope) until the device ACKs it. body is opaque
-- ciphertext; STORAGE EXTERNAL keeps PostgreSQL from compressing it, so a
-- byte search of the data directory sees exactly what the client sent.
CREATE TABLE queue (
    device_id     text NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    seq           bigint NOT NULL,
    envelope_id   text NOT NULL,
    from_username text NOT NULL,
    from_device   text NOT NULL,
    to_username   text NOT NULL,
    ts            bigint NOT NULL,
    body          bytea NOT NULL,
    PRIMARY KEY (device_id, seq)
);
ALTER TABLE queue ALTER COLUMN body SET STORAGE EXTERNAL;

-- The idempotency record of every accepted envelope, kept while a resend of
-- the same id could still pass the clock-skew check (ADR 0003). It holds a
-- hash of the body, not the body.
CREATE TABLE sent (
    account_id   bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    envelope_id  text NOT NULL,
    to_username  text NOT NULL,
    body_sha256  bytea NOT NULL,
    ts           bigint NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (account_id, envelope_id)
);
CREATE INDEX sent_expires_at ON sent (expires_at);
