-- Work proportional to what is due (issue 8).
--
-- wallet_seq counts the changes to what an account's hours_until_balance_zero depends on (its
-- balance, its pending orders, its instances and snapshots); wallet_checked is the count the
-- low-balance worker last evaluated. The worker reads only the accounts where the two differ,
-- through a partial index, instead of every active instance of every watched account. Every
-- existing account starts changed, so it is evaluated once after the upgrade.
ALTER TABLE accounts ADD COLUMN wallet_seq INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN wallet_checked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX accounts_wallet_changed ON accounts (id) WHERE wallet_seq <> wallet_checked;

-- The billing worker's renewals: active instances in renewal_due order, so a tick reads from the
-- earliest and stops at the first not due (instances_renewal leads with active, which a
-- truth test cannot seek, so it was scanned whole and sorted).
CREATE INDEX instances_renewal_due ON instances (renewal_due, id) WHERE active;

-- The housekeeping worker's queues: only the ended rows whose datacenter object still exists,
-- not every ended instance or snapshot in history.
CREATE INDEX instances_machine_undeleted ON instances (id) WHERE NOT active AND NOT machine_deleted;
CREATE INDEX snapshots_image_undeleted ON snapshots (id)
    WHERE status IN ('deleted', 'expired', 'failed') AND image_ref != '' AND NOT image_deleted;

-- The account's list, newest first, at any offset: one index in list order, and the counts
-- kept on the account, so a page never counts the rows and the pages past the middle are read
-- from the oldest end.
CREATE INDEX instances_account_id ON instances (account_id, id);
ALTER TABLE accounts ADD COLUMN instances_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN instances_active INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET
    instances_total = (SELECT COUNT(*) FROM instances WHERE instances.account_id = accounts.id),
    instances_active = (SELECT COUNT(*) FROM instances WHERE instances.account_id = accounts.id AND instances.active);
