//! Tools over broken backends, end to end: Marquee with a Radarr, a Sonarr, a Lidarr and a
//! Readarr whose answers are the contract fakes' own, broken by each input, called through the
//! real router. Every answer is a JSON-RPC result (a tool error is a result too), no answer
//! carries an instance's key, and nothing panics (a panic a tool's containment catches is
//! still counted by the harness's hook).

use std::sync::Arc;

use domain::{InstanceKind, Secret};
use harness::run_async;
use serde_json::{Value, json};
use test_support::ArrKind;
use tools::InstanceSpec;

use crate::{
    decoders::{ARR_KEYS, arr_seeds, broken, programmable},
    support::{marquee, send, status_allowed},
};

const KINDS: &[(ArrKind, adapters_library::Service, InstanceKind, &str)] = &[
    (
        ArrKind::Radarr,
        adapters_library::Service::Radarr,
        InstanceKind::Radarr,
        "radarr",
    ),
    (
        ArrKind::Sonarr,
        adapters_library::Service::Sonarr,
        InstanceKind::Sonarr,
        "sonarr",
    ),
    (
        ArrKind::Lidarr,
        adapters_library::Service::Lidarr,
        InstanceKind::Lidarr,
        "lidarr",
    ),
    (
        ArrKind::Readarr,
        adapters_library::Service::Readarr,
        InstanceKind::Readarr,
        "readarr",
    ),
];

/// The tools that read the libraries, with arguments they take.
fn calls(g: &mut harness::Gen) -> (&'static str, Value) {
    let heat = json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"});
    let show = json!({"media_source": "tvdb", "media_id": "81189", "media_type": "tv"});
    let which = *g.pick(&["radarr", "sonarr", "lidarr", "readarr"]);
    let one = if g.one_in(2) {
        json!({"instance_id": which})
    } else {
        json!({})
    };
    match g.below(12) {
        0 => ("get_queue", one),
        1 => ("get_history", one),
        2 => (
            "get_library",
            json!({"media_type": *g.pick(&["movie", "tv", "music", "book"])}),
        ),
        3 => ("get_health", one),
        4 => ("get_disk_space", one),
        5 => ("get_quality_profiles", one),
        6 => ("get_custom_formats", one),
        7 => ("get_calendar", json!({})),
        8 => ("diagnose_queue", json!({})),
        9 => ("get_item_timeline", if g.one_in(2) { heat } else { show }),
        10 => ("get_media_file_details", heat),
        _ => ("search_releases", heat),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_over_broken_library_answers() {
    let mut servers = Vec::new();
    let mut specs: Vec<InstanceSpec> = Vec::new();
    for (kind, service, instance_kind, id) in KINDS {
        let seeds = arr_seeds(*kind, *service).await;
        let (answers, url) = programmable().await;
        *answers.0.lock().unwrap() = seeds.clone();
        let key = format!("canary-{id}-key-77c1");
        specs.push(InstanceSpec {
            id: (*id).into(),
            kind: *instance_kind,
            url: Some(url),
            path: None,
            username: None,
            password: None,
            api_key: Some(Secret::new(&key)),
            default: true,
        });
        servers.push((seeds, answers, key));
    }
    let servers = Arc::new(servers);
    let m = marquee(specs).await;
    let whole = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let report = run_async("tool-answers", 300, |mut g| {
        for (seeds, answers, _) in servers.iter() {
            *answers.0.lock().unwrap() = if g.one_in(3) {
                seeds.clone()
            } else {
                broken(&mut g, seeds, ARR_KEYS)
            };
        }
        let (tool, arguments) = calls(&mut g);
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":arguments}});
        let request = axum::http::Request::post("/mcp")
            .header("host", "127.0.0.1:8765")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {}", m.owner_key))
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let router = m.router.clone();
        let servers = servers.clone();
        let whole = whole.clone();
        async move {
            let (resp, bytes) = send(&router, request).await;
            status_allowed(resp.status().as_u16())?;
            let text = String::from_utf8_lossy(&bytes);
            let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{tool}: not JSON ({e}): {text}"))?;
            if v["result"]["content"].as_array().is_none() {
                return Err(format!("{tool}: not a tool result: {text}"));
            }
            if v["result"]["isError"] == false {
                whole.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            for (_, _, key) in servers.iter() {
                if text.contains(key.as_str()) {
                    return Err(format!("{tool}: the key {key} in the answer"));
                }
            }
            Ok(())
        }
    })
    .await;
    report.assert_clean();
    // Past the failures: a share of the calls is answered in full.
    let whole = whole.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        whole * 10 > report.inputs,
        "{whole} of {} answered",
        report.inputs
    );
    eprintln!(
        "tool-answers: {whole} of {} answered without error",
        report.inputs
    );
}
