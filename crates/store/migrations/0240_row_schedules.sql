-- A shortlist row's schedule: a cron expression (in the tasks' time zone) on which the row runs
-- on its own, once the owner approved it. It records who planned it and the key whose
-- authority files the run's requests; revoking that key does not pause it (only the owner's
-- pause, or a new plan, does), it only stops the requests.
ALTER TABLE shortlist_rows ADD COLUMN schedule TEXT;
ALTER TABLE shortlist_rows ADD COLUMN schedule_paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE shortlist_rows ADD COLUMN schedule_max_requests INTEGER NOT NULL DEFAULT 0;
ALTER TABLE shortlist_rows ADD COLUMN schedule_by INTEGER REFERENCES people (id) ON DELETE SET NULL;
ALTER TABLE shortlist_rows ADD COLUMN schedule_key_id TEXT;
-- Unix ms of the next due time, while scheduled.
ALTER TABLE shortlist_rows ADD COLUMN schedule_next_at INTEGER;
CREATE INDEX shortlist_rows_due ON shortlist_rows (schedule_next_at) WHERE schedule IS NOT NULL;
