-- Requests for titles, and the quotas that bound them. Same conventions as 0001: portable SQL,
-- INTEGER unix milliseconds, JSON as TEXT.

-- One request: who asked for what (a movie, or seasons of a show), where it stands, and who decided.
CREATE TABLE requests (
    id            INTEGER PRIMARY KEY,
    person_id     INTEGER NOT NULL REFERENCES people (id),
    media_source  TEXT    NOT NULL,
    media_id      TEXT    NOT NULL,
    media_type    TEXT    NOT NULL CHECK (media_type IN ('movie', 'tv', 'music', 'book')),
    title         TEXT    NOT NULL,
    year          INTEGER NULL,
    -- JSON list of season numbers (tv); '[]' for everything else.
    seasons       TEXT    NOT NULL DEFAULT '[]',
    status        TEXT    NOT NULL
        CHECK (status IN ('pending', 'approved', 'rejected', 'available', 'failed')),
    -- The catalogue instance the title was read from (later: the library instance it went to).
    instance_id   TEXT    NULL,
    -- Quota units charged: 1 per movie, 1 per season.
    units         INTEGER NOT NULL,
    decided_by    INTEGER NULL REFERENCES people (id),
    decision_note TEXT    NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    decided_at    INTEGER NULL
);

CREATE INDEX requests_person ON requests (person_id, id);
CREATE INDEX requests_media ON requests (media_source, media_id, status);
CREATE INDEX requests_status ON requests (status, id);

-- A quota: at most `units` of a media type per `window_days`, for a role (the default of everyone
-- with that role) or for one person (replacing the role's quotas of that media type).
CREATE TABLE quota_rules (
    id          INTEGER PRIMARY KEY,
    role        TEXT    NULL CHECK (role IN ('owner', 'admin', 'user', 'kid')),
    person_id   INTEGER NULL REFERENCES people (id) ON DELETE CASCADE,
    media_type  TEXT    NOT NULL CHECK (media_type IN ('movie', 'tv')),
    units       INTEGER NOT NULL CHECK (units >= 0),
    window_days INTEGER NOT NULL CHECK (window_days IN (1, 7, 30)),
    updated_at  INTEGER NOT NULL,
    CHECK ((role IS NULL) <> (person_id IS NULL))
);

CREATE UNIQUE INDEX quota_rules_role ON quota_rules (role, media_type, window_days);
CREATE UNIQUE INDEX quota_rules_person ON quota_rules (person_id, media_type, window_days);

-- What each request cost, when: quotas count the charges inside their window.
CREATE TABLE quota_charges (
    id         INTEGER PRIMARY KEY,
    person_id  INTEGER NOT NULL REFERENCES people (id),
    request_id INTEGER NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
    media_type TEXT    NOT NULL,
    units      INTEGER NOT NULL,
    at         INTEGER NOT NULL
);

CREATE INDEX quota_charges_person ON quota_charges (person_id, media_type, at);
