-- A secret handed over in the owner's browser, never through a tool: start_connection makes a
-- connection (waiting, for one instance, expiring), the owner's page takes the secret, checks
-- it against the instance and keeps it; get_connection_status reads how it went.
CREATE TABLE connections (
    id          TEXT    PRIMARY KEY,
    instance_id TEXT    NOT NULL,
    created_by  INTEGER REFERENCES people (id) ON DELETE SET NULL,
    -- waiting, saved or failed (an expired waiting one reads as expired).
    status      TEXT    NOT NULL,
    message     TEXT,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- The secrets the owner entered for instances whose config sets none: used from the next start.
CREATE TABLE instance_secrets (
    instance_id TEXT    PRIMARY KEY,
    secret      TEXT    NOT NULL,
    updated_at  INTEGER NOT NULL
);
