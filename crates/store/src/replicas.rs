//! Several gateway processes on one store: `marquee serve` replicas, or a `marquee stdio`
//! started beside a server. Each process joins as a replica (`machine:pid:random`) and beats a
//! heartbeat; the operations and audit entries it starts carry its id. A replica is gone when
//! its heartbeat is older than [`LIVE_FOR_MS`], or at once when it was a process of this
//! machine that no longer runs (a restart after a crash recovers without waiting). Only a gone
//! replica's unfinished work is closed (`outcome_unknown` past its checkpoint), by the next
//! process to start or by the sweep the jobs' leader runs; a live replica's never is.
//!
//! A lease names one holder until it lapses: the replica holding `jobs` runs the background
//! jobs and scheduled tasks, and another takes it over within a lease of the holder's end.

use std::sync::OnceLock;

use crate::{Error, Store, now_ms};

/// A heartbeat older than this: the replica is gone.
const LIVE_FOR_MS: i64 = 30_000;
/// How often a replica beats its heartbeat.
const BEAT_MS: i64 = 5_000;

/// This process's replica id, once it joined (one per process: a process is one replica).
static JOINED: OnceLock<String> = OnceLock::new();

/// This process's replica id, once it joined.
pub(crate) fn joined() -> Option<&'static str> {
    JOINED.get().map(String::as_str)
}

/// This machine's name, letters and digits only.
/// Read once per process: every liveness check of every replica row asks it.
pub fn machine() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(32)
            .collect()
    })
}

/// Whether the replica `id` (`machine:pid:random`) is a process of this machine that is gone:
/// its pid no longer runs, or is this process under another id (a restart reusing the pid,
/// as in a container). `false` for another machine's replica (its heartbeat tells).
fn gone_here(id: &str) -> bool {
    let mut parts = id.split(':');
    let (Some(host), Some(pid)) = (
        parts.next(),
        parts.next().and_then(|p| p.parse::<u32>().ok()),
    ) else {
        return true;
    };
    if host != machine() {
        return false;
    }
    if pid == std::process::id() {
        return joined() != Some(id);
    }
    !std::path::Path::new("/proc").join(pid.to_string()).exists()
}

/// The rows (of `operations` or `audit`) whose replica is no longer registered, and with
/// `unmarked` those no replica marked.
pub(crate) fn gone_clause(unmarked: bool) -> &'static str {
    if unmarked {
        "(replica IS NULL OR replica NOT IN (SELECT id FROM replicas))"
    } else {
        "(replica IS NOT NULL AND replica NOT IN (SELECT id FROM replicas))"
    }
}

/// Whether `id` (`machine:pid:random`) is a process of this machine that still runs.
pub fn runs_here(id: &str) -> bool {
    id.split(':').next() == Some(machine()) && !gone_here(id)
}

impl Store {
    /// Joins the store as this process's replica (once per process; later calls answer the
    /// same id), beats its first heartbeat, and keeps beating one every [`BEAT_MS`] while the
    /// process runs (on the runtime it is called on).
    pub async fn join_replica(&self) -> Result<String, Error> {
        let first = JOINED.get().is_none();
        let id = self.beat().await?;
        if first {
            let store = self.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(BEAT_MS as u64)).await;
                    if let Err(e) = store.beat().await {
                        tracing::warn!(error = %e, "the replica's heartbeat could not be written");
                    }
                }
            });
        }
        Ok(id)
    }

    /// Registers (or re-registers, if a sweep took it for gone) this replica, seen now.
    async fn beat(&self) -> Result<String, Error> {
        let id = JOINED
            .get_or_init(|| {
                format!(
                    "{}:{}:{:016x}",
                    machine(),
                    std::process::id(),
                    rand::random::<u64>()
                )
            })
            .clone();
        let now = now_ms();
        sqlx::query(
            "INSERT INTO replicas (id, started_at, seen_at) VALUES (?, ?, ?) \
             ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
        )
        .bind(&id)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(id)
    }

    /// This process's replica id, once it joined.
    pub fn replica(&self) -> Option<&'static str> {
        joined()
    }

    /// The replicas that still run, this one included.
    pub async fn live_replicas(&self) -> Result<Vec<String>, Error> {
        let (live, _) = self.replicas_by_life().await?;
        Ok(live)
    }

    /// The registered replicas, (live, gone): gone when their heartbeat is older than
    /// [`LIVE_FOR_MS`], or at once when they were processes of this machine that ended.
    async fn replicas_by_life(&self) -> Result<(Vec<String>, Vec<String>), Error> {
        let since = now_ms() - LIVE_FOR_MS;
        let rows: Vec<(String, i64)> = sqlx::query_as("SELECT id, seen_at FROM replicas")
            .fetch_all(self.pool())
            .await?;
        let (live, gone): (Vec<_>, Vec<_>) = rows
            .into_iter()
            .partition(|(id, seen)| *seen >= since && !gone_here(id));
        let ids = |rows: Vec<(String, i64)>| rows.into_iter().map(|(id, _)| id).collect();
        Ok((ids(live), ids(gone)))
    }

    /// Forgets the replicas that are gone: their unfinished work is then closed by
    /// [`Store::recover_gone_replicas`]. How many there were.
    async fn forget_gone_replicas(&self) -> Result<u64, Error> {
        let (_, gone) = self.replicas_by_life().await?;
        let mut forgotten = 0;
        for id in gone {
            // Only while it is still as it was read: a heartbeat since keeps it.
            let done = sqlx::query("DELETE FROM replicas WHERE id = ? AND seen_at < ?")
                .bind(&id)
                .bind(now_ms() - if gone_here(&id) { 0 } else { LIVE_FOR_MS })
                .execute(self.pool())
                .await?;
            forgotten += done.rows_affected();
        }
        Ok(forgotten)
    }

    /// At start: forgets the replicas that are gone, then closes the unfinished work of any
    /// process no longer registered (and of one that never registered: an older version, a
    /// command of the owner's cut off). Returns (operations outcome_unknown, operations
    /// failed, audit entries outcome_unknown).
    pub async fn recover_at_start(&self) -> Result<(u64, u64, u64), Error> {
        self.forget_gone_replicas().await?;
        // Operations first: each closes its own audit entry (failed before its checkpoint,
        // outcome_unknown after it); what is left executing is then outcome_unknown.
        let (unknown, failed) = self.recover_unfinished_operations_of(true).await?;
        let audit = self.recover_unfinished_audit_of(true).await?;
        Ok((unknown, failed, audit))
    }

    /// The jobs' leader's sweep: the unfinished work of replicas gone since (never of a
    /// process that did not register: that is closed at a start). The same counts.
    pub async fn recover_gone_replicas(&self) -> Result<(u64, u64, u64), Error> {
        if self.forget_gone_replicas().await? == 0 {
            return Ok((0, 0, 0));
        }
        let (unknown, failed) = self.recover_unfinished_operations_of(false).await?;
        let audit = self.recover_unfinished_audit_of(false).await?;
        Ok((unknown, failed, audit))
    }

    /// Takes (or keeps) the lease `name` for this replica for `ttl_ms`: `true` while it holds
    /// it. A process that did not join holds every lease (it is the only one).
    pub async fn take_lease(&self, name: &str, ttl_ms: i64) -> Result<bool, Error> {
        match joined() {
            None => Ok(true),
            Some(me) => self.take_lease_as(me, name, ttl_ms, now_ms()).await,
        }
    }

    async fn take_lease_as(
        &self,
        me: &str,
        name: &str,
        ttl_ms: i64,
        now: i64,
    ) -> Result<bool, Error> {
        let done = sqlx::query(
            "INSERT INTO leases (name, holder, until_ms) VALUES (?1, ?2, ?3) \
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms \
             WHERE leases.holder = excluded.holder OR leases.until_ms < ?4",
        )
        .bind(name)
        .bind(me)
        .bind(now + ttl_ms)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AuditStatus, NewAudit};

    async fn seen(store: &Store, id: &str, ago_ms: i64) {
        let at = now_ms() - ago_ms;
        sqlx::query("INSERT INTO replicas (id, started_at, seen_at) VALUES (?, ?, ?)")
            .bind(id)
            .bind(at)
            .bind(at)
            .execute(store.pool())
            .await
            .unwrap();
    }

    /// An executing audit entry marked by `replica`.
    async fn executing(store: &Store, replica: Option<&str>) -> i64 {
        if store.person_by_name("owner").await.unwrap().is_none() {
            store.bootstrap_owner("owner").await.unwrap();
        }
        let owner = store.person_by_name("owner").await.unwrap().unwrap();
        let entry = NewAudit {
            person: owner.id,
            key_id: None,
            tool: "request_media".into(),
            instance: None,
            args_digest: "d".into(),
        };
        let id = store.audit_begin(&entry).await.unwrap().0;
        sqlx::query("UPDATE audit SET replica = ? WHERE id = ?")
            .bind(replica)
            .bind(id)
            .execute(store.pool())
            .await
            .unwrap();
        id
    }

    async fn status(store: &Store, id: i64) -> String {
        sqlx::query_scalar("SELECT status FROM audit WHERE id = ?")
            .bind(id)
            .fetch_one(store.pool())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn only_the_work_of_replicas_that_are_gone_is_closed() {
        let store = Store::open_in_memory().await.unwrap();
        let here = machine();
        let (live, stale, dead_pid) = (
            "elsewhere:1:aa".to_owned(),
            "elsewhere:2:bb".to_owned(),
            format!("{here}:{}:cc", u32::MAX),
        );
        seen(&store, &live, 1_000).await;
        seen(&store, &stale, LIVE_FOR_MS + 1_000).await;
        seen(&store, &dead_pid, 0).await;
        assert_eq!(store.live_replicas().await.unwrap(), vec![live.clone()]);
        assert!(!runs_here(&live) && !runs_here(&dead_pid));

        let of_live = executing(&store, Some(&live)).await;
        let of_stale = executing(&store, Some(&stale)).await;
        let of_dead = executing(&store, Some(&dead_pid)).await;
        let unmarked = executing(&store, None).await;
        let unknown = AuditStatus::OutcomeUnknown.as_str();
        let running = AuditStatus::Executing.as_str();

        // The leader's sweep: the gone replicas' work, never a live one's nor unmarked work.
        assert_eq!(store.recover_gone_replicas().await.unwrap(), (0, 0, 2));
        for (id, want) in [
            (of_live, running),
            (of_stale, unknown),
            (of_dead, unknown),
            (unmarked, running),
        ] {
            assert_eq!(status(&store, id).await, want, "entry {id}");
        }
        // Nothing more is gone: a second sweep does nothing.
        assert_eq!(store.recover_gone_replicas().await.unwrap(), (0, 0, 0));
        // A start closes unmarked work too, and still not the live replica's.
        assert_eq!(store.recover_at_start().await.unwrap(), (0, 0, 1));
        assert_eq!(status(&store, unmarked).await, unknown);
        assert_eq!(status(&store, of_live).await, running);
    }

    #[tokio::test]
    async fn a_lease_has_one_holder_until_it_lapses() {
        let store = Store::open_in_memory().await.unwrap();
        let t = 1_000_000;
        assert!(store.take_lease_as("a", "jobs", 20_000, t).await.unwrap());
        assert!(
            !store
                .take_lease_as("b", "jobs", 20_000, t + 1)
                .await
                .unwrap()
        );
        assert!(
            store
                .take_lease_as("a", "jobs", 20_000, t + 5_000)
                .await
                .unwrap(),
            "renewed"
        );
        assert!(
            !store
                .take_lease_as("b", "jobs", 20_000, t + 24_000)
                .await
                .unwrap()
        );
        assert!(
            store
                .take_lease_as("b", "jobs", 20_000, t + 25_001)
                .await
                .unwrap(),
            "lapsed: taken over"
        );
        assert!(
            !store
                .take_lease_as("a", "jobs", 20_000, t + 25_002)
                .await
                .unwrap()
        );
        assert!(
            store.take_lease_as("a", "other", 20_000, t).await.unwrap(),
            "one per name"
        );
    }
}
