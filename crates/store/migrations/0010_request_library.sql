-- Where an approved request went in the library: the instance, the item it became there, the
-- search started for it, and the choices made when it was requested. One row per request.
CREATE TABLE request_library (
    request_id         INTEGER PRIMARY KEY REFERENCES requests (id) ON DELETE CASCADE,
    -- The library instance (radarr, sonarr, ...) chosen when the request was made.
    instance_id        TEXT    NOT NULL,
    quality_profile_id INTEGER NULL,
    root_folder        TEXT    NULL,
    -- Set once the title is in the library: its id in that service.
    item_id            INTEGER NULL,
    -- The search command started after adding it.
    command_id         INTEGER NULL,
    -- Why handing it over failed, when it did.
    failure            TEXT    NULL,
    updated_at         INTEGER NOT NULL
);
