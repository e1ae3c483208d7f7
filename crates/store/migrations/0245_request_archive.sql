-- A finished request the household no longer needs to see (plan_requests archive): left out
-- of list_requests until restored. Unix ms, or NULL while it is shown.
ALTER TABLE requests ADD COLUMN archived_at INTEGER;
