//! The federated read benchmark's driver (`scripts/bench-federated.sh`): the official everything
//! server's read-only `echo`, started over stdio twice in the same run and called `N` times
//! each way, alternating blocks of 50: directly through adapters-mcp's client (the reference),
//! and as `ev__echo` through Marquee's governance core (authentication already done, policy,
//! the schema check, the same client). Prints one JSON line: median and p90 per call each way,
//! and the ratio of the medians.
//!
//! `federated_bench NODE EVERYTHING_ENTRY [N]`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use adapters_mcp::{Launch, Server, ServerConfig};
use domain::InstanceKind;
use serde_json::{Map, Value, json};
use store::Store;
use tools::{Called, InstanceSpec, Instances, Settings};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn message() -> Map<String, Value> {
    json!({"message": "hello from the benchmark"})
        .as_object()
        .cloned()
        .unwrap()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (node, entry) = (args[1].clone(), args[2].clone());
    let n: usize = args.get(3).map_or(2000, |a| a.parse().unwrap());

    // The reference: the server called straight through the client.
    let direct = Server::new(ServerConfig {
        id: "direct".into(),
        launch: Launch::Stdio {
            command: node.clone(),
            args: vec![entry.clone(), "stdio".into()],
            env: Vec::new(),
        },
        secrets: Vec::new(),
        timeout: Duration::from_secs(15),
        max_answer_bytes: adapters_mcp::MAX_ANSWER_BYTES,
    });
    while direct.tools().is_none() {
        direct.tick().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Federated: the same server as an `mcp` instance of a Marquee core, called by its owner.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let spec = InstanceSpec {
        id: "ev".into(),
        kind: InstanceKind::Mcp,
        url: None,
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: false,
    };
    let launch = tools::Launch {
        command: Some(node),
        args: vec![entry, "stdio".into()],
        env: Vec::new(),
        headers: Vec::new(),
    };
    let instances = Instances::new(vec![spec])
        .unwrap()
        .with_launches([("ev".to_string(), launch)]);
    let settings = Settings::new(false, None);
    // The per-person call rate would stop a benchmark: off.
    settings.call_rate.set_per_minute(0);
    let app = tools::app(store, Arc::new(settings), Arc::new(instances));
    app.start_jobs(std::future::pending());
    let owner = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    while !app.visible(&owner).contains(&"ev__echo") {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (mut plain, mut governed) = (Vec::with_capacity(n), Vec::with_capacity(n));
    // Warm both paths first.
    for _ in 0..50 {
        direct.call("echo", message(), None).await.unwrap();
        let _ = app.call(&owner, "ev__echo", Some(message())).await;
    }
    while plain.len() < n {
        for _ in 0..50 {
            let t = Instant::now();
            direct.call("echo", message(), None).await.unwrap();
            plain.push(t.elapsed());
        }
        for _ in 0..50 {
            let t = Instant::now();
            match app.call(&owner, "ev__echo", Some(message())).await {
                Called::Done(Ok(_)) => {}
                other => panic!("the federated call failed: {other:?}"),
            }
            governed.push(t.elapsed());
        }
    }
    plain.sort();
    governed.sort();
    let (d50, f50) = (percentile(&plain, 0.5), percentile(&governed, 0.5));
    println!(
        "{}",
        json!({
            "calls": n,
            "direct_p50_us": d50.round(),
            "direct_p90_us": percentile(&plain, 0.9).round(),
            "federated_p50_us": f50.round(),
            "federated_p90_us": percentile(&governed, 0.9).round(),
            "ratio_p50": (f50 / d50 * 100.0).round() / 100.0,
        })
    );
}
