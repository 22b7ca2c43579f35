-- The operator's audit trail (backend/docs/operating-for-customers.md): one row for each
-- operator command that changed something (account create, topup, rotate-key, block, unblock,
-- verify, set; instance lock and unlock; secrets rotate), written in the change's transaction.
-- before_state and after_state are JSON objects of the fields the command changed, never a
-- secret. account_id and instance_id are 0 when the command has none. The table is
-- append-only: no command or API updates or deletes a row, retention never purges it, and the
-- triggers below refuse both, so not even a mistaken statement can rewrite history.
CREATE TABLE audit_entries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at   TEXT    NOT NULL,
    operator     TEXT    NOT NULL,
    command      TEXT    NOT NULL,
    account_id   INTEGER NOT NULL DEFAULT 0,
    instance_id  INTEGER NOT NULL DEFAULT 0,
    reason       TEXT    NOT NULL DEFAULT '',
    before_state TEXT    NOT NULL DEFAULT '{}',
    after_state  TEXT    NOT NULL DEFAULT '{}'
);
-- `resellerd audit --account N` and `--since`.
CREATE INDEX audit_entries_account ON audit_entries (account_id, id);
CREATE INDEX audit_entries_created ON audit_entries (created_at);

CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
BEGIN
    SELECT RAISE(ABORT, 'audit_entries is append-only');
END;
CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
BEGIN
    SELECT RAISE(ABORT, 'audit_entries is append-only');
END;
