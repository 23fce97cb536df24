-- 0009: each device keeps the last ts given to an envelope queued for it
-- (ADR 0085). An envelope's ts is taken under its target devices' row
-- locks and is above each one's last_ts, so that on every device ts order
-- is seq order, which is commit order. Rows still queued set the start;
-- a device with none starts at 0, below any clock.
ALTER TABLE devices ADD COLUMN last_ts bigint NOT NULL DEFAULT 0;
UPDATE devices d SET last_ts = q.ts
FROM (SELECT device_id, max(ts) AS ts FROM queue GROUP BY device_id) q
WHERE d.id = q.device_id;
