-- 0008: autovacuum never truncates the queue table (ADR 0083). Rows are
-- deleted moments after they are written, so its last pages are often
-- empty when a vacuum ends, and truncating them takes the table's ACCESS
-- EXCLUSIVE lock, which holds up every accept, stream read and ACK while
-- the vacuum scans back over them. The space stays and is written again.
ALTER TABLE queue SET (vacuum_truncate = false);
