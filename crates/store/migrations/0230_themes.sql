-- Shortlist themes: a named set of picked titles (each resolved through discovery when it was
-- planned) and rules; what a row on a media server shows.
CREATE TABLE themes (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL COLLATE NOCASE UNIQUE,
    description TEXT    NOT NULL DEFAULT '',
    -- JSON: [{media_source, media_id, media_type, title, year}] in the order picked.
    picks       TEXT    NOT NULL,
    -- JSON: {genres, year_from, year_to, in_library_only, missing_only, similar_to}.
    rules       TEXT    NOT NULL,
    created_by  INTEGER REFERENCES people (id) ON DELETE SET NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
