-- Machines made real on a host (`--machines sandbox`, package sandbox; backend/docs/machines.md).
-- Each Linux server runs on the replica that built it: its row records that host, and any
-- replica that takes an API call for it asks the host for the change through machine_ops.
-- (SQLite has one process, so every machine is local; the tables are the same as PostgreSQL's.)

-- One row per machine: where it runs and what it is built from. power is what the database
-- says it should be ('online' or 'offline'): a host starting up boots its online machines.
-- password is the build's password, sealed like every password (key: ref). created is set
-- by the host once the machine exists on it.
CREATE TABLE machines (
    ref        TEXT    NOT NULL PRIMARY KEY,
    host       TEXT    NOT NULL,
    cidr       TEXT    NOT NULL,
    ipv4       TEXT    NOT NULL,
    password   TEXT    NOT NULL,
    hostname   TEXT    NOT NULL,
    template   TEXT    NOT NULL,
    cpus       INTEGER NOT NULL,
    memory_mb  INTEGER NOT NULL,
    from_image TEXT    NOT NULL,
    power      TEXT    NOT NULL,
    created    INTEGER NOT NULL DEFAULT 0 CHECK (created IN (0, 1))
);
CREATE INDEX machines_host ON machines (host, ref);

-- A copy of a machine's disk (a snapshot's image), kept on the host of its machine.
CREATE TABLE machine_images (
    image       TEXT    NOT NULL PRIMARY KEY,
    snapshot_id INTEGER NOT NULL,
    ref         TEXT    NOT NULL,
    host        TEXT    NOT NULL,
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    failed      INTEGER NOT NULL DEFAULT 0 CHECK (failed IN (0, 1)),
    size_bytes  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX machine_images_snapshot ON machine_images (snapshot_id);

-- The changes asked of a host, in the order asked (seq). A host's reconciler reads only its
-- pending ones, through the partial index, so its work per pass does not grow with the rows
-- ever stored; it deletes each once applied, unless a caller waits for its result (status
-- 'done' or 'failed', result and exit_code), which that caller deletes once read. args and
-- result are sealed (key: id): they carry passwords and app inputs.
CREATE TABLE machine_ops (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT    NOT NULL UNIQUE,
    host      TEXT    NOT NULL,
    ref       TEXT    NOT NULL,
    kind      TEXT    NOT NULL,
    args      TEXT    NOT NULL DEFAULT '{}',
    wait      INTEGER NOT NULL DEFAULT 0 CHECK (wait IN (0, 1)),
    status    TEXT    NOT NULL DEFAULT 'pending',
    result    TEXT    NOT NULL DEFAULT '',
    exit_code INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX machine_ops_pending ON machine_ops (host, seq) WHERE status = 'pending';
