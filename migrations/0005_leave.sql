-- 0005: accounts an operator disabled, and the usernames of deleted
-- accounts held back from new registrations (docs/protocol.md, "DELETE
-- /api/account"; ADR 0059). A held name is kept as its SHA-256 only, so
-- the table answers "is this name held?" without listing the names; a
-- username is short and guessable, so the hash hides it from a reader of
-- the files, not from someone who tries names.
ALTER TABLE accounts ADD COLUMN disabled_at timestamptz NULL;

CREATE TABLE held_names (
    name_sha256 bytea PRIMARY KEY,
    held_until  timestamptz NOT NULL
);
CREATE INDEX held_names_held_until ON held_names (held_until);
