-- Secrets sealed at rest (package secrets; backend/README.md, "Sharing resellerd safely").
-- One row: a known text sealed with the first key of --secrets-key-file when a key first
-- opened the database. A start whose key file has no key that opens it is refused before
-- anything is read or written, and so is a start without a key once it exists.
-- `resellerd secrets rotate` seals it again last, after every value.
CREATE TABLE secrets_canary (
    id     INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    sealed TEXT    NOT NULL
);

-- The JSON columns that hold secrets (orders.app_inputs, app_installs.inputs and result) are
-- TEXT already here; PostgreSQL's become TEXT in this version, as a sealed value is not JSON.

-- A plain value stored before that starts like a sealed value ('enc:') or an escaped one
-- ('plain:') is escaped, so it reads back as itself (only webhook secrets, which clients
-- choose, could).
UPDATE webhooks SET secret = 'plain:' || secret
    WHERE substr(secret, 1, 4) = 'enc:' OR substr(secret, 1, 6) = 'plain:';
UPDATE instances SET password = 'plain:' || password
    WHERE substr(password, 1, 4) = 'enc:' OR substr(password, 1, 6) = 'plain:';
UPDATE snapshots SET password = 'plain:' || password
    WHERE substr(password, 1, 4) = 'enc:' OR substr(password, 1, 6) = 'plain:';
UPDATE sim_machines SET password = 'plain:' || password
    WHERE substr(password, 1, 4) = 'enc:' OR substr(password, 1, 6) = 'plain:';

-- App inputs are kept only until their install has finished (installed, or failed for good)
-- or their order ended without a server: those of before go now.
UPDATE app_installs SET inputs = '{}' WHERE status IN ('installed', 'failed');
UPDATE orders SET app_inputs = '{}' WHERE status <> 'pending';
