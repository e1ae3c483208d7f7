-- Which media-server user a person is, per media-server instance (`marquee people link`): "my
-- continue watching" reads the linked user's state. One user per person and instance.
CREATE TABLE media_links (
    person_id    INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
    instance_id  TEXT    NOT NULL,
    user_name    TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (person_id, instance_id)
);
