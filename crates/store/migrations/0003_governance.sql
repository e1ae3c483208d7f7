-- Governance: explicit tool lists on grants, per-person tool switches, and the charges that
-- allowances count. Same conventions as 0001: portable SQL, INTEGER unix milliseconds, JSON as TEXT.

-- NULL: every tool the capabilities allow; else a JSON list of tool names.
ALTER TABLE grants ADD COLUMN tools TEXT NULL;

-- The owner's switch of one tool for one person; overrides the tool's switch in tool_switches.
CREATE TABLE person_tool_switches (
    person_id  INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    tool_name  TEXT    NOT NULL,
    enabled    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (person_id, tool_name)
);

-- One unit of an allowance spent by a person: written with the audit entry of the call that
-- spends it (one transaction), removed again only when that call certainly did nothing.
CREATE TABLE allowance_charges (
    id        INTEGER PRIMARY KEY,
    person_id INTEGER NOT NULL REFERENCES people (id),
    kind      TEXT    NOT NULL,
    audit_id  INTEGER NOT NULL REFERENCES audit (id),
    at        INTEGER NOT NULL
);

CREATE INDEX allowance_charges_person ON allowance_charges (person_id, kind, at);
CREATE INDEX allowance_charges_audit ON allowance_charges (audit_id);
