//! Every bound a tool's input schema declares is enforced: for every tool and every bounded
//! argument, a value one past the bound is refused with a message naming the argument, and the
//! value at the bound is accepted. The other arguments are the smallest valid ones the schema
//! describes (for a string with a `pattern`, the example `tools::ids::EXAMPLES` gives, or the
//! schema's own first example). `limit` and `page` start at 1 everywhere.

#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

type Defs = Map<String, Value>;

/// `s` with its `$ref` followed.
fn resolved<'a>(s: &'a Value, defs: &'a Defs) -> &'a Value {
    match s["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => resolved(&defs[name], defs),
        None => s,
    }
}

/// The first type a schema allows other than null.
fn kind(s: &Value) -> Option<&str> {
    match &s["type"] {
        Value::String(t) => Some(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

/// A value `pattern` takes and one it refuses: from `tools::ids::EXAMPLES`, or the schema's
/// own first example (then a value with a space in it, which no id takes).
fn example(s: &Value) -> Option<(Value, Value)> {
    let pattern = s["pattern"].as_str()?;
    if let Some((_, good, bad)) = tools::ids::EXAMPLES.iter().find(|(p, ..)| *p == pattern) {
        return Some((json!(good), json!(bad)));
    }
    let good = s["examples"].as_array()?.first()?.clone();
    Some((good, json!("not one of these")))
}

/// The smallest valid value of `s`.
fn sample(s: &Value, defs: &Defs) -> Value {
    let s = resolved(s, defs);
    if let Some(first) = s["enum"]
        .as_array()
        .and_then(|e| e.iter().find(|v| !v.is_null()))
    {
        return first.clone();
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branch) = s[key]
            .as_array()
            .and_then(|b| b.iter().find(|b| resolved(b, defs)["type"] != "null"))
        {
            return sample(branch, defs);
        }
    }
    match kind(s) {
        Some("string") if s.get("pattern").is_some() => match example(s) {
            Some((good, _)) => good,
            None => json!(format!("no example of {}", s["pattern"])),
        },
        Some("string") => json!("a".repeat(s["minLength"].as_u64().unwrap_or(1).max(1) as usize)),
        Some("integer") => json!(s["minimum"].as_i64().unwrap_or(1).max(1)),
        Some("number") => json!(1.0),
        Some("boolean") => json!(false),
        Some("array") => {
            let n = s["minItems"].as_u64().unwrap_or(0);
            Value::Array((0..n).map(|_| sample(&s["items"], defs)).collect())
        }
        _ => Value::Object(required(s, defs)),
    }
}

/// The required properties of an object schema, each at its smallest valid value.
fn required(s: &Value, defs: &Defs) -> Map<String, Value> {
    s["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| (name.to_string(), sample(&s["properties"][name], defs)))
        .collect()
}

/// The value at a bound and the one just past it, for each bound `s` declares.
fn edges(s: &Value, defs: &Defs) -> Vec<(&'static str, Value, Value)> {
    let mut out = Vec::new();
    let items = |n: u64| Value::Array((0..n).map(|_| sample(&s["items"], defs)).collect());
    if let Some(min) = s["minimum"].as_i64() {
        out.push(("minimum", json!(min), json!(min - 1)));
    }
    if let Some(max) = s["maximum"].as_i64() {
        out.push(("maximum", json!(max), json!(max + 1)));
    }
    if let Some(min) = s["minLength"].as_u64().filter(|m| *m > 0) {
        out.push((
            "minLength",
            json!("a".repeat(min as usize)),
            json!("a".repeat(min as usize - 1)),
        ));
    }
    if let Some(max) = s["maxLength"].as_u64() {
        out.push((
            "maxLength",
            json!("a".repeat(max as usize)),
            json!("a".repeat(max as usize + 1)),
        ));
    }
    if let Some((good, bad)) = example(s) {
        out.push(("pattern", good, bad));
    }
    if let Some(min) = s["minItems"].as_u64().filter(|m| *m > 0) {
        out.push(("minItems", items(min), items(min - 1)));
    }
    if let Some(max) = s["maxItems"].as_u64() {
        out.push(("maxItems", items(max), items(max + 1)));
    }
    out
}

#[test]
fn every_declared_bound_is_enforced_at_its_edge() {
    let mut checked = Vec::new();
    let mut broke = Vec::new();
    for family in tools::families() {
        for tool in family.tools() {
            let name = tool.meta().name;
            let schema = Value::Object(tool.input_schema());
            let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
            let base = required(&schema, &defs);
            if let Err(e) = tool.prepare(base.clone()) {
                broke.push(format!(
                    "{name}: its smallest valid input is refused: {}",
                    e.message
                ));
                continue;
            }
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for (arg, s) in &props {
                for (bound, at, past) in edges(s, &defs) {
                    let with = |v: &Value| {
                        let mut args = base.clone();
                        args.insert(arg.clone(), v.clone());
                        args
                    };
                    checked.push(format!("{name}.{arg} {bound}"));
                    if let Err(e) = tool.prepare(with(&at)) {
                        broke.push(format!(
                            "{name}.{arg} at its {bound} ({at}) is refused: {}",
                            e.message
                        ));
                    }
                    match tool.prepare(with(&past)) {
                        Ok(_) => broke.push(format!("{name}.{arg} past its {bound} is accepted")),
                        Err(e) => {
                            let named = format!("invalid argument \"{arg}\"");
                            if !e.message.contains(&named) {
                                broke.push(format!(
                                    "{name}.{arg} past its {bound}: the refusal does not name it: {}",
                                    e.message
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(broke.is_empty(), "{}", broke.join("\n"));
    // Not vacuous: the bounds the tools' own checks enforce are declared.
    for expected in [
        "get_activity.limit maximum",
        "find_torrents.limit minimum",
        "torrent_files.limit maximum",
        "search_books.limit maximum",
        "search_titles.page minimum",
        "delete_torrents.info_hashes maxItems",
        "pause_torrents.info_hashes minItems",
        "set_tags.tags maxItems",
        "remove_queue_item.queue_ids maxItems",
        "execute_manual_import.files maxItems",
        "display_media.titles maxItems",
        "display_media.heading maxLength",
        "decide_request.note maxLength",
        "upsert_custom_format.specifications maxItems",
        "torrent_detail.info_hash pattern",
        "diagnose.instance_id pattern",
        "get_change.change_id pattern",
        "get_operation.operation_id pattern",
        "apply_change.idempotency_key pattern",
        "get_title_details.media_id pattern",
        "search_titles.page maximum",
        "request_media.seasons maxItems",
    ] {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} is not declared"
        );
    }
}

/// `limit` and `page` start at 1 wherever they are taken: 0 is refused by the schema a client
/// reads, not only when the call runs.
#[test]
fn limit_and_page_start_at_one() {
    for family in tools::families() {
        for tool in family.tools() {
            let schema = Value::Object(tool.input_schema());
            for arg in ["limit", "page"] {
                if let Some(p) = schema["properties"].get(arg) {
                    assert_eq!(p["minimum"], json!(1), "{}.{arg}: {p}", tool.meta().name);
                }
            }
        }
    }
}
