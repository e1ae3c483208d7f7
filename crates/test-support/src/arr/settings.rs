//! Settings writes as the services take them: `PUT qualityprofile/{id}` (the whole profile; the
//! cutoff must be an allowed item, every format item a known custom format), the custom-format
//! `schema`, `POST customformat` (a new format enters every quality profile at score 0) and
//! `PUT customformat/{id}` (profile scores kept). Validation failures answer 400 with the
//! services' list of property errors.

use serde_json::{Value, json};

use super::{
    ArrKind, Resource,
    routes::{Answer, invalid, not_found, ok, parse_id},
    state::State,
};

/// Whether this request is one of the settings writes (or the schema) answered here.
pub(crate) fn handles(method: &str, segments: &[&str]) -> bool {
    matches!(
        (method, segments),
        ("PUT", ["qualityprofile", _])
            | ("GET", ["customformat", "schema"])
            | ("POST", ["customformat"])
            | ("PUT", ["customformat", _])
    )
}

pub(crate) fn answer(state: &mut State, segments: &[&str], body: &Value) -> Answer {
    match segments {
        ["qualityprofile", id] => put_profile(state, id, body),
        ["customformat", "schema"] => ok(schema(state.kind)),
        ["customformat"] => post_format(state, body),
        ["customformat", id] => put_format(state, id, body),
        _ => not_found(),
    }
}

fn put_profile(state: &mut State, id: &str, body: &Value) -> Answer {
    let Some(id) = parse_id(id).filter(|id| state.get(Resource::QualityProfile, *id).is_some())
    else {
        return not_found();
    };
    if body["id"].as_i64() != Some(id) {
        return invalid("Id", "the body's id must be the id in the path");
    }
    if body["name"].as_str().is_none_or(|n| n.trim().is_empty()) {
        return invalid("Name", "'Name' must not be empty.");
    }
    let Some(items) = body["items"].as_array() else {
        return invalid("Items", "'Items' must not be empty.");
    };
    let allowed_ids: Vec<i64> = items
        .iter()
        .filter(|i| i["allowed"] == true)
        .filter_map(|i| i["quality"]["id"].as_i64().or_else(|| i["id"].as_i64()))
        .collect();
    if allowed_ids.is_empty() {
        return invalid("Items", "Must contain at least one allowed quality");
    }
    if !body["cutoff"]
        .as_i64()
        .is_some_and(|c| allowed_ids.contains(&c))
    {
        return invalid("Cutoff", "Cutoff must be an allowed quality or group");
    }
    let formats: Vec<i64> = state
        .all(Resource::CustomFormat)
        .iter()
        .filter_map(|f| f["id"].as_i64())
        .collect();
    let unknown = body["formatItems"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|f| !f["format"].as_i64().is_some_and(|id| formats.contains(&id)));
    if unknown {
        return invalid("FormatItems", "All custom formats must exist");
    }
    if state.kind != ArrKind::Radarr && body.get("language").is_some() {
        return invalid("Language", "this service's profiles have no language");
    }
    state.update(Resource::QualityProfile, id, body.clone());
    ok(state.get(Resource::QualityProfile, id).unwrap_or_default())
}

/// Checks a custom format body; `Err` answers the service's 400.
fn check_format(state: &State, body: &Value, id: Option<i64>) -> Result<String, Answer> {
    let name = body["name"].as_str().unwrap_or("").trim().to_string();
    if name.is_empty() {
        return Err(invalid("Name", "'Name' must not be empty."));
    }
    let taken = state
        .find(Resource::CustomFormat, "name", &json!(name))
        .iter()
        .any(|f| f["id"].as_i64() != id);
    if taken {
        return Err(invalid("Name", "Must be unique"));
    }
    let schema = schema(state.kind);
    for spec in body["specifications"].as_array().into_iter().flatten() {
        let known = schema.as_array().into_iter().flatten().any(|s| {
            s["implementation"] == spec["implementation"]
                && spec["fields"].as_array().into_iter().flatten().all(|f| {
                    s["fields"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|sf| sf["name"] == f["name"])
                })
        });
        if !known {
            return Err(invalid("Specifications", "Unknown specification"));
        }
    }
    Ok(name)
}

fn post_format(state: &mut State, body: &Value) -> Answer {
    if let Err(refused) = check_format(state, body, None) {
        return refused;
    }
    let mut fields = body.clone();
    if let Some(f) = fields.as_object_mut() {
        f.remove("id");
    }
    let id = state.insert(Resource::CustomFormat, fields);
    let name = body["name"].clone();
    for profile in state.all(Resource::QualityProfile) {
        let mut items = profile["formatItems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        items.push(json!({ "format": id, "name": name, "score": 0 }));
        let pid = profile["id"].as_i64().unwrap_or_default();
        state.update(
            Resource::QualityProfile,
            pid,
            json!({ "formatItems": items }),
        );
    }
    (
        axum::http::StatusCode::CREATED,
        state.get(Resource::CustomFormat, id).unwrap_or_default(),
    )
}

fn put_format(state: &mut State, id: &str, body: &Value) -> Answer {
    let Some(id) = parse_id(id).filter(|id| state.get(Resource::CustomFormat, *id).is_some())
    else {
        return not_found();
    };
    if body["id"].as_i64() != Some(id) {
        return invalid("Id", "the body's id must be the id in the path");
    }
    let name = match check_format(state, body, Some(id)) {
        Ok(name) => name,
        Err(refused) => return refused,
    };
    state.update(Resource::CustomFormat, id, body.clone());
    // Profiles keep their scores; the name they show follows the format.
    for profile in state.all(Resource::QualityProfile) {
        let mut items = profile["formatItems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for item in items.iter_mut().filter(|i| i["format"] == json!(id)) {
            item["name"] = json!(name);
        }
        let pid = profile["id"].as_i64().unwrap_or_default();
        state.update(
            Resource::QualityProfile,
            pid,
            json!({ "formatItems": items }),
        );
    }
    ok(state.get(Resource::CustomFormat, id).unwrap_or_default())
}

fn field(order: i64, name: &str, label: &str, kind: &str, value: Value) -> Value {
    json!({ "order": order, "name": name, "label": label, "type": kind, "value": value,
        "advanced": false, "isFloat": false })
}

/// A few implementations of `customformat/schema`, with the fields the services give them.
fn schema(kind: ArrKind) -> Value {
    let text = |implementation: &str, name: &str| {
        json!({ "id": 0, "name": name, "implementation": implementation,
            "implementationName": name, "negate": false, "required": false,
            "fields": [field(0, "value", "Regular Expression", "textbox", Value::Null)], "presets": [] })
    };
    let sizes = json!({ "id": 0, "name": "Size", "implementation": "SizeSpecification",
        "implementationName": "Size", "negate": false, "required": false,
        "fields": [field(0, "min", "Minimum Size", "number", json!(0)),
                   field(1, "max", "Maximum Size", "number", json!(0))], "presets": [] });
    let mut source = json!({ "id": 0, "name": "Source", "implementation": "SourceSpecification",
        "implementationName": "Source", "negate": false, "required": false,
        "fields": [field(0, "value", "Source", "select", json!(0))], "presets": [] });
    source["fields"][0]["selectOptions"] = json!([
        { "value": 0, "name": "Unknown", "order": 0 },
        { "value": 6, "name": "WEBDL", "order": 6 },
        { "value": 9, "name": "BLURAY", "order": 9 }
    ]);
    let mut out = vec![
        text("ReleaseTitleSpecification", "Release Title"),
        text("ReleaseGroupSpecification", "Release Group"),
        sizes,
    ];
    if matches!(kind, ArrKind::Radarr | ArrKind::Sonarr) {
        out.push(source);
    }
    Value::Array(out)
}
