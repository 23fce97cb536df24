-- 0006: Web Push as a signal (ADR 0055, ADR 0056).
--
-- push_vapid holds the relay's one VAPID key pair (RFC 8292), made at the
-- first start: the push services know the relay by its public key, so it
-- must outlive restarts and be the same on every instance.
CREATE TABLE push_vapid (
    id          int PRIMARY KEY CHECK (id = 1),
    private_key text NOT NULL,
    public_key  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One push subscription per device (RFC 8030 endpoint, RFC 8291 keys).
-- Revoking a device deletes its row in the revoking transaction; deleting
-- the device row (30 days later) would cascade anyway. pushed_at is when
-- the last push to it was claimed, by any instance: at most one per
-- --push-interval.
CREATE TABLE push_subscriptions (
    device_id  text PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
    endpoint   text NOT NULL,
    p256dh     bytea NOT NULL,
    auth       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    pushed_at  timestamptz
);

-- Which instance holds each device's open stream (NULL: none), set with
-- stream_gen when a stream opens and cleared when it ends; an instance
-- that has not been seen recently holds none (ADR 0055).
ALTER TABLE devices ADD COLUMN stream_instance text;

CREATE TABLE relay_instances (
    id      text PRIMARY KEY,
    seen_at timestamptz NOT NULL
);
