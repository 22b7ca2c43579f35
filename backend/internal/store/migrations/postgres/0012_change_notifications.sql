-- The read cache of a PostgreSQL store (sqlstore/pgchanges) hears of every change to the rows
-- it may keep, by whichever process makes it: each such transaction notifies the channel
-- resellerd_changes once at its commit (PostgreSQL folds a transaction's identical
-- notifications into one). Those rows are an account's columns that sqlstore reads
-- (accountColumns; not its counters, which every order moves and no cached read returns),
-- instances, app installs and the simulator's fail rate. A new instance needs no
-- notification: nothing is kept for a row not found.
CREATE FUNCTION resellerd_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('resellerd_changes', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER accounts_notify_change
    AFTER UPDATE OF key_hash, key_hint, key_created_at, server_limit, order_limit, language, blocked,
        kyc_verified, apps_enabled, balance_micros, debt_micros, created_at, low_balance_alert
        OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER instances_notify_change AFTER UPDATE OR DELETE ON instances
    FOR EACH ROW EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER app_installs_notify_change AFTER INSERT OR UPDATE OR DELETE ON app_installs
    FOR EACH ROW EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER sim_settings_notify_change AFTER UPDATE ON sim_settings
    FOR EACH ROW EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER accounts_notify_truncate AFTER TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER instances_notify_truncate AFTER TRUNCATE ON instances
    FOR EACH STATEMENT EXECUTE FUNCTION resellerd_notify_change();
CREATE TRIGGER app_installs_notify_truncate AFTER TRUNCATE ON app_installs
    FOR EACH STATEMENT EXECUTE FUNCTION resellerd_notify_change();
