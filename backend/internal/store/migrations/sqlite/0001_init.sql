-- Accounts and their wallets. Only the SHA-256 hash of the API key is stored.
CREATE TABLE accounts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    key_hash        BLOB    NOT NULL UNIQUE,
    key_hint        TEXT    NOT NULL,
    key_created_at  TEXT    NOT NULL,
    server_limit    INTEGER NOT NULL CHECK (server_limit >= 0),
    order_limit     INTEGER NOT NULL CHECK (order_limit >= 0),
    language        TEXT    NOT NULL CHECK (language IN ('fa', 'en')),
    blocked         INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
    kyc_verified    INTEGER NOT NULL DEFAULT 0 CHECK (kyc_verified IN (0, 1)),
    apps_enabled    INTEGER NOT NULL DEFAULT 1 CHECK (apps_enabled IN (0, 1)),
    balance_micros  INTEGER NOT NULL DEFAULT 0,
    debt_micros     INTEGER NOT NULL DEFAULT 0 CHECK (debt_micros >= 0),
    created_at      TEXT    NOT NULL
);

-- Top-ups credited to a wallet.
CREATE TABLE payments (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    amount_micros INTEGER NOT NULL CHECK (amount_micros > 0),
    payment_type  TEXT    NOT NULL,
    paid_at       TEXT    NOT NULL
);
CREATE INDEX payments_account_paid ON payments (account_id, paid_at DESC, id DESC);

-- Every movement of a balance; SUM(amount_micros) per account equals accounts.balance_micros.
CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    amount_micros INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    reference     TEXT    NOT NULL DEFAULT '',
    created_at    TEXT    NOT NULL
);
CREATE INDEX ledger_account ON ledger (account_id, id);

-- API orders; the servers issue extends this table.
CREATE TABLE orders (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    status       TEXT    NOT NULL,
    price_micros INTEGER NOT NULL CHECK (price_micros >= 0),
    created_at   TEXT    NOT NULL
);
CREATE INDEX orders_account_status ON orders (account_id, status);
