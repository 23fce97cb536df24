-- 0002: a generation number per device stream, so that relay instances
-- agree which stream of a device is the newest (ADR 0016). Each new stream
-- takes stream_gen + 1; an instance that hears of a higher generation ends
-- its own stream of that device with event: replaced.
ALTER TABLE devices ADD COLUMN stream_gen bigint NOT NULL DEFAULT 0;
