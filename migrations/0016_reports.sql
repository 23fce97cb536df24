-- 0016: reports of a message or a contact to the relay's operator (ADR 0118).
--
-- A report holds what the reporter chose to show the operator, in plain
-- text: the messages as the reporter's client had them, with the sender's
-- username, in the reporter's order. The relay cannot check them (there is
-- no message franking): a report is the reporter's claim. The row names
-- the reporter and the reported account, and goes with either (ON DELETE
-- CASCADE); nothing else about the request is kept: no address, no
-- device. number is what the operator uses (`relay admin reports`);
-- client_id is the report's id chosen by the client, so that a retried
-- report is recognised (UNIQUE with the reporter). A resolved report
-- goes 90 days after resolved_at (housekeeping; resolved_at is indexed
-- for it); an open one stays until it is resolved.
CREATE TABLE reports (
    number      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reporter_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    about_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id   text NOT NULL CHECK (client_id ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'),
    reason      text NOT NULL CHECK (reason IN ('spam', 'harassment', 'illegal', 'other')),
    -- '' when the reporter wrote none.
    comment     text NOT NULL DEFAULT '' CHECK (char_length(comment) <= 1000),
    -- [{"id", "from", "at", "text"}, …], 1 to 50, as validated by the relay.
    messages    jsonb NOT NULL CHECK (jsonb_typeof(messages) = 'array' AND jsonb_array_length(messages) BETWEEN 1 AND 50),
    created_at  timestamptz NOT NULL,
    resolved_at timestamptz,
    -- The operator's, given when resolving; '' when none.
    note        text NOT NULL DEFAULT '',
    UNIQUE (reporter_id, client_id),
    CHECK (reporter_id <> about_id),
    CHECK (note = '' OR resolved_at IS NOT NULL)
);
CREATE INDEX reports_about ON reports (about_id);
CREATE INDEX reports_resolved ON reports (resolved_at) WHERE resolved_at IS NOT NULL;
