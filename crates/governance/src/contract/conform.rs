//! Does a value conform to a JSON Schema? The subset the tools' generated schemas use: `$ref`
//! into `$defs`, `type` (one or several), `properties`, `required`, `additionalProperties`,
//! `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, boolean schemas. Used to check every
//! tool's answers against the output schema it declares.

use serde_json::{Map, Value};

/// `Ok` when `value` conforms to `schema` (whose `$defs` its references point into), else
/// where and why it does not.
pub fn conforms(schema: &Value, value: &Value) -> Result<(), String> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    at(schema, defs, value, "$")
}

fn at(
    schema: &Value,
    defs: Option<&Map<String, Value>>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let s = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return Err(format!("{path}: no value is allowed here")),
        Value::Object(s) => s,
        _ => return Ok(()),
    };
    if let Some(target) = s.get("$ref").and_then(Value::as_str) {
        let def = target
            .strip_prefix("#/$defs/")
            .and_then(|n| defs.and_then(|d| d.get(n)))
            .ok_or_else(|| format!("{path}: unknown reference {target}"))?;
        at(def, defs, value, path)?;
    }
    if let Some(types) = s.get("type") {
        let ok = match types {
            Value::String(t) => is(t, value),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| is(t, value)),
            _ => true,
        };
        if !ok {
            return Err(format!("{path}: {} is not of type {types}", kind(value)));
        }
    }
    if let Some(options) = s.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        return Err(format!(
            "{path}: {value} is none of {}",
            Value::Array(options.clone())
        ));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        return Err(format!("{path}: {value} is not {c}"));
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for sub in all {
            at(sub, defs, value, path)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = s.get(key).and_then(Value::as_array) {
            let fits: Vec<Result<(), String>> =
                options.iter().map(|o| at(o, defs, value, path)).collect();
            let n = fits.iter().filter(|f| f.is_ok()).count();
            if n == 0 {
                let why: Vec<String> = fits.into_iter().filter_map(Result::err).collect();
                return Err(format!("{path}: fits none of {key}: {}", why.join("; ")));
            }
            if key == "oneOf" && n > 1 {
                return Err(format!("{path}: fits {n} of oneOf, not exactly one"));
            }
        }
    }
    match value {
        Value::Object(fields) => {
            for name in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = name.as_str()
                    && !fields.contains_key(name)
                {
                    return Err(format!("{path}: \"{name}\" is required and missing"));
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (name, v) in fields {
                let here = format!("{path}.{name}");
                match props.and_then(|p| p.get(name)) {
                    Some(sub) => at(sub, defs, v, &here)?,
                    None => match s.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            return Err(format!("{here}: not a property the schema names"));
                        }
                        Some(extra) => at(extra, defs, v, &here)?,
                        None => {}
                    },
                }
            }
        }
        Value::Array(items) => {
            if let Some(each) = s.get("items") {
                for (i, item) in items.iter().enumerate() {
                    at(each, defs, item, &format!("{path}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn is(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_subset_the_tools_use() {
        let schema = json!({
            "type": "object",
            "required": ["n", "kind"],
            "properties": {
                "n": { "type": "integer" },
                "kind": { "$ref": "#/$defs/Kind" },
                "tags": { "type": "array", "items": { "type": "string" } },
                "note": { "type": ["string", "null"] },
                "either": { "anyOf": [{ "type": "integer" }, { "const": "none" }] }
            },
            "additionalProperties": false,
            "$defs": { "Kind": { "type": "string", "enum": ["a", "b"] } }
        });
        let ok = |v| conforms(&schema, &v);
        assert_eq!(
            ok(json!({"n": 1, "kind": "a", "tags": ["x"], "note": null, "either": "none"})),
            Ok(())
        );
        for (bad, why) in [
            (json!({"kind": "a"}), "\"n\" is required"),
            (
                json!({"n": 1.5, "kind": "a"}),
                "$.n: a number is not of type \"integer\"",
            ),
            (json!({"n": 1, "kind": "c"}), "$.kind: \"c\" is none of"),
            (json!({"n": 1, "kind": "a", "tags": [1]}), "$.tags[0]"),
            (
                json!({"n": 1, "kind": "a", "extra": 1}),
                "$.extra: not a property",
            ),
            (
                json!({"n": 1, "kind": "a", "either": "some"}),
                "$.either: fits none of anyOf",
            ),
        ] {
            let e = conforms(&schema, &bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
