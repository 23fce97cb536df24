-- 0007: the queue's rows no longer reference their device row through a
-- foreign key (ADR 0081). The check ran once per queue row, five times
-- per envelope, for a row the accepting statement has just locked FOR
-- UPDATE and found live. What the key's ON DELETE CASCADE did is done by
-- the code that deletes devices: revocation drops the device's queue in
-- its transaction, and account deletion deletes its devices' queues after
-- their rows, when no accept can still write to them.
ALTER TABLE queue DROP CONSTRAINT queue_device_id_fkey;
