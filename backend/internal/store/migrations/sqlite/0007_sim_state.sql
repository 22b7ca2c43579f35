-- The simulated datacenter's state, shared by every replica of one database so that a client
-- gets the same answer whichever replica serves it (backend/README.md, "What the replicas
-- share"). Builds and images need no table: their fate is written in their tickets.

-- Per machine: the last power status the datacenter reports ('' before any) and the root
-- password changed out of band ('' when the stored one works). A deleted machine's row goes.
CREATE TABLE sim_machines (
    ref      TEXT NOT NULL PRIMARY KEY,
    power    TEXT NOT NULL,
    password TEXT NOT NULL
);

-- Per datacenter: the clean addresses taken and not yet back, since when the refill clock runs
-- (NULL before the first take), and how many addresses were handed out (the next address).
-- A take reads and writes the row under a row lock, so replicas draw from one pool.
CREATE TABLE sim_ip_pools (
    datacenter_id INTEGER NOT NULL PRIMARY KEY,
    taken         INTEGER NOT NULL,
    since         TEXT,
    issued        INTEGER NOT NULL
);

-- One row: the share of builds, images and operations that fail. `serve --fail-rate` writes it
-- at start and Server.SetFailRate changes it, for every replica.
CREATE TABLE sim_settings (
    id        INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    fail_rate REAL NOT NULL CHECK (fail_rate >= 0 AND fail_rate <= 1)
);

INSERT INTO sim_settings (id, fail_rate) VALUES (1, 0);
