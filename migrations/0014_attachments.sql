-- 0014: attachments, stored as opaque parts (ADR 0107).
--
-- An attachment is ciphertext the client encrypted under a key the relay
-- never sees; to the relay it is a size and parts of bytes. The id is 16
-- random bytes the relay draws, known to the uploading account and to
-- whoever it sends the id to inside an end-to-end encrypted message. The
-- row names the uploading account, for its quota, its deletion and its
-- account's deletion (ON DELETE CASCADE); no column holds a name, a type
-- or a dimension. An attachment is readable once finished, until
-- expires_at (an unfinished one's upload window, then the retention of a
-- finished one); the purge deletes expired rows, and their parts with them.
CREATE TABLE attachments (
    id          bytea PRIMARY KEY CHECK (octet_length(id) = 16),
    account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    size        bigint NOT NULL CHECK (size > 0),
    part_size   integer NOT NULL CHECK (part_size > 0),
    created_at  timestamptz NOT NULL,
    finished_at timestamptz,
    expires_at  timestamptz NOT NULL,
    -- Whether the uploader listed the devices it is for when it finished
    -- it: then it goes once each has fetched it (attachment_fetches).
    listed      boolean NOT NULL DEFAULT false
);
CREATE INDEX attachments_account ON attachments (account_id);
CREATE INDEX attachments_expires ON attachments (expires_at);

-- Part n holds bytes [n × part_size, min(size, (n+1) × part_size)) of the
-- attachment. STORAGE EXTERNAL as for the queue's bodies: ciphertext does
-- not compress, a range is read without reading the whole part, and a
-- byte search of the data directory sees exactly what the client sent.
CREATE TABLE attachment_parts (
    attachment_id bytea NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    n             integer NOT NULL CHECK (n >= 0),
    data          bytea NOT NULL CHECK (octet_length(data) > 0),
    PRIMARY KEY (attachment_id, n)
);
ALTER TABLE attachment_parts ALTER COLUMN data SET STORAGE EXTERNAL;

-- The devices a finished attachment waits for: those of the accounts its
-- uploader named, and the uploader's other devices, as they were when it
-- was finished. A row goes when its device has downloaded the attachment
-- to its last byte, and with its device; the attachment goes when none of
-- its rows names a live device.
CREATE TABLE attachment_fetches (
    attachment_id bytea NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    device_id     text NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    PRIMARY KEY (attachment_id, device_id)
);
CREATE INDEX attachment_fetches_device ON attachment_fetches (device_id);
