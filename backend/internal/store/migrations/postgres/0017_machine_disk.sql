-- A machine's disk is a filesystem of its plan's size (issue 40; backend/docs/machines.md): the
-- plan's disk_gb, kept with the machine as its cpus and memory_mb are. 0 for the machines built
-- before: their disks keep no size of their own until a rebuild or restore gives them a new one.
ALTER TABLE machines ADD COLUMN disk_gb INTEGER NOT NULL DEFAULT 0;
