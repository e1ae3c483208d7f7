//! Failed authentications by source, shared by every replica on the store: the per-address
//! throttle of each process counts these too, so a guessing client gets the same number of
//! attempts behind a balancer of several replicas as against one. Only failures write here.

use sha2::{Digest, Sha256};

use crate::{Error, Store, now_ms};

impl Store {
    /// Records one failed authentication of `source` (an address, or an address and a name)
    /// now, forgets every failure older than `window_ms`, and answers how many `source` has had
    /// within it (this one included).
    pub async fn record_auth_failure(&self, source: &str, window_ms: i64) -> Result<u32, Error> {
        let key = hex::encode(Sha256::digest(source.as_bytes()));
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query("DELETE FROM auth_failures WHERE at < ?")
            .bind(now - window_ms)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO auth_failures (source, at) VALUES (?, ?)")
            .bind(&key)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM auth_failures WHERE source = ?")
            .bind(&key)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn failures_are_counted_per_source_within_the_window() {
        let store = Store::open_in_memory().await.unwrap();
        for n in 1..=3 {
            assert_eq!(
                store.record_auth_failure("10.0.0.1", 60_000).await.unwrap(),
                n
            );
        }
        assert_eq!(
            store.record_auth_failure("10.0.0.2", 60_000).await.unwrap(),
            1
        );
        // A window of nothing forgets every earlier failure.
        assert_eq!(store.record_auth_failure("10.0.0.1", -1).await.unwrap(), 1);
        let kept: Vec<String> = sqlx::query_scalar("SELECT source FROM auth_failures")
            .fetch_all(store.pool())
            .await
            .unwrap();
        assert!(
            kept.iter().all(|s| s.len() == 64 && !s.contains('.')),
            "{kept:?}"
        );
    }
}
