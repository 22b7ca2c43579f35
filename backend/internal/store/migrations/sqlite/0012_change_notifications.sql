-- Nothing on SQLite: its read cache watches the database file's wal-index, which every commit
-- moves (sqlstore/sqlitefast). PostgreSQL's store hears of changes through the notifications
-- this version adds there.
SELECT 1;
