//! Every tool's input decoding, from the one registry: arbitrary JSON objects, shaped by the
//! tool's own input schema and then broken, are accepted or refused with a clear sentence
//! (`invalid_argument`), never a panic.

use governance::{DynTool, ErrorKind};
use harness::{Gen, run};
use serde_json::{Map, Value};

/// A value roughly of the schema's shape (types, enums, items), to reach past the first field.
fn shaped(g: &mut Gen, schema: &Value, defs: &Value, depth: usize) -> Value {
    if depth > 6 {
        return Value::Null;
    }
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or_default();
        if let Some(def) = defs.get(name) {
            return shaped(g, def, defs, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array)
            && !options.is_empty()
        {
            let o = g.pick(options).clone();
            return shaped(g, &o, defs, depth + 1);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.is_empty()
        && !g.one_in(8)
    {
        return g.pick(values).clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => g.pick(ts).as_str().unwrap_or("null").into(),
        _ => String::new(),
    };
    match ty.as_str() {
        "object" => {
            let mut m = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, s) in props {
                    if !g.one_in(3) {
                        m.insert(k.clone(), shaped(g, s, defs, depth + 1));
                    }
                }
            }
            Value::Object(m)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let n = g.len(20);
            Value::Array((0..n).map(|_| shaped(g, &items, defs, depth + 1)).collect())
        }
        "string" => Value::String(g.string()),
        "integer" | "number" => g.number(),
        "boolean" => Value::Bool(g.one_in(2)),
        "null" => Value::Null,
        _ => g.json(2, &[]),
    }
}

#[test]
fn every_tools_input_is_accepted_or_refused_clearly() {
    let tools: Vec<Box<dyn DynTool>> = tools::families().iter().flat_map(|f| f.tools()).collect();
    assert!(tools.len() >= 50, "the registry lists every tool");
    let schemas: Vec<Value> = tools
        .iter()
        .map(|t| Value::Object(t.input_schema()))
        .collect();
    let keys: Vec<Vec<String>> = schemas
        .iter()
        .map(|s| {
            s["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect();
    let mut accepted = 0u64;
    let report = run("tool-inputs", 6000, |g| {
        let i = g.below(tools.len());
        let schema = &schemas[i];
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        let keys: Vec<&str> = keys[i].iter().map(String::as_str).collect();
        let value = match g.below(4) {
            0 => g.json(3, &keys),
            1 => shaped(g, schema, &defs, 0),
            _ => {
                let base = shaped(g, schema, &defs, 0);
                g.mutate_json(&base, &keys)
            }
        };
        let Value::Object(arguments) = value else {
            return Ok(()); // the edge refuses non-object arguments before a tool sees them
        };
        match tools[i].prepare(arguments) {
            Ok(_) => {
                accepted += 1;
                Ok(())
            }
            Err(e) if e.message.trim().is_empty() => {
                Err(format!("{}: an empty refusal", tools[i].meta().name))
            }
            Err(e) if e.code.kind() != ErrorKind::BadInput => Err(format!(
                "{}: refused as other than bad input: {}",
                tools[i].meta().name,
                e.message
            )),
            Err(_) => Ok(()),
        }
    });
    report.assert_clean();
    // The generator reaches past the refusals: a share of its inputs is accepted.
    assert!(
        accepted * 50 > report.inputs,
        "{accepted} of {} accepted",
        report.inputs
    );
}
