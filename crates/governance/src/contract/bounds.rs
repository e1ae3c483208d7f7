//! The bounds a tool's input schema declares (`minimum`, `maximum`, `minLength`, `maxLength`,
//! `pattern`, `minItems`, `maxItems`), enforced on the arguments before they are parsed: the schema a
//! client reads is the rule the server applies, one source of truth. Each input type's schema
//! is generated once and kept.

use std::{
    any::TypeId,
    collections::HashMap,
    sync::{Arc, OnceLock, RwLock},
};

use regex_automata::meta::Regex;
use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::error::ToolError;

/// An input schema, shared.
type Schema = Arc<Map<String, Value>>;

/// The input schema of `I`, generated on first use and kept for the process.
pub(crate) fn schema_of<I: JsonSchema + 'static>() -> Schema {
    static KEPT: OnceLock<RwLock<HashMap<TypeId, Schema>>> = OnceLock::new();
    let kept = KEPT.get_or_init(Default::default);
    let id = TypeId::of::<I>();
    if let Some(s) = kept.read().ok().and_then(|k| k.get(&id).cloned()) {
        return s;
    }
    let schema = Arc::new(super::input_schema::<I>());
    if let Ok(mut k) = kept.write() {
        k.insert(id, schema.clone());
    }
    schema
}

/// Refuses `arguments` when a value breaks a bound its schema declares, naming the argument
/// and the bound. Values of another type than the schema's are left to the parser, which
/// names them.
pub fn check(schema: &Map<String, Value>, arguments: &Map<String, Value>) -> Result<(), ToolError> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, value) in arguments {
        if let Some(s) = props.get(name) {
            value_in(s, defs, value, name).map_err(ToolError::invalid)?;
        }
    }
    Ok(())
}

fn value_in(
    schema: &Value,
    defs: Option<&Map<String, Value>>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(target) = schema.get("$ref").and_then(Value::as_str)
        && let Some(def) = target
            .strip_prefix("#/$defs/")
            .and_then(|n| defs.and_then(|d| d.get(n)))
    {
        value_in(def, defs, value, path)?;
    }
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let whole = |key: &str| schema.get(key).and_then(Value::as_u64);
    let bad = |what: String| format!("invalid argument \"{path}\": {what}");
    match value {
        Value::Number(n) => {
            let Some(x) = n.as_f64() else { return Ok(()) };
            if let Some(min) = bound("minimum")
                && x < min
            {
                return Err(bad(format!("{n} is below the minimum {}", number(min))));
            }
            if let Some(max) = bound("maximum")
                && x > max
            {
                return Err(bad(format!("{n} is above the maximum {}", number(max))));
            }
        }
        Value::String(s) => {
            let len = s.chars().count() as u64;
            if let Some(min) = whole("minLength")
                && len < min
            {
                return Err(bad(format!("{len} characters; give at least {min}")));
            }
            if let Some(max) = whole("maxLength")
                && len > max
            {
                return Err(bad(format!("{len} characters; give at most {max}")));
            }
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
                && !matches(pattern, s)?
            {
                return Err(bad(format!("\"{}\" does not match {pattern}", shown(s))));
            }
        }
        Value::Array(items) => {
            let len = items.len() as u64;
            if let Some(min) = whole("minItems")
                && len < min
            {
                return Err(bad(format!("{len} items; give at least {min}")));
            }
            if let Some(max) = whole("maxItems")
                && len > max
            {
                return Err(bad(format!("{len} items; give at most {max}")));
            }
            if let Some(each) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    value_in(each, defs, item, &format!("{path}[{i}]"))?;
                }
            }
        }
        Value::Object(fields) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, v) in fields {
                    if let Some(s) = props.get(name) {
                        value_in(s, defs, v, &format!("{path}.{name}"))?;
                    }
                }
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}

/// Whether `text` matches `pattern` as JSON Schema reads it (anywhere in the text, unless the
/// pattern anchors itself). Each pattern is compiled once and kept; one that does not compile
/// refuses the call (fail closed).
fn matches(pattern: &str, text: &str) -> Result<bool, String> {
    static KEPT: OnceLock<RwLock<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let kept = KEPT.get_or_init(Default::default);
    let found = kept.read().ok().and_then(|k| k.get(pattern).cloned());
    let re = match found {
        Some(re) => re,
        None => {
            let re = Arc::new(Regex::new(pattern).map_err(|e| {
                tracing::error!(pattern, error = %e, "an input schema's pattern does not compile");
                "this argument's declared pattern cannot be checked; the server log has the details"
                    .to_string()
            })?);
            if let Ok(mut k) = kept.write() {
                k.insert(pattern.to_string(), re.clone());
            }
            re
        }
    };
    Ok(re.is_match(text))
}

/// A refused value as an error shows it: its first 40 characters.
fn shown(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// A bound as people write it: `200`, not `200.0`.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Item {
        #[schemars(length(max = 3))]
        name: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Input {
        #[schemars(range(min = 1, max = 200))]
        limit: Option<u32>,
        #[schemars(length(min = 1, max = 2))]
        items: Vec<Item>,
        #[schemars(regex(pattern = r"^[0-9a-f]{40}$"))]
        hash: Option<String>,
        #[schemars(inner(regex(pattern = r"^tt[0-9]+$")))]
        ids: Option<Vec<String>>,
    }

    fn checked(args: serde_json::Value) -> Result<(), String> {
        let schema = schema_of::<Input>();
        let Value::Object(args) = args else {
            unreachable!()
        };
        check(&schema, &args).map_err(|e| e.message)
    }

    #[test]
    fn bounds_are_refused_outside_and_accepted_at_the_edge() {
        let one = json!([{"name": "abc"}]);
        assert_eq!(checked(json!({"limit": 1, "items": one})), Ok(()));
        assert_eq!(checked(json!({"limit": 200, "items": one})), Ok(()));
        assert_eq!(
            checked(json!({"limit": 0, "items": one})),
            Err("invalid argument \"limit\": 0 is below the minimum 1".into())
        );
        assert_eq!(
            checked(json!({"limit": 201, "items": one})),
            Err("invalid argument \"limit\": 201 is above the maximum 200".into())
        );
        assert_eq!(
            checked(json!({"items": []})),
            Err("invalid argument \"items\": 0 items; give at least 1".into())
        );
        assert_eq!(
            checked(json!({"items": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})),
            Err("invalid argument \"items\": 3 items; give at most 2".into())
        );
        assert_eq!(
            checked(json!({"items": [{"name": "abcd"}]})),
            Err("invalid argument \"items[0].name\": 4 characters; give at most 3".into())
        );
        // A value of the wrong type is the parser's to name.
        assert_eq!(checked(json!({"limit": "x", "items": one})), Ok(()));
    }

    #[test]
    fn a_pattern_is_refused_naming_the_argument_and_null_passes() {
        let one = json!([{"name": "abc"}]);
        let hash = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(checked(json!({"items": one, "hash": hash})), Ok(()));
        assert_eq!(checked(json!({"items": one, "hash": null})), Ok(()));
        assert_eq!(
            checked(json!({"items": one, "hash": "ABC"})),
            Err("invalid argument \"hash\": \"ABC\" does not match ^[0-9a-f]{40}$".into())
        );
        // Anchored: a match inside a longer text is not enough.
        assert!(checked(json!({"items": one, "hash": format!("{hash}0")})).is_err());
        assert_eq!(
            checked(json!({"items": one, "ids": ["tt1", "tt22"]})),
            Ok(())
        );
        assert_eq!(
            checked(json!({"items": one, "ids": ["tt1", "nm2"]})),
            Err("invalid argument \"ids[1]\": \"nm2\" does not match ^tt[0-9]+$".into())
        );
        // A long refused value is shown cut short.
        let long = "x".repeat(100);
        let e = checked(json!({"items": one, "hash": long})).unwrap_err();
        assert!(e.contains(&format!("\"{}...\"", "x".repeat(40))), "{e}");
    }

    #[test]
    fn a_pattern_that_does_not_compile_refuses() {
        assert!(matches("([", "x").is_err());
        assert_eq!(matches("^a", "ab"), Ok(true));
        assert_eq!(matches("b", "ab"), Ok(true));
    }
}
