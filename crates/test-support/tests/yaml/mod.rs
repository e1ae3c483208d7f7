//! A YAML OpenAPI document of `../shared/specs` as the JSON values the checker reads (shared by
//! the spec tests of the vendors whose documents are YAML: TVDB, Plex).

#![allow(dead_code)]

use serde_json::{Number, Value, json};
use test_support::arr::spec::shared_dir;
use yaml_rust2::{Yaml, YamlLoader};

/// The document `file`, converted; panics with the path and the override when it is missing.
pub fn document(file: &str) -> Value {
    let path = shared_dir().join("specs").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); set MARQUEE_SHARED to the shared folder",
            path.display()
        )
    });
    let docs = YamlLoader::load_from_str(&text).unwrap();
    to_json(&docs[0])
}

/// A YAML node as the JSON value a JSON copy of the document would hold; mapping keys as strings
/// (`200:` becomes "200").
fn to_json(y: &Yaml) -> Value {
    match y {
        Yaml::Hash(h) => Value::Object(h.iter().map(|(k, v)| (key(k), to_json(v))).collect()),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Integer(i) => json!(i),
        Yaml::Real(r) => r
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Null | Yaml::Alias(_) | Yaml::BadValue => Value::Null,
    }
}

fn key(k: &Yaml) -> String {
    match k {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}
