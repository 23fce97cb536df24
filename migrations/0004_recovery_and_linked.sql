-- 0004: the account's recovery blob and whether each device holds the
-- account key (docs/protocol.md, "PUT /api/recovery" and "GET
-- /api/devices"). The blob is opaque to the relay: the account private key
-- wrapped under a key derived from a 160-bit recovery key that only the
-- account's owner has (ADR 0043). Every device live before this step was
-- created as an account's first device or by linking, so it holds the key.
ALTER TABLE accounts
    ADD COLUMN recovery_blob bytea NULL,
    ADD COLUMN recovery_updated_at timestamptz NULL;
ALTER TABLE devices ADD COLUMN linked boolean NOT NULL DEFAULT false;
UPDATE devices SET linked = true WHERE revoked_at IS NULL;
