-- Shortlist rows: a theme shown as a collection on one media server's library, for an
-- audience of the household's people. Saved only by an applied plan; the collection a run
-- makes is Marquee's own (its id kept here), the only one a run changes or removes.
CREATE TABLE shortlist_rows (
    id            INTEGER PRIMARY KEY,
    theme_id      INTEGER NOT NULL REFERENCES themes (id) ON DELETE RESTRICT,
    instance_id   TEXT    NOT NULL,
    library_id    TEXT    NOT NULL,
    -- The collection's name on the server.
    name          TEXT    NOT NULL,
    -- JSON: the person ids it is for; empty: the whole household.
    audience      TEXT    NOT NULL,
    enabled       INTEGER NOT NULL DEFAULT 0,
    -- The id of the collection a run made on the server (Marquee-owned), once made.
    collection_id TEXT,
    created_by    INTEGER REFERENCES people (id) ON DELETE SET NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (instance_id, name)
);
