-- The files' index joins the versions (0142): each transaction that adds, changes or removes
-- rows of `local_media` bumps the `local_media` counter once (local_media.rs, the only writer;
-- once a batch rather than a trigger a row, which a scan of 50,000 files would feel), so a kept
-- `find_local_media` answer holds exactly while the index it was read from is unchanged.
INSERT INTO versions (grp, n) VALUES ('local_media', 0);

-- A search by title words reads the index, not every row: each instance's title keys, so the
-- rows whose key does not match are passed over without fetching them (their facts are most
-- of a row). 6,000 rows: 0.65 ms a search instead of 1.45 ms.
CREATE INDEX local_media_instance_title ON local_media (instance_id, title_key);
