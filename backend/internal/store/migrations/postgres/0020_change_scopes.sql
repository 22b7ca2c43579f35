-- Each change notification (0012) names the account whose rows changed: the account's id for
-- an account, its owner for an instance, the owner of its instance for an app install, and
-- nothing for the simulator's settings or a TRUNCATE. The read cache (sqlstore/pgchanges) then
-- drops only that account's entries, so a load of writes to some accounts (every deploy
-- charges its account's balance) leaves every other account's key and instances cached.
-- PostgreSQL folds only identical notifications of a transaction: one that changes several
-- accounts sends one for each.
CREATE OR REPLACE FUNCTION resellerd_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    account BIGINT;
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        IF TG_TABLE_NAME = 'accounts' THEN
            account := OLD.id;
        ELSIF TG_TABLE_NAME = 'instances' THEN
            account := OLD.account_id;
        ELSIF TG_TABLE_NAME = 'app_installs' AND TG_OP = 'DELETE' THEN
            SELECT i.account_id INTO account FROM instances i WHERE i.id = OLD.instance_id;
        ELSIF TG_TABLE_NAME = 'app_installs' THEN
            SELECT i.account_id INTO account FROM instances i WHERE i.id = NEW.instance_id;
        END IF;
    END IF;
    PERFORM pg_notify('resellerd_changes', COALESCE(account::text, ''));
    RETURN NULL;
END
$$;
