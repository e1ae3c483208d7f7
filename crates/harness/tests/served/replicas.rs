//! Two `marquee serve` processes on one data folder are replicas of one gateway: each
//! registers on the store; one holds the jobs' lease and runs the jobs that act on what they
//! share (the other only those that keep its own memory fresh); the second
//! one's start leaves the first one's unfinished work alone; when the leader is SIGKILLed, the
//! other takes the lease over within 30 s and closes the dead one's unfinished work as
//! `outcome_unknown`, and only then. A guesser alternating between the two is refused after
//! ten failed keys in all.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{Served, call_at, client, data};

/// The jobs' lease holder, while it holds.
async fn holder(served: &Served) -> Option<String> {
    let mut db = served.db().await;
    sqlx::query_scalar("SELECT holder FROM leases WHERE name = 'jobs' AND until_ms >= ?")
        .bind(now_ms())
        .fetch_optional(&mut db)
        .await
        .unwrap()
}

fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// The pid in a replica id (`machine:pid:random`).
fn pid_of(replica: &str) -> u32 {
    replica.split(':').nth(1).unwrap().parse().unwrap()
}

async fn status(served: &Served, audit_id: i64) -> String {
    let mut db = served.db().await;
    sqlx::query_scalar("SELECT status FROM audit WHERE id = ?")
        .bind(audit_id)
        .fetch_one(&mut db)
        .await
        .unwrap()
}

#[tokio::test]
async fn replicas_share_the_store_and_the_jobs_move_when_the_leader_dies() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let mut a = Served::first(dir.path(), &data_dir, "").await;
    let mut b = a.beside(&dir.path().join("b")).await;

    let deadline = Instant::now() + Duration::from_secs(20);
    let leader = loop {
        if let Some(h) = holder(&a).await {
            break h;
        }
        assert!(Instant::now() < deadline, "no replica took the jobs' lease");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut db = a.db().await;
    let replicas: Vec<String> = sqlx::query_scalar("SELECT id FROM replicas")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(replicas.len(), 2, "{replicas:?}");
    let (leading, other) = if Some(pid_of(&leader)) == a.pid() {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    assert_eq!(Some(pid_of(&leader)), leading.pid());
    // The follower runs the jobs that keep its own memory fresh, not the leader's.
    let (leads, tasks_ran) = schedulers(other).await;
    assert!(!leads && !tasks_ran, "the follower runs no leader's job");
    let (leads, _) = schedulers(leading).await;
    assert!(leads);

    // A guesser alternating between the replicas is refused after ten failures in all, as
    // against one server: the count is the store's.
    let http = client();
    for n in 1..=10 {
        let at = if n % 2 == 0 { &*leading } else { &*other };
        let wrong = format!("mq_wrong{n:02}");
        let refused = call_at(&http, &at.base, &wrong, "whoami", json!({})).await;
        let said = refused.expect_err("a wrong key is refused");
        let want = if n < 10 { "HTTP 401" } else { "HTTP 429" };
        assert!(said.starts_with(want), "attempt {n}: {said}");
    }

    // Work the leader has under way (an entry it marked, executing): the other replica
    // answers calls meanwhile and leaves it alone.
    let owner = store_owner(&mut db).await;
    let entry: i64 = sqlx::query_scalar(
        "INSERT INTO audit (at, person_id, tool, args_digest, status, replica) \
         VALUES (?, ?, 'request_media', 'd', 'executing', ?) RETURNING id",
    )
    .bind(now_ms())
    .bind(owner)
    .bind(&leader)
    .fetch_one(&mut db)
    .await
    .unwrap();
    let answer = other.must(&other.owner, "whoami", json!({})).await;
    assert!(data(&answer).is_some(), "{answer}");
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        status(other, entry).await,
        "executing",
        "a live replica's work"
    );

    // The leader dies: the other takes the lease over and closes the dead one's work.
    let died = Instant::now();
    leading.kill();
    let deadline = died + Duration::from_secs(30);
    loop {
        let now_holder = holder(other).await;
        let taken = now_holder.as_deref().map(pid_of) == other.pid();
        if taken && status(other, entry).await == "outcome_unknown" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "within 30 s the other replica leads ({now_holder:?}) and closes the dead one's work; its log:\n{}",
            other.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    println!(
        "harness: replicas: the jobs moved to the other replica {:.1} s after the leader died",
        died.elapsed().as_secs_f64()
    );
    let answer = other.must(&other.owner, "whoami", json!({})).await;
    assert!(data(&answer).is_some(), "the survivor answers: {answer}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while schedulers(other).await != (true, true) {
        assert!(
            Instant::now() < deadline,
            "the survivor runs the task scheduler"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Whether `served` leads the jobs, and whether its task scheduler ran a pass there.
async fn schedulers(served: &Served) -> (bool, bool) {
    let seen = served
        .must(&served.owner, "list_schedulers", json!({}))
        .await;
    let seen = data(&seen).unwrap_or_else(|| panic!("{seen}"));
    let tasks = seen["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["job_id"] == "tasks.schedule")
        .unwrap_or_else(|| panic!("{seen}"));
    assert_eq!(tasks["runs_on"], "leader", "{seen}");
    (seen["leads_jobs"] == true, !tasks["last_run"].is_null())
}

async fn store_owner(db: &mut sqlx::SqliteConnection) -> i64 {
    sqlx::query_scalar("SELECT id FROM people WHERE role = 'owner' LIMIT 1")
        .fetch_one(db)
        .await
        .unwrap()
}
