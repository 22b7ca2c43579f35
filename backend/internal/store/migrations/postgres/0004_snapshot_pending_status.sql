-- Snapshots keep a pending status change like instances (next_status at next_status_at): a
-- restore in progress becomes available at the time busy_until used to hold.

ALTER TABLE snapshots RENAME COLUMN busy_until TO next_status_at;
ALTER TABLE snapshots ADD COLUMN next_status TEXT NOT NULL DEFAULT '';
UPDATE snapshots SET next_status = 'available' WHERE status = 'restoring';
