//! Canary secrets: every backend's key or password is a distinctive string, and the backends'
//! answers echo it back (in error bodies, in JSON fields named like secrets, in URLs, in bytes
//! that are not HTTP). Across normal calls and every fault, no canary reaches a tool answer, a
//! REST body, an error, a log line, the /metrics text or an owner page.

use domain::InstanceKind;
use serde_json::json;
use test_support::{ArrKind, FakeArr, Fault, FaultProxy, TmdbFake, arr::Resource};

use crate::support::{logs, marquee, spec};

/// Answers that carry the key back, as services (and broken proxies in front of them) do.
fn echoes(key: &str) -> Vec<Fault> {
    let json_echo = json!({
        "message": format!("invalid api key {key}"),
        "apiKey": key,
        "api_key": key,
        "password": key,
        "url": format!("http://user:{key}@radarr.lan:7878/api/v3?apikey={key}"),
        "headers": {"X-Api-Key": key, "Authorization": format!("Bearer {key}")},
    })
    .to_string();
    vec![
        Fault::None,
        Fault::Answer {
            status: 401,
            body: json_echo.clone(),
        },
        Fault::Answer {
            status: 400,
            body: json_echo.clone(),
        },
        Fault::Answer {
            status: 500,
            body: format!("Unhandled exception: key={key} at System.Web"),
        },
        Fault::Answer {
            status: 200,
            body: format!("[{json_echo}]"),
        },
        Fault::Answer {
            status: 200,
            body: json_echo,
        },
        Fault::Answer {
            status: 200,
            body: format!("{{\"records\": [\"{key}\"], \"totalRecords\": \"{key}\"}}"),
        },
        Fault::Garbage,
        Fault::Reset,
        Fault::Truncate(30),
        Fault::TooManyRequests { retry_after: 5 },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_canary_reaches_an_answer_a_log_metrics_or_a_page() {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1, "monitored": true}),
    );
    let tmdb = TmdbFake::start().await;
    let arr_proxy = FaultProxy::in_front_of(&radarr.url()).await;
    let tmdb_proxy = FaultProxy::in_front_of(tmdb.base_url()).await;
    let arr_key = radarr.api_key().to_string();
    let tmdb_key = TmdbFake::API_KEY.to_string();
    let canaries = [arr_key.clone(), tmdb_key.clone()];
    let mut radarr_spec = spec(
        "radarr",
        InstanceKind::Radarr,
        &arr_proxy.url_for(&radarr.url()),
        Some(&arr_key),
    );
    radarr_spec.default = true;
    let mut tmdb_spec = spec(
        "tmdb",
        InstanceKind::Tmdb,
        &tmdb_proxy.url_for(tmdb.base_url()),
        Some(&tmdb_key),
    );
    tmdb_spec.default = true;
    let m = marquee(vec![radarr_spec, tmdb_spec]).await;

    let heat = json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"});
    let calls = [
        ("get_disk_space", json!({})),
        ("get_health", json!({})),
        ("get_queue", json!({})),
        ("get_library", json!({"media_type": "movie"})),
        ("get_quality_profiles", json!({})),
        ("get_history", json!({})),
        ("get_calendar", json!({})),
        ("diagnose", json!({})),
        ("list_instances", json!({})),
        ("search_titles", json!({"query": "heat"})),
        (
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"}),
        ),
        ("rescan_media", heat.clone()),
        (
            "search_releases",
            json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"}),
        ),
    ];
    let mut seen = String::new();
    let mut leaks: Vec<String> = Vec::new();
    let mut answered = 0;
    for (i, fault) in echoes(&arr_key).into_iter().enumerate() {
        arr_proxy.set(fault.clone());
        let tmdb_fault = match &fault {
            Fault::Answer { status, body } => Fault::Answer {
                status: *status,
                body: body.replace(&arr_key, &tmdb_key),
            },
            other => other.clone(),
        };
        tmdb_proxy.set(tmdb_fault);
        for (tool, args) in &calls {
            let mut args = args.clone();
            if *tool == "search_titles" {
                args["year"] = json!(1990 + i as i64); // a question of its own: never a kept answer
            }
            let c = m.call(tool, args.clone()).await;
            answered += 1;
            let (_, rest) = m
                .post(
                    "/api/v1/tools/call",
                    json!({"tool_name": tool, "arguments": args}),
                )
                .await;
            for (text, via) in [(c.result.to_string(), "mcp"), (rest, "rest")] {
                for canary in &canaries {
                    if text.contains(canary.as_str()) {
                        leaks.push(format!(
                            "{tool} via {via}, fault {i}: {}",
                            around(&text, canary)
                        ));
                    }
                }
                seen.push_str(&text);
            }
        }
    }
    arr_proxy.set(Fault::None);
    tmdb_proxy.set(Fault::None);
    for path in [
        "/metrics",
        "/api/v1/tools",
        "/sign-in",
        "/household",
        "/changes",
        "/requests",
        "/api/v1/openapi.json",
    ] {
        let (_, body) = m.get(path).await;
        seen.push_str(&body);
    }
    let log = logs();
    assert!(answered >= 100, "{answered} calls made");
    assert!(log.len() > 1000, "logs were captured: {} bytes", log.len());
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    for canary in &canaries {
        assert!(
            !seen.contains(canary.as_str()),
            "canary {canary} in an answer or page: {}",
            around(&seen, canary)
        );
        assert!(
            !log.contains(canary.as_str()),
            "canary {canary} in the log: {}",
            around(&log, canary)
        );
    }
}

/// The text around the first place `needle` occurs.
fn around(hay: &str, needle: &str) -> String {
    let at = hay.find(needle).unwrap_or(0);
    let start = hay.floor_char_boundary(at.saturating_sub(120));
    let end = hay.ceil_char_boundary((at + 120).min(hay.len()));
    hay[start..end].to_string()
}
