-- The operator's audit trail (backend/docs/operating-for-customers.md): one row for each
-- operator command that changed something (account create, topup, rotate-key, block, unblock,
-- verify, set; instance lock and unlock; secrets rotate), written in the change's transaction.
-- before_state and after_state are JSON objects of the fields the command changed, never a
-- secret. account_id and instance_id are 0 when the command has none. The table is
-- append-only: no command or API updates or deletes a row, retention never purges it, and the
-- triggers below refuse an UPDATE, DELETE or TRUNCATE, so not even a mistaken statement can
-- rewrite history.
CREATE TABLE audit_entries (
    id           BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at   TIMESTAMPTZ NOT NULL,
    operator     TEXT        NOT NULL,
    command      TEXT        NOT NULL,
    account_id   BIGINT      NOT NULL DEFAULT 0,
    instance_id  BIGINT      NOT NULL DEFAULT 0,
    reason       TEXT        NOT NULL DEFAULT '',
    before_state TEXT        NOT NULL DEFAULT '{}',
    after_state  TEXT        NOT NULL DEFAULT '{}'
);
-- `resellerd audit --account N` and `--since`.
CREATE INDEX audit_entries_account ON audit_entries (account_id, id);
CREATE INDEX audit_entries_created ON audit_entries (created_at);

CREATE FUNCTION resellerd_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_entries is append-only';
END
$$;
CREATE TRIGGER audit_entries_no_change BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION resellerd_audit_append_only();
CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION resellerd_audit_append_only();
