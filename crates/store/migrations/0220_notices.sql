-- Which notices each person chose to hear, and through which notifier (`marquee people notify`).
CREATE TABLE notify_choices (
    person_id   INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    event       TEXT    NOT NULL,
    notifier_id TEXT    NOT NULL,
    PRIMARY KEY (person_id, event, notifier_id)
);

-- How far each kind of notice has been sent (a change's created_at, in ms): a restart sends
-- nothing twice.
CREATE TABLE notice_cursors (
    event TEXT    PRIMARY KEY,
    at    INTEGER NOT NULL
);
