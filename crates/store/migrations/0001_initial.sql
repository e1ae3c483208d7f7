-- Marquee's initial schema. Portable SQL: timestamps are INTEGER unix milliseconds,
-- JSON is stored as TEXT, booleans as INTEGER 0/1. Built-in grants are seeded by the
-- store at open (their capabilities come from the code), not here.

CREATE TABLE people (
    id             INTEGER PRIMARY KEY,
    name           TEXT    NOT NULL UNIQUE,
    role           TEXT    NOT NULL CHECK (role IN ('owner', 'admin', 'user', 'kid')),
    created_at     INTEGER NOT NULL,
    max_movie_cert TEXT    NULL,
    max_tv_rating  TEXT    NULL,
    rating_region  TEXT    NULL,
    block_unrated  INTEGER NOT NULL DEFAULT 0,
    blocked_genres TEXT    NOT NULL DEFAULT '[]'
);

CREATE TABLE grants (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    capabilities TEXT    NOT NULL DEFAULT '[]',
    instances    TEXT    NULL,
    allowances   TEXT    NOT NULL DEFAULT '{}',
    expires_at   INTEGER NULL,
    revision     INTEGER NOT NULL DEFAULT 1,
    builtin      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE credentials (
    id           INTEGER PRIMARY KEY,
    key_id       TEXT    NOT NULL UNIQUE,
    verifier     TEXT    NOT NULL,
    person_id    INTEGER NOT NULL REFERENCES people (id),
    grant_id     INTEGER NOT NULL REFERENCES grants (id),
    label        TEXT    NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER NULL,
    revoked_at   INTEGER NULL,
    expires_at   INTEGER NULL
);

CREATE INDEX credentials_person ON credentials (person_id);

CREATE TABLE tool_switches (
    tool_name  TEXT    PRIMARY KEY,
    enabled    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE audit (
    id            INTEGER PRIMARY KEY,
    at            INTEGER NOT NULL,
    person_id     INTEGER NOT NULL REFERENCES people (id),
    credential_id INTEGER NULL REFERENCES credentials (id),
    tool          TEXT    NOT NULL,
    instance_id   TEXT    NULL,
    args_digest   TEXT    NOT NULL,
    status        TEXT    NOT NULL
        CHECK (status IN ('executing', 'applied', 'failed', 'outcome_unknown')),
    message       TEXT    NULL,
    finished_at   INTEGER NULL
);

CREATE INDEX audit_person ON audit (person_id, id);
CREATE INDEX audit_status ON audit (status);

CREATE TABLE changes (
    id                TEXT    PRIMARY KEY,
    created_by        INTEGER NOT NULL REFERENCES people (id),
    tool              TEXT    NOT NULL,
    plan              TEXT    NOT NULL,
    dependency_hashes TEXT    NOT NULL DEFAULT '{}',
    grant_revision    INTEGER NOT NULL,
    status            TEXT    NOT NULL,
    review_token_hash TEXT    NULL,
    created_at        INTEGER NOT NULL,
    decided_at        INTEGER NULL
);

CREATE INDEX changes_status ON changes (status);

CREATE TABLE operations (
    id         TEXT    PRIMARY KEY,
    change_id  TEXT    NULL REFERENCES changes (id),
    status     TEXT    NOT NULL,
    checkpoint TEXT    NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE INDEX operations_change ON operations (change_id);

CREATE TABLE idempotency_keys (
    key          TEXT    NOT NULL,
    person_id    INTEGER NOT NULL REFERENCES people (id),
    operation_id TEXT    NOT NULL REFERENCES operations (id),
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (key, person_id)
);
