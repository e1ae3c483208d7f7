-- The files' index joins the versions (0142): each transaction that adds, changes or removes
-- rows of `local_media` bumps the `local_media` counter once (local_media.rs, the only writer;
-- once a batch rather than a trigger a row, which a scan of 50,000 files would feel), so a kept
-- `find_local_media` answer holds exactly while the index it was read from is unchanged.
INSERT INTO versions (grp, n) VALUES ('local_media', 0);
