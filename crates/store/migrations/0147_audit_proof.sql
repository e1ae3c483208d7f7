-- What proves an audited call's effect, written in the same transaction as the effect itself
-- (a request created, a request decided, an operation finished): an entry a stop left without
-- its outcome is reconciled from it at the next start instead of staying outcome_unknown.
ALTER TABLE audit ADD COLUMN proof TEXT NULL;
