-- Several gateway processes on one store (`marquee serve` replicas, a `marquee stdio` beside a
-- server): each registers itself and beats a heartbeat; the work it starts (operations, audit
-- entries) carries its id, so another process's start-up or sweep closes only the work of a
-- replica that is gone, never a live one's. A lease names the one replica running the
-- background jobs, until it lapses.
CREATE TABLE replicas (
    -- `machine:pid:random`.
    id TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,
    seen_at INTEGER NOT NULL
);
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    until_ms INTEGER NOT NULL
);
ALTER TABLE operations ADD COLUMN replica TEXT;
ALTER TABLE audit ADD COLUMN replica TEXT;
