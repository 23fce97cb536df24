-- 0011: the decision to push is made from committed state (ADR 0087).
--
-- wake_seq is the seq, in the device's queue, of the newest envelope that
-- should wake the device (a message from another account, not a
-- receipt), written by the accepting statement in the same transaction as
-- the queue row. pushed_seq is the wake_seq that a push, or the device
-- itself, has already answered: once its envelope has left the queue, or
-- once the push service has taken the push. A device is due a push while
-- wake_seq > pushed_seq, that envelope is still queued, it streams
-- nowhere and pushed_at is older than --push-interval; any instance that
-- finds it so, after a crash or a restart too, pushes it. No index: the
-- sweep reads the table as a whole, and an index on these columns would
-- turn every accepting update of the row into a non-HOT one.
ALTER TABLE push_subscriptions
    ADD COLUMN wake_seq bigint NOT NULL DEFAULT 0,
    ADD COLUMN pushed_seq bigint NOT NULL DEFAULT 0;
