-- Rate-limit windows, shared by every replica of one database: per key (an account or a client
-- address, and a route) the times of the requests let through in the last minute, as Unix
-- nanoseconds separated by commas, and when the key was last used (idle keys are dropped).
CREATE TABLE rate_logs (
    key       TEXT NOT NULL PRIMARY KEY,
    times     TEXT NOT NULL,
    last_used TIMESTAMPTZ NOT NULL
);

CREATE INDEX rate_logs_last_used ON rate_logs (last_used);
