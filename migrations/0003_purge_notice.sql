-- 0003: what the relay deleted from a device's queue without delivery
-- (envelopes past the age or size limit), so that the device's next
-- stream tells it (docs/protocol.md, event "purged"). purged_seq is the
-- highest seq deleted that way; 0 when the device has nothing to learn.
ALTER TABLE devices
    ADD COLUMN purged_seq bigint NOT NULL DEFAULT 0,
    ADD COLUMN purged_reason text NOT NULL DEFAULT '';
