-- Each instance's place in its account's list: 1 for the account's first instance, then one more
-- for each. Instances are never deleted, so a place never changes, and a page of
-- GET /instances?only_active=false is a range of places, found through the index at any offset
-- instead of walked to from an end.
ALTER TABLE instances ADD COLUMN account_seq INTEGER;
UPDATE instances SET account_seq = ranked.seq
    FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY id) AS seq FROM instances) AS ranked
    WHERE ranked.id = instances.id;
CREATE UNIQUE INDEX instances_account_seq ON instances (account_id, account_seq);
