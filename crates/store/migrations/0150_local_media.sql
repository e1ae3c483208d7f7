-- The index of media files on disk, per folder instance: what `scan_library` found beneath the
-- folder's root (a relative path), its size and modification time (a rescan skips a file whose
-- both are unchanged), what kind of file it is, what its name (or its tags) says, and the
-- catalogue identity matched for it. `facts` holds the rest of the recognition as JSON.
CREATE TABLE local_media (
    instance_id  TEXT    NOT NULL,
    path         TEXT    NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    -- video | audio | subtitle
    file_kind    TEXT    NOT NULL,
    -- movie | tv | music; NULL when nothing was recognised
    media_type   TEXT,
    title        TEXT,
    -- the title folded to lower-case letters and digits, for grouping and search
    title_key    TEXT,
    year         INTEGER,
    season       INTEGER,
    -- the first episode (a multi-episode file lists all in facts)
    episode      INTEGER,
    media_source TEXT,
    media_id     TEXT,
    confidence   REAL,
    facts        TEXT    NOT NULL,
    scanned_at   INTEGER NOT NULL,
    PRIMARY KEY (instance_id, path)
);

CREATE INDEX local_media_identity ON local_media (media_source, media_id);
CREATE INDEX local_media_title ON local_media (title_key);
