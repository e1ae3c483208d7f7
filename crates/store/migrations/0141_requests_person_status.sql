-- One person's requests in one status, newest first (`list_requests` with a status, asked by
-- anyone who sees only their own, or naming a person): without this index SQLite walked every
-- request of that status in the table to find the person's, a cost that grew with the table
-- (about 20 ms at 100,000 requests for a person with few). Additive: no row changes.
CREATE INDEX requests_person_status ON requests (person_id, status, id);
