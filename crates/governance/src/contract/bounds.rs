//! The bounds a tool's input schema declares (`minimum`, `maximum`, `minLength`, `maxLength`,
//! `minItems`, `maxItems`), enforced on the arguments before they are parsed: the schema a
//! client reads is the rule the server applies, one source of truth. Each input type's schema
//! is generated once and kept.

use std::{
    any::TypeId,
    collections::HashMap,
    sync::{Arc, OnceLock, RwLock},
};

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
}
