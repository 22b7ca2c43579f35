-- Nothing on SQLite: PostgreSQL's change notifications (0012) name the account that changed
-- from this version; SQLite's read cache watches the database file (sqlstore/sqlitefast).
SELECT 1;
