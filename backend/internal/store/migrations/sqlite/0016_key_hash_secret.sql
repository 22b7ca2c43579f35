-- API key hashes keyed, and every secret bound to its account (issue 33; package secrets,
-- backend/docs/sharing-threat-model.md). One row: a random secret, sealed under the key file
-- like any secret, from which the HMAC key of API key hashes is derived. The first start with a
-- key writes it and, in the same transaction, replaces every stored SHA-256 key digest by its
-- HMAC and seals every value sealed before (enc:v1:, bound to its row only) again as enc:v2:,
-- bound to its row and its account. `resellerd secrets rotate` seals it again like any value:
-- the secret itself never changes, so API keys keep working across rotations.
--
-- key_tag binds each keyed hash to its account's id (secrets.KeyHasher.Tag): a hash copied into
-- another account's row, by whoever writes the database with a key of their own, matches
-- nothing. NULL while the database has no key.
CREATE TABLE key_hash_secret (
    id     INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    sealed TEXT    NOT NULL
);

ALTER TABLE accounts ADD COLUMN key_tag BLOB;
