-- Servers: orders grow into provisioning jobs, instances, app installs, idempotency keys and the
-- outbox of events.

-- The ledger records debt movements beside balance movements, so that SUM(debt_micros) per
-- account equals accounts.debt_micros just as SUM(amount_micros) equals the balance.
ALTER TABLE ledger ADD COLUMN debt_micros INTEGER NOT NULL DEFAULT 0;

CREATE TABLE instances (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id         INTEGER NOT NULL REFERENCES accounts (id),
    order_id           INTEGER NOT NULL UNIQUE REFERENCES orders (id),
    name               TEXT    NOT NULL,
    note               TEXT    NOT NULL DEFAULT '',
    hostname           TEXT    NOT NULL,
    plan_id            INTEGER NOT NULL,
    template_id        INTEGER NOT NULL,
    datacenter_id      INTEGER NOT NULL,
    location_id        INTEGER NOT NULL,
    features           TEXT    NOT NULL DEFAULT '[]',
    status             TEXT    NOT NULL,
    next_status        TEXT    NOT NULL DEFAULT '',
    next_status_at     TEXT,
    active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    renew              INTEGER NOT NULL DEFAULT 1 CHECK (renew IN (0, 1)),
    locked             INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    lock_reason        TEXT    NOT NULL DEFAULT '',
    locked_at          TEXT,
    machine_ref        TEXT    NOT NULL,
    machine_deleted    INTEGER NOT NULL DEFAULT 0 CHECK (machine_deleted IN (0, 1)),
    ipv4               TEXT    NOT NULL DEFAULT '',
    ipv6               TEXT    NOT NULL DEFAULT '',
    username           TEXT    NOT NULL DEFAULT '',
    password           TEXT    NOT NULL DEFAULT '',
    port               INTEGER NOT NULL DEFAULT 0,
    credentials_at     TEXT    NOT NULL,
    created_at         TEXT    NOT NULL,
    renewal_due        TEXT    NOT NULL,
    expired_at         TEXT,
    cancel_reason      TEXT    NOT NULL DEFAULT '',
    paid_micros        INTEGER NOT NULL DEFAULT 0 CHECK (paid_micros >= 0),
    last_ip_change_at  TEXT,
    traffic_used_gb    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX instances_account ON instances (account_id, active, id);
CREATE INDEX instances_renewal ON instances (active, renewal_due);

ALTER TABLE orders ADD COLUMN plan_id     INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN template_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN snapshot_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN hostname    TEXT    NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN features    TEXT    NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD COLUMN apps        TEXT    NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD COLUMN app_inputs  TEXT    NOT NULL DEFAULT '{}';
-- The datacenter's build ticket; empty until the build was submitted.
ALTER TABLE orders ADD COLUMN ticket      TEXT    NOT NULL DEFAULT '';
-- A worker that claimed the order holds it until lease_until; NULL is unclaimed.
ALTER TABLE orders ADD COLUMN lease_until TEXT;
ALTER TABLE orders ADD COLUMN finished_at TEXT;
ALTER TABLE orders ADD COLUMN instance_id INTEGER REFERENCES instances (id);
ALTER TABLE orders ADD COLUMN reference   TEXT    NOT NULL DEFAULT '';
CREATE INDEX orders_status ON orders (status, id);
CREATE INDEX orders_account_created ON orders (account_id, id);

-- Idempotency keys of POST /instances. The key row commits with the order it created.
CREATE TABLE idempotency_keys (
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,
    order_id     INTEGER NOT NULL REFERENCES orders (id),
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- One-click app installs, worked through in position order per instance.
CREATE TABLE app_installs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    instance_id INTEGER NOT NULL REFERENCES instances (id),
    app_id      TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    status      TEXT    NOT NULL,
    stage       TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    inputs      TEXT    NOT NULL DEFAULT '{}',
    result      TEXT    NOT NULL DEFAULT '{}',
    error       TEXT    NOT NULL DEFAULT '',
    log_tail    TEXT    NOT NULL DEFAULT '',
    queued_at   TEXT    NOT NULL,
    started_at  TEXT,
    finished_at TEXT,
    next_at     TEXT    NOT NULL,
    lease_until TEXT
);
CREATE INDEX app_installs_instance ON app_installs (instance_id, position);
CREATE INDEX app_installs_open ON app_installs (status, instance_id, position);

-- The outbox: every event commits with the change it reports; delivery reads from here.
CREATE TABLE events (
    id         TEXT    PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    name       TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
CREATE INDEX events_account ON events (account_id, created_at);
