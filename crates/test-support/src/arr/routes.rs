//! Routing: which part of the fake answers a method and path below the API prefix.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{
    ArrKind, Resource, adds, commands, history, library, releases, server::ArrRequest, settings,
    state::State,
};

pub(crate) type Answer = (StatusCode, Value);

/// Resources served as plain lists with `GET x` and `GET x/{id}`.
const CONFIG: [Resource; 12] = [
    Resource::QualityProfile,
    Resource::MetadataProfile,
    Resource::CustomFormat,
    Resource::RootFolder,
    Resource::Tag,
    Resource::Health,
    Resource::DiskSpace,
    Resource::Indexer,
    Resource::DownloadClient,
    Resource::DelayProfile,
    Resource::ReleaseProfile,
    Resource::RemotePathMapping,
];

pub(crate) fn answer(state: &mut State, r: &ArrRequest) -> Answer {
    let kind = state.kind;
    let segments: Vec<&str> = r.path.trim_matches('/').split('/').collect();
    let resource = |name: &str| CONFIG.iter().copied().find(|c| c.path() == name);
    let library = [kind.item(), kind.unit(), kind.file()];
    let library = |name: &str| library.iter().copied().find(|c| c.path() == name);
    match (r.method.as_str(), segments.as_slice()) {
        ("GET", ["system", "status"]) => ok(system_status(kind, state.v5)),
        (method, _) if settings::handles(method, &segments) => {
            settings::answer(state, &segments, &r.body)
        }
        ("GET", [name]) if resource(name).is_some() => {
            ok(json!(state.all(resource(name).unwrap())))
        }
        ("GET", [name, id]) if resource(name).is_some() => {
            by_id(state, resource(name).unwrap(), id)
        }
        ("GET", ["queue"]) => releases::queue_page(state, r),
        ("GET", ["queue", "details"]) => ok(json!(releases::queue_list(state, r))),
        ("GET", ["queue", "status"]) => ok(releases::queue_status(state)),
        ("DELETE", ["queue", "bulk"]) => releases::remove_queue_bulk(state, r),
        ("DELETE", ["queue", id]) => releases::remove_queue(state, r, id),
        ("GET", ["history"]) => history::history_page(state, r),
        ("GET", ["history", "season" | "episode"]) if !state.v5 => not_found(),
        ("GET", ["history", _]) => history::history_of(state, r),
        ("GET", ["blocklist"]) => releases::blocklist_page(state, r),
        ("DELETE", ["blocklist", id]) => {
            match parse_id(id).and_then(|id| state.remove(Resource::Blocklist, id)) {
                Some(_) => (StatusCode::OK, Value::Null),
                None => not_found(),
            }
        }
        ("GET", ["calendar"]) => ok(history::calendar(state, r)),
        ("GET", ["command"]) => ok(json!(state.all(Resource::Command))),
        ("GET", ["command", id]) => by_id(state, Resource::Command, id),
        ("POST", ["command"]) => commands::post(state, &r.body),
        ("GET", ["release"]) => releases::search(state, r),
        ("POST", ["release"]) => releases::grab(state, &r.body),
        ("GET", ["manualimport"]) => releases::manual_import_candidates(state, r),
        ("GET", [_, "lookup", ..]) => library::lookup(state, &segments, r),
        ("POST", [name]) if library(name).is_some() => {
            adds::add(state, library(name).unwrap(), &r.body)
        }
        ("PUT", [name, "monitor"]) if library(name).is_some() => {
            library::monitor(state, library(name).unwrap(), &r.body)
        }
        ("PUT", [name, id]) if library(name).is_some() => {
            library::edit(state, library(name).unwrap(), id, &r.body)
        }
        ("DELETE", [name, id]) if library(name).is_some() => {
            match parse_id(id).and_then(|id| state.remove(library(name).unwrap(), id)) {
                Some(_) => (StatusCode::OK, Value::Null),
                None => not_found(),
            }
        }
        ("GET", [name]) if library(name).is_some() => {
            ok(json!(library::list(state, library(name).unwrap(), r)))
        }
        ("GET", [name, id]) if library(name).is_some() => {
            let resource = library(name).unwrap();
            match parse_id(id).and_then(|id| state.get(resource, id)) {
                Some(value) => ok(library::decorate(state, resource, value)),
                None => not_found(),
            }
        }
        _ => not_found(),
    }
}

pub(crate) fn ok(value: Value) -> Answer {
    (StatusCode::OK, value)
}

pub(crate) fn not_found() -> Answer {
    (StatusCode::NOT_FOUND, json!({ "message": "NotFound" }))
}

/// A validation failure as the services answer it: a list of property errors.
pub(crate) fn invalid(property: &str, message: &str) -> Answer {
    (
        StatusCode::BAD_REQUEST,
        json!([{ "propertyName": property, "errorMessage": message, "severity": "error" }]),
    )
}

pub(crate) fn parse_id(id: &str) -> Option<i64> {
    id.parse().ok()
}

fn by_id(state: &State, resource: Resource, id: &str) -> Answer {
    match parse_id(id).and_then(|id| state.get(resource, id)) {
        Some(value) => ok(value),
        None => not_found(),
    }
}

/// Reads `page`, `pageSize` and `sortDirection` and wraps one page of `records` (sorted by id).
pub(crate) fn page(r: &ArrRequest, mut records: Vec<Value>, extra_total: i64) -> Answer {
    let page: usize = r
        .param("page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(1)
        .max(1);
    let size: usize = r
        .param("pageSize")
        .and_then(|p| p.parse().ok())
        .unwrap_or(10);
    let descending = r.param("sortDirection") == Some("descending");
    let sort_key = r.param("sortKey").unwrap_or("id").to_string();
    records.sort_by_key(|v| v["id"].as_i64());
    if descending {
        records.reverse();
    }
    let total = records.len() as i64 + extra_total;
    let records: Vec<Value> = records
        .into_iter()
        .skip((page - 1) * size)
        .take(size)
        .collect();
    ok(json!({
        "page": page, "pageSize": size, "sortKey": sort_key,
        "sortDirection": if descending { "descending" } else { "ascending" },
        "totalRecords": total, "records": records
    }))
}

fn system_status(kind: ArrKind, v5: bool) -> Value {
    let version = match kind {
        ArrKind::Radarr => "5.26.2.10099",
        ArrKind::Sonarr if v5 => super::v5::VERSION,
        ArrKind::Sonarr => "4.0.15.2941",
        ArrKind::Lidarr => "2.13.3.4711",
        ArrKind::Readarr => "0.4.18.2805",
    };
    json!({
        "appName": kind.name(), "instanceName": kind.name(), "version": version,
        "isDebug": false, "isProduction": true, "isAdmin": false, "isUserInteractive": false,
        "isNetCore": true, "isLinux": true, "isOsx": false, "isWindows": false, "isDocker": true,
        "branch": "main", "urlBase": "", "runtimeName": ".NET"
    })
}
