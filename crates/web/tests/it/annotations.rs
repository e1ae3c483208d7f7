//! Every tool's four MCP annotations, as a table written by hand, against what `tools/list`
//! serves the owner of a household with an instance of every family (destructive tools on).
//! A tool added without a row, or a hint that changes, breaks the test with the row named.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::support;

/// (tool, readOnlyHint, destructiveHint, idempotentHint, openWorldHint). Open world: the tool
/// reaches TMDB, MusicBrainz, indexers, trackers or a URL a caller gives; the household's own
/// library services and torrent clients are a closed world.
const TABLE: &[(&str, bool, bool, bool, bool)] = &[
    ("add_torrent", false, false, false, true),
    ("apply_change", false, false, true, false),
    ("browse_titles", true, false, true, true),
    ("cancel_operation", false, false, true, false),
    ("check_connection", true, false, true, true),
    ("check_request_status", true, false, true, false),
    ("create_task", false, false, false, false),
    ("decide_request", false, false, true, false),
    ("delete_task", false, false, true, false),
    ("delete_torrents", false, true, false, false),
    ("describe_settings", true, false, true, false),
    ("diagnose", true, false, true, false),
    ("diagnose_queue", true, false, true, false),
    ("display_media", true, false, true, true),
    ("download_subtitle", false, false, false, true),
    ("downloads_overview", true, false, true, false),
    ("execute_manual_import", false, false, false, false),
    ("find_local_media", true, false, true, false),
    ("find_torrents", true, false, true, false),
    ("get_activity", true, false, true, false),
    ("get_calendar", true, false, true, false),
    ("get_change", true, false, true, false),
    ("get_configuration", true, false, true, false),
    ("get_connection_status", true, false, true, false),
    ("get_continue_watching", true, false, true, false),
    ("get_custom_formats", true, false, true, false),
    ("get_disk_space", true, false, true, false),
    ("get_download_history", true, false, true, false),
    ("get_episode_timeline", true, false, true, false),
    ("get_guide", true, false, true, false),
    ("get_health", true, false, true, false),
    ("get_history", true, false, true, false),
    ("get_item_timeline", true, false, true, false),
    ("get_library", true, false, true, false),
    ("get_manual_import_candidates", true, false, true, false),
    ("get_media_file_details", true, false, true, false),
    ("get_now_playing", true, false, true, false),
    ("get_operation", true, false, true, false),
    ("get_quality_profiles", true, false, true, false),
    ("get_queue", true, false, true, false),
    ("get_recently_added", true, false, true, false),
    ("get_recommendations", true, false, true, true),
    ("get_lyrics", true, false, true, true),
    ("find_tools", true, false, true, false),
    ("get_request_options", true, false, true, true),
    ("get_service_config", true, false, true, false),
    ("get_task_run", true, false, true, false),
    ("get_row", true, false, true, false),
    ("get_run_report", true, false, true, false),
    ("get_theme", true, false, true, false),
    ("get_title_details", true, false, true, true),
    ("get_trending", true, false, true, true),
    ("get_watch_history", true, false, true, false),
    ("grab_release", false, false, false, true),
    ("list_categories", true, false, true, false),
    ("list_indexers", true, false, true, true),
    ("list_instances", true, false, true, false),
    ("list_missing_subtitles", true, false, true, false),
    ("list_people", true, false, true, false),
    ("list_requests", true, false, true, false),
    ("list_schedulers", true, false, true, false),
    ("list_libraries", true, false, true, true),
    ("list_rows", true, false, true, false),
    ("list_runs", true, false, true, false),
    ("list_seasons", true, false, true, true),
    ("list_tasks", true, false, true, false),
    ("list_templates", true, false, true, false),
    ("list_themes", true, false, true, false),
    ("move_to_category", false, false, true, false),
    ("pause_torrents", false, false, true, false),
    ("plan_configuration", false, false, false, false),
    ("plan_maintenance", false, false, false, true),
    ("plan_organize", false, false, false, false),
    ("plan_people", false, false, false, true),
    ("plan_profile_change", false, false, false, false),
    ("plan_requests", false, false, false, true),
    ("plan_row", false, false, false, true),
    ("plan_run", false, false, false, true),
    ("plan_schedule", false, false, false, false),
    ("plan_season", false, false, false, true),
    ("plan_setup", false, false, false, true),
    ("plan_theme", false, false, false, true),
    ("preview_row", true, false, true, true),
    ("probe_media_file", true, false, true, false),
    ("query_library_exists", true, false, true, false),
    ("reannounce_torrents", false, false, false, true),
    ("recheck_torrents", false, false, false, false),
    ("recognize_media", true, false, true, true),
    ("remove_queue_item", false, true, false, false),
    ("request_media", false, false, true, true),
    ("rescan_media", false, false, false, false),
    ("resume_torrents", false, false, true, false),
    ("revert_change", false, false, false, false),
    ("run_scheduler", false, false, false, false),
    ("run_task", false, false, false, false),
    ("scan_library", true, false, true, false),
    ("scrape_metadata", false, false, false, true),
    ("search_books", true, false, true, true),
    ("search_collections", true, false, true, true),
    ("search_music", true, false, true, true),
    ("search_indexers", false, false, false, true),
    ("search_releases", false, false, false, true),
    ("search_subtitles", true, false, true, true),
    ("search_titles", true, false, true, true),
    ("set_category", false, false, true, false),
    ("set_tags", false, false, true, false),
    ("start_connection", false, false, false, false),
    ("torrent_detail", true, false, true, false),
    ("torrent_files", true, false, true, false),
    ("tracker_errors", true, false, true, false),
    ("trigger_search", false, false, false, true),
    ("update_task", false, false, true, false),
    ("upsert_custom_format", false, false, false, false),
    ("whoami", true, false, true, false),
];

/// An instance of every family, none of them contacted by `tools/list`.
pub(crate) fn every_family() -> Vec<tools::InstanceSpec> {
    use domain::InstanceKind::*;
    vec![
        support::builtin(),
        support::instance("radarr", Radarr, Some("http://127.0.0.1:9/"), Some("k")),
        support::instance("qb", Qbittorrent, Some("http://127.0.0.1:9/"), None),
        tools::InstanceSpec {
            path: Some(std::env::temp_dir().display().to_string()),
            ..support::instance("library", Folder, None, None)
        },
        support::instance("jellyfin", Jellyfin, Some("http://127.0.0.1:9/"), Some("k")),
        support::instance("lyrics", Lrclib, Some("http://127.0.0.1:9/"), None),
        support::instance("feed", Torznab, Some("http://127.0.0.1:9/api"), Some("k")),
        support::instance(
            "subs",
            Opensubtitles,
            Some("http://127.0.0.1:9/"),
            Some("k"),
        ),
    ]
}

#[tokio::test]
async fn every_tool_serves_the_hints_of_its_row() {
    let s = support::server_for(every_family(), true).await;
    let (status, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let served: BTreeMap<String, Value> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["annotations"].clone(),
            )
        })
        .collect();
    let want: BTreeMap<String, Value> = TABLE
        .iter()
        .map(|(name, ro, de, id, ow)| {
            (
                name.to_string(),
                json!({"readOnlyHint": ro, "destructiveHint": de, "idempotentHint": id, "openWorldHint": ow}),
            )
        })
        .collect();
    let mut broke = Vec::new();
    for (name, hints) in &want {
        match served.get(name) {
            None => broke.push(format!("{name}: in the table, not served")),
            Some(a) => {
                let got: Value = [
                    "readOnlyHint",
                    "destructiveHint",
                    "idempotentHint",
                    "openWorldHint",
                ]
                .iter()
                .map(|k| (k.to_string(), a[*k].clone()))
                .collect::<serde_json::Map<_, _>>()
                .into();
                if &got != hints {
                    broke.push(format!("{name}:\n  want {hints}\n  got  {got}"));
                }
            }
        }
    }
    for name in served.keys().filter(|n| !want.contains_key(*n)) {
        broke.push(format!("{name}: served, without a row in the table"));
    }
    // Every tool of the build is served here: the table is the whole registry.
    assert_eq!(
        served.len(),
        tools::tool_names().len(),
        "{:?}",
        served.keys()
    );
    assert!(broke.is_empty(), "{}", broke.join("\n"));
}
