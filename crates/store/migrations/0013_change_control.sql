-- Change control: what a plan was made under, how the owner decided it, and what its one
-- operation did. Same conventions as 0001: portable SQL, INTEGER unix milliseconds, JSON as TEXT.

-- The grant the plan was made under (its revision is `grant_revision`), a one-line summary for the
-- owner, the SHA-256 of the plan's whole content, and the owner's decision: who, and which
-- content and grant revision the approval was for.
ALTER TABLE changes ADD COLUMN grant_id INTEGER NULL REFERENCES grants (id);
ALTER TABLE changes ADD COLUMN summary TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN decided_by INTEGER NULL REFERENCES people (id);
ALTER TABLE changes ADD COLUMN approved_hash TEXT NULL;
ALTER TABLE changes ADD COLUMN approved_revision INTEGER NULL;

-- Who started the operation, its audit entry, and its outcome.
ALTER TABLE operations ADD COLUMN person_id INTEGER NULL REFERENCES people (id);
ALTER TABLE operations ADD COLUMN audit_id INTEGER NULL REFERENCES audit (id);
ALTER TABLE operations ADD COLUMN result TEXT NULL;
ALTER TABLE operations ADD COLUMN message TEXT NULL;

-- A change is applied at most once: a second apply finds the first one's operation.
CREATE UNIQUE INDEX operations_one_per_change ON operations (change_id);

-- The owner pages: a person's password verifier (an argon2id PHC string, never the password)
-- and signed-in browser sessions.
ALTER TABLE people ADD COLUMN password_hash TEXT NULL;

CREATE TABLE sessions (
    -- SHA-256 of the cookie's value: the value itself is never stored.
    id_hash    TEXT    PRIMARY KEY,
    person_id  INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    -- The token every form of this session must carry.
    csrf       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE INDEX sessions_person ON sessions (person_id);
