-- Long MCP calls kept as protocol tasks (the tasks extension): bound to the person who made
-- the call, polled by id from any replica, dropped once expired.
CREATE TABLE protocol_tasks (
    id         TEXT    PRIMARY KEY,
    person_id  INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    tool       TEXT    NOT NULL,
    -- Whether tasks/cancel may stop the call (a read); a write runs to its end once begun.
    stoppable  INTEGER NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
    message    TEXT,
    -- completed: the tool's result; failed: the JSON-RPC error (JSON text).
    outcome    TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    -- The runner's last heartbeat: a working task without one for long ran on a server that stopped.
    beat_at    INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX protocol_tasks_expiry ON protocol_tasks (expires_at);
