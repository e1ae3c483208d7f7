-- Scheduled tasks: a person's list of tool calls, run on a date or a cron schedule under the
-- authority the key that made the task has at run time, and each run with its results.
CREATE TABLE tasks (
    -- never reused, so an old id never names a newer task
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    person_id     INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    -- the key (or OAuth connection) whose authority each run is decided under, read at run time
    key_id        TEXT    NOT NULL,
    -- JSON: [{"tool": "...", "arguments": {...}}]
    calls         TEXT    NOT NULL,
    -- always, on_warning, on_change or on_error
    notify        TEXT    NOT NULL,
    notifier      TEXT,
    -- date or cron
    trigger_type  TEXT    NOT NULL CHECK (trigger_type IN ('date', 'cron')),
    -- an RFC 3339 time (date) or a 5-field expression (cron)
    schedule      TEXT    NOT NULL,
    enabled       INTEGER NOT NULL DEFAULT 1,
    -- unix ms; NULL when nothing is due (a date task that ran)
    next_run_at   INTEGER,
    -- the last due time the server was down for: reported, never run late
    missed_at     INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

CREATE INDEX tasks_due ON tasks (next_run_at) WHERE enabled = 1;

CREATE TABLE task_runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    status       TEXT    NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
    -- scheduled or manual
    cause        TEXT    NOT NULL,
    -- the process that ran it: a run still running under another one was interrupted by a stop
    boot         TEXT    NOT NULL,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    -- JSON: one entry per call made, in order
    results      TEXT    NOT NULL DEFAULT '[]',
    error        TEXT
);

CREATE INDEX task_runs_task ON task_runs (task_id, id);
CREATE INDEX task_runs_running ON task_runs (boot) WHERE status = 'running';
