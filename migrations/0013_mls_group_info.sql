-- 0013: the latest GroupInfo of each MLS group, for external joins (ADR 0101).
--
-- One row per group: the epoch of the GroupInfo and its bytes, encrypted by
-- the members under a key the relay does not have, so opaque to it. No
-- column names an account or a device, and the row keeps no author: the
-- id is 32 random bytes known to the members (and to the relay, from the
-- commits' headers). A row goes when nobody has stored it for longer than
-- the queue's retention (the relay's purge, every --purge-interval), which
-- is why updated_at is indexed. STORAGE EXTERNAL as for the queue's bodies:
-- ciphertext does not compress, and a byte search of the data directory
-- should see exactly what the clients sent.
CREATE TABLE mls_group_info (
    group_id   bytea PRIMARY KEY CHECK (octet_length(group_id) = 32),
    epoch      bigint NOT NULL CHECK (epoch >= 0),
    info       bytea NOT NULL CHECK (octet_length(info) BETWEEN 1 AND 65536),
    updated_at timestamptz NOT NULL
);
ALTER TABLE mls_group_info ALTER COLUMN info SET STORAGE EXTERNAL;
CREATE INDEX mls_group_info_updated ON mls_group_info (updated_at);
