-- What was grabbed into a download client, and for which title: one row per grab of an indexer
-- release, linking the torrent (download instance and info hash) to the title it was searched
-- for (media identity and label), the indexer it came from, who grabbed it, and the request it
-- serves, if any.
CREATE TABLE download_history (
    id           INTEGER PRIMARY KEY,
    instance_id  TEXT    NOT NULL,
    -- 40 lowercase hex digits; NULL when the client did not say and the release named none
    info_hash    TEXT,
    release      TEXT    NOT NULL,
    -- "builtin tt0133093": the media identity searched for, when the search named one
    media        TEXT,
    -- "The Matrix (1999)"
    title        TEXT,
    indexer      TEXT    NOT NULL,
    person_id    INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    request_id   INTEGER REFERENCES requests(id) ON DELETE SET NULL,
    grabbed_at   INTEGER NOT NULL
);

CREATE INDEX download_history_hash ON download_history (info_hash);
CREATE INDEX download_history_media ON download_history (media);
