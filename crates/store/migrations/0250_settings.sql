-- Settings changed by an approved plan_configuration: the layer between the config file (and
-- the environment), which stays the bootstrap and wins wherever it sets a key, and the
-- defaults. Values are JSON; no secret is ever kept here.
CREATE TABLE settings (
    key        TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_by INTEGER REFERENCES people (id) ON DELETE SET NULL,
    updated_at INTEGER NOT NULL
);
