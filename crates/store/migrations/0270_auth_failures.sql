-- Failed authentications (a wrong key or token, a wrong owner password) by source, counted
-- here so that every replica of the gateway refuses a source after the same number of
-- failures, wherever they landed. A source is kept only as the SHA-256 of its address (and
-- the name tried); rows older than the throttle's window are deleted as new ones come.
CREATE TABLE auth_failures (
    source TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX auth_failures_by_source ON auth_failures (source, at);
CREATE INDEX auth_failures_by_time ON auth_failures (at);
