-- Snapshots and webhooks: snapshots of instances billed hourly by size, one webhook registration
-- per account, the delivery of each outbox event, and the low-balance alerts already sent.

CREATE TABLE snapshots (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL REFERENCES accounts (id),
    instance_id     INTEGER NOT NULL REFERENCES instances (id),
    name            TEXT    NOT NULL,
    note            TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    -- A restore in progress (status restoring) settles at busy_until.
    busy_until      TEXT,
    locked          INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    lock_reason     TEXT    NOT NULL DEFAULT '',
    locked_at       TEXT,
    size_gb         INTEGER NOT NULL DEFAULT 0 CHECK (size_gb >= 0),
    price_micros    INTEGER NOT NULL DEFAULT 0 CHECK (price_micros >= 0),
    accrued_micros  INTEGER NOT NULL DEFAULT 0 CHECK (accrued_micros >= 0),
    paid_micros     INTEGER NOT NULL DEFAULT 0 CHECK (paid_micros >= 0),
    -- The next hour to account; NULL while the snapshot is not billed.
    renewal_due     TEXT,
    created_at      TEXT    NOT NULL,
    available_at    TEXT,
    expired_at      TEXT,
    datacenter_id   INTEGER NOT NULL,
    location_id     INTEGER NOT NULL,
    template_id     INTEGER NOT NULL,
    plan_id         INTEGER NOT NULL,
    os_type         TEXT    NOT NULL,
    architecture    TEXT    NOT NULL,
    source_name     TEXT    NOT NULL,
    features        TEXT    NOT NULL DEFAULT '[]',
    local           INTEGER NOT NULL DEFAULT 0 CHECK (local IN (0, 1)),
    -- The credentials the image holds: a restore or a clone gets them.
    username        TEXT    NOT NULL DEFAULT '',
    password        TEXT    NOT NULL DEFAULT '',
    port            INTEGER NOT NULL DEFAULT 0,
    -- The datacenter's id of the image, set when the image was started.
    image_ref       TEXT    NOT NULL DEFAULT '',
    image_deleted   INTEGER NOT NULL DEFAULT 0 CHECK (image_deleted IN (0, 1))
);
CREATE INDEX snapshots_account ON snapshots (account_id, id);
CREATE INDEX snapshots_instance ON snapshots (instance_id, id);
CREATE INDEX snapshots_status ON snapshots (status, renewal_due);

-- One webhook per account. The secret signs deliveries, so it is kept as it was sent; it is
-- never returned by the API.
CREATE TABLE webhooks (
    account_id  INTEGER PRIMARY KEY REFERENCES accounts (id),
    url         TEXT    NOT NULL,
    secret      TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

-- The delivery of one outbox event to the account's webhook. body is the exact request body,
-- fixed when the event is written so every attempt sends the same bytes.
CREATE TABLE deliveries (
    id           TEXT    PRIMARY KEY,
    event_id     TEXT    NOT NULL UNIQUE REFERENCES events (id),
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    event        TEXT    NOT NULL,
    body         BLOB    NOT NULL,
    status       TEXT    NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      TEXT    NOT NULL,
    lease_until  TEXT,
    last_status  INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT    NOT NULL DEFAULT '',
    created_at   TEXT    NOT NULL,
    finished_at  TEXT
);
CREATE INDEX deliveries_due ON deliveries (status, next_at);
CREATE INDEX deliveries_account ON deliveries (account_id, created_at);

-- The lowest balance.low threshold (hours) already announced; 0 when none is.
ALTER TABLE accounts ADD COLUMN low_balance_alert INTEGER NOT NULL DEFAULT 0;
