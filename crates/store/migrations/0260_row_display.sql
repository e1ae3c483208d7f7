-- How a shortlist row shows on its media server: a collection (for everyone it is for) or a
-- playlist (one person's, owned by their user there), its titles ordered by release or title,
-- and whether its poster is the first title's artwork. And how many missing titles each
-- scheduled run may acquire (a release grabbed into the default download client).
ALTER TABLE shortlist_rows ADD COLUMN display TEXT NOT NULL DEFAULT 'collection';
ALTER TABLE shortlist_rows ADD COLUMN sort TEXT NOT NULL DEFAULT 'release';
ALTER TABLE shortlist_rows ADD COLUMN poster INTEGER NOT NULL DEFAULT 1;
ALTER TABLE shortlist_rows ADD COLUMN schedule_max_acquisitions INTEGER NOT NULL DEFAULT 0;
