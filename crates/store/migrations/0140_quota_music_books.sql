-- Request quotas for albums and books (an album is one unit, a book is one unit), beside movies
-- and tv seasons. Same conventions as 0001: portable SQL. The CHECK on `media_type` widens, so
-- the table is rebuilt with its rows and indexes.
CREATE TABLE quota_rules_new (
    id          INTEGER PRIMARY KEY,
    role        TEXT    NULL CHECK (role IN ('owner', 'admin', 'user', 'kid')),
    person_id   INTEGER NULL REFERENCES people (id) ON DELETE CASCADE,
    media_type  TEXT    NOT NULL CHECK (media_type IN ('movie', 'tv', 'music', 'book')),
    units       INTEGER NOT NULL CHECK (units >= 0),
    window_days INTEGER NOT NULL CHECK (window_days IN (1, 7, 30)),
    updated_at  INTEGER NOT NULL,
    CHECK ((role IS NULL) <> (person_id IS NULL))
);

INSERT INTO quota_rules_new (id, role, person_id, media_type, units, window_days, updated_at)
    SELECT id, role, person_id, media_type, units, window_days, updated_at FROM quota_rules;

DROP TABLE quota_rules;

ALTER TABLE quota_rules_new RENAME TO quota_rules;

CREATE UNIQUE INDEX quota_rules_role ON quota_rules (role, media_type, window_days);
CREATE UNIQUE INDEX quota_rules_person ON quota_rules (person_id, media_type, window_days);
