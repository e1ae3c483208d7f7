//! An external tool's arguments checked against the input schema its server declared, before
//! they leave Marquee. A subset of JSON Schema, the parts tool schemas use: `type` (one or a
//! list), `required`, `properties` with `additionalProperties: false`, `enum`, `const` and
//! `items`, recursively, through `$ref`s into the schema's own `$defs` (or `definitions`); then
//! the bounds governance enforces for Marquee's own tools (`minimum`, `maximum`, `minLength`,
//! `maxLength`, `pattern`, `minItems`, `maxItems`). A local `$ref` the schema does not define,
//! or `$ref`s that only lead to each other, refuse the call: nothing checks what it would send.
//! Combinators (`anyOf`, `oneOf`, `allOf`, `not`), `$ref`s to other documents and formats are
//! left to the server.

use governance::{ToolError, contract::bounds};
use serde_json::{Map, Value};

/// Refuses `arguments` that break `schema`, naming the argument and the rule.
pub(crate) fn check(
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Result<(), ToolError> {
    let walk = Walk { root: schema };
    let top = walk
        .resolve(schema, "arguments")
        .map_err(ToolError::invalid)?;
    if let Some(top) = top {
        walk.object(top, arguments, "")
            .map_err(ToolError::invalid)?;
    }
    bounds::check(schema, arguments)
}

/// Most `$ref`s followed for one value before the schema is taken to loop.
const MAX_HOPS: usize = 32;

/// The schema being checked against, for its `$ref`s.
struct Walk<'s> {
    root: &'s Map<String, Value>,
}

impl<'s> Walk<'s> {
    /// `schema` with its `$ref`s followed; `Ok(None)` for a reference to another document.
    fn resolve(
        &self,
        mut schema: &'s Map<String, Value>,
        path: &str,
    ) -> Result<Option<&'s Map<String, Value>>, String> {
        for _ in 0..MAX_HOPS {
            let Some(target) = schema.get("$ref").and_then(Value::as_str) else {
                return Ok(Some(schema));
            };
            let Some(local) = target.strip_prefix('#') else {
                return Ok(None);
            };
            if local.is_empty() {
                schema = self.root;
                continue;
            }
            let found = local
                .strip_prefix("/$defs/")
                .map(|name| ("$defs", name))
                .or_else(|| {
                    local
                        .strip_prefix("/definitions/")
                        .map(|n| ("definitions", n))
                })
                .and_then(|(table, name)| self.root.get(table)?.get(name)?.as_object());
            schema = found.ok_or_else(|| {
                format!("the tool's input schema refers to \"{target}\" for \"{path}\" and does not define it, so the call is not sent")
            })?;
        }
        Err(format!(
            "the tool's input schema refers in a loop for \"{path}\", so the call is not sent"
        ))
    }

    fn object(
        &self,
        schema: &'s Map<String, Value>,
        fields: &Map<String, Value>,
        path: &str,
    ) -> Result<(), String> {
        let at = |name: &str| {
            if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !fields.contains_key(name) {
                    return Err(format!("missing argument \"{}\"", at(name)));
                }
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (name, value) in fields {
            match props.and_then(|p| p.get(name)) {
                Some(Value::Object(s)) => self.value_in(s, value, &at(name))?,
                Some(_) => {}
                None if closed => {
                    let known: Vec<&str> = props
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    return Err(format!(
                        "unknown argument \"{}\"; this tool takes: {}",
                        at(name),
                        known.join(", ")
                    ));
                }
                None => {}
            }
        }
        Ok(())
    }

    fn value_in(
        &self,
        schema: &'s Map<String, Value>,
        value: &Value,
        path: &str,
    ) -> Result<(), String> {
        let Some(schema) = self.resolve(schema, path)? else {
            return Ok(());
        };
        let bad = |what: String| Err(format!("invalid argument \"{path}\": {what}"));
        if let Some(types) = schema.get("type") {
            let names: Vec<&str> = match types {
                Value::String(t) => vec![t.as_str()],
                Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !names.is_empty() && !names.iter().any(|t| is_type(value, t)) {
                return bad(format!(
                    "expected {}, got {}",
                    names.join(" or "),
                    type_of(value)
                ));
            }
        }
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
            && !allowed.contains(value)
        {
            let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return bad(format!("{value} is not one of {}", listed.join(", ")));
        }
        if let Some(expected) = schema.get("const")
            && expected != value
        {
            return bad(format!("expected {expected}"));
        }
        match value {
            Value::Object(fields) => self.object(schema, fields, path),
            Value::Array(items) => match schema.get("items") {
                Some(Value::Object(each)) => items
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, item)| self.value_in(each, item, &format!("{path}[{i}]"))),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|x| x.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn checked(schema: Value, args: Value) -> Result<(), String> {
        let (Value::Object(s), Value::Object(a)) = (schema, args) else {
            unreachable!()
        };
        check(&s, &a).map_err(|e| e.message)
    }

    #[test]
    fn arguments_are_checked_against_the_servers_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "maxLength": 5},
                "mode": {"enum": ["a", "b"]},
                "n": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"]}
            },
            "required": ["message"],
            "additionalProperties": false
        });
        assert_eq!(checked(schema.clone(), json!({"message": "hi"})), Ok(()));
        let refused = [
            (json!({}), "missing argument \"message\""),
            (
                json!({"message": 3}),
                "invalid argument \"message\": expected string, got number",
            ),
            (
                json!({"message": "toolong"}),
                "invalid argument \"message\": 7 characters; give at most 5",
            ),
            (
                json!({"message": "x", "mode": "c"}),
                "invalid argument \"mode\": \"c\" is not one of \"a\", \"b\"",
            ),
            (
                json!({"message": "x", "n": 1.5}),
                "invalid argument \"n\": expected integer, got number",
            ),
            (
                json!({"message": "x", "n": 0}),
                "invalid argument \"n\": 0 is below the minimum 1",
            ),
            (
                json!({"message": "x", "tags": ["a", 2]}),
                "invalid argument \"tags[1]\": expected string, got number",
            ),
            (
                json!({"message": "x", "opts": {}}),
                "missing argument \"opts.x\"",
            ),
            (
                json!({"message": "x", "other": 1}),
                "unknown argument \"other\"; this tool takes: message, mode, n, opts, tags",
            ),
        ];
        for (args, want) in refused {
            assert_eq!(
                checked(schema.clone(), args.clone()),
                Err(want.to_string()),
                "{args}"
            );
        }
    }

    #[test]
    fn refs_into_the_schemas_own_definitions_are_followed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "where": {"$ref": "#/$defs/Place"},
                "list": {"type": "array", "items": {"$ref": "#/definitions/Item"}},
                "alias": {"$ref": "#/$defs/Again"},
                "remote": {"$ref": "https://example.org/schema.json"}
            },
            "$defs": {
                "Place": {"type": "object", "properties": {"room": {"enum": ["kitchen", "hall"]}}, "required": ["room"]},
                "Again": {"$ref": "#/$defs/Place"}
            },
            "definitions": {"Item": {"type": "string"}}
        });
        assert_eq!(
            checked(
                schema.clone(),
                json!({"where": {"room": "hall"}, "list": ["a"], "remote": 1})
            ),
            Ok(())
        );
        let refused = [
            (
                json!({"where": {"room": "attic"}}),
                "invalid argument \"where.room\": \"attic\" is not one of \"kitchen\", \"hall\"",
            ),
            (json!({"where": {}}), "missing argument \"where.room\""),
            (
                json!({"alias": "x"}),
                "invalid argument \"alias\": expected object, got string",
            ),
            (
                json!({"list": [1]}),
                "invalid argument \"list[0]\": expected string, got number",
            ),
        ];
        for (args, want) in refused {
            assert_eq!(
                checked(schema.clone(), args.clone()),
                Err(want.to_string()),
                "{args}"
            );
        }
        let undefined = json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}});
        assert!(
            checked(undefined, json!({"a": 1}))
                .unwrap_err()
                .contains("does not define it")
        );
        let tree = json!({"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}});
        assert_eq!(
            checked(
                tree.clone(),
                json!({"name": "a", "children": [{"name": "b"}]})
            ),
            Ok(())
        );
        assert!(
            checked(tree, json!({"children": [{"name": 2}]}))
                .unwrap_err()
                .contains("children[0].name")
        );
        let looping = json!({"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}});
        assert!(
            checked(looping, json!({"a": 1}))
                .unwrap_err()
                .contains("in a loop")
        );
    }

    #[test]
    fn an_open_schema_takes_other_arguments() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(checked(schema, json!({"a": "x", "b": 2})), Ok(()));
    }
}
