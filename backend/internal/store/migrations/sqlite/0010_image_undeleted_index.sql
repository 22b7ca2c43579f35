-- The housekeeping queue of images to delete, found through its partial index. The index of
-- 0005 was on (id) alone, and the queue's query names the ended statuses, so SQLite's planner
-- took snapshots_status instead and walked every ended snapshot in history on each look at the
-- queue. Leading with status, the partial index is the better match for the same condition.
DROP INDEX snapshots_image_undeleted;
CREATE INDEX snapshots_image_undeleted ON snapshots (status, id)
    WHERE status IN ('deleted', 'expired', 'failed') AND image_ref != '' AND NOT image_deleted;
