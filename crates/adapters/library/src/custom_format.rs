//! Custom formats created or updated with specifications checked against the instance's own
//! `customformat/schema`: a known implementation, known fields, each value of its field's type.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::{
    Error, LibraryClient,
    core::Core,
    settings::{
        FieldChange, FormatSpec, SettingsDraft, SettingsRef, SpecInput, invalid, list, shown,
    },
};

impl LibraryClient {
    /// Works out a create (no format has that name) or an update (one has) of `spec`, its
    /// specifications checked against the instance's own `customformat/schema`.
    pub async fn draft_custom_format(&self, spec: &FormatSpec) -> Result<SettingsDraft, Error> {
        let name = spec.name.trim();
        if name.is_empty() {
            return Err(invalid("a custom format needs a name".into()));
        }
        if spec.specifications.is_empty() {
            return Err(invalid(
                "a custom format needs at least one specification".into(),
            ));
        }
        let schema: Vec<Value> = self.core.get("customformat/schema", &[]).await?;
        let mut specs = Vec::new();
        let mut seen = Vec::<&str>::new();
        for s in &spec.specifications {
            if s.name.trim().is_empty() || seen.contains(&s.name.as_str()) {
                return Err(invalid(format!(
                    "specification names must be non-empty and distinct (\"{}\")",
                    s.name
                )));
            }
            seen.push(&s.name);
            specs.push(specification(&schema, s)?);
        }
        let existing = format_named(&self.core, name).await?;
        let mut desired = json!({
            "name": name,
            "includeCustomFormatWhenRenaming": spec.include_when_renaming,
            "specifications": specs,
        });
        let (target, changes) = match &existing {
            None => {
                let mut changes = vec![FieldChange {
                    field: "custom format".into(),
                    from: "none".into(),
                    to: format!("new \"{name}\" (enters every profile at score 0)"),
                }];
                changes.extend(spec_lines(&Value::Null, &desired["specifications"]));
                (SettingsRef::NewCustomFormat(name.into()), changes)
            }
            Some(old) => {
                let id = old["id"].as_i64().unwrap_or_default();
                desired["id"] = json!(id);
                let mut changes = Vec::new();
                if old["includeCustomFormatWhenRenaming"]
                    != desired["includeCustomFormatWhenRenaming"]
                {
                    changes.push(FieldChange {
                        field: "include_when_renaming".into(),
                        from: shown(&old["includeCustomFormatWhenRenaming"]),
                        to: shown(&desired["includeCustomFormatWhenRenaming"]),
                    });
                }
                changes.extend(spec_lines(
                    &old["specifications"],
                    &desired["specifications"],
                ));
                if changes.is_empty() {
                    return Err(invalid(format!(
                        "custom format \"{name}\" already is exactly this; nothing to change"
                    )));
                }
                (SettingsRef::CustomFormat(id), changes)
            }
        };
        Ok(SettingsDraft {
            target,
            name: name.into(),
            changes,
            before: existing,
            desired,
        })
    }
}

pub(crate) async fn format_named(core: &Core, name: &str) -> Result<Option<Value>, Error> {
    let all = core.get_exact("customformat").await?;
    Ok(all
        .as_array()
        .and_then(|a| a.iter().find(|f| f["name"].as_str() == Some(name)).cloned()))
}

/// One specification checked against the schema: a known implementation, known fields, each
/// value of its field's type; fields not given keep the schema's default.
fn specification(schema: &[Value], s: &SpecInput) -> Result<Value, Error> {
    let implementations: Vec<String> = schema
        .iter()
        .filter_map(|i| i["implementation"].as_str().map(str::to_owned))
        .collect();
    let template = schema
        .iter()
        .find(|i| i["implementation"].as_str() == Some(s.implementation.as_str()))
        .ok_or_else(|| {
            invalid(format!(
                "unknown implementation \"{}\" in specification \"{}\"; this instance has: {}",
                s.implementation,
                s.name,
                list(&implementations)
            ))
        })?;
    let mut fields = template["fields"].as_array().cloned().unwrap_or_default();
    let known: Vec<String> = fields
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_owned))
        .collect();
    for (name, value) in &s.fields {
        let field = fields
            .iter_mut()
            .find(|f| f["name"].as_str() == Some(name.as_str()))
            .ok_or_else(|| {
                invalid(format!(
                    "{} has no field \"{name}\"; its fields: {}",
                    s.implementation,
                    list(&known)
                ))
            })?;
        check_value(&s.name, name, field, value)?;
        field["value"] = value.clone();
    }
    let mut out = Map::new();
    out.insert("name".into(), json!(s.name));
    out.insert("implementation".into(), json!(s.implementation));
    out.insert("negate".into(), json!(s.negate));
    out.insert("required".into(), json!(s.required));
    out.insert(
        "fields".into(),
        json!(
            fields
                .iter()
                .map(|f| json!({"name": f["name"], "value": f["value"]}))
                .collect::<Vec<_>>()
        ),
    );
    Ok(Value::Object(out))
}

fn check_value(spec: &str, name: &str, field: &Value, value: &Value) -> Result<(), Error> {
    let bad = |want: &str| {
        invalid(format!(
            "field \"{name}\" of specification \"{spec}\" must be {want}"
        ))
    };
    match field["type"].as_str().unwrap_or("textbox") {
        "number" if !value.is_i64() => Err(bad("a whole number")),
        "select" => {
            let options: Vec<i64> = field["selectOptions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o["value"].as_i64())
                .collect();
            match value.as_i64() {
                Some(v) if options.contains(&v) => Ok(()),
                _ => Err(bad(&format!(
                    "one of {}",
                    options
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        }
        "checkbox" if !value.is_boolean() => Err(bad("true or false")),
        "textbox" => match value.as_str() {
            Some(t) if !t.trim().is_empty() && t.len() <= 1000 => Ok(()),
            _ => Err(bad("a non-empty text of at most 1000 characters")),
        },
        _ => Ok(()),
    }
}

/// The specifications as diff lines: one per specification added, removed or changed.
fn spec_lines(old: &Value, new: &Value) -> Vec<FieldChange> {
    let line = |s: &Value| {
        let fields: Vec<String> = s["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| format!("{}={}", shown(&f["name"]), shown(&f["value"])))
            .collect();
        format!(
            "{}{}{} ({})",
            if s["negate"] == true { "not " } else { "" },
            shown(&s["implementation"]),
            if s["required"] == true {
                ", required"
            } else {
                ""
            },
            fields.join(", ")
        )
    };
    let by_name = |v: &Value| -> BTreeMap<String, String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| (shown(&s["name"]), line(s)))
            .collect()
    };
    let (old, new) = (by_name(old), by_name(new));
    let mut out = Vec::new();
    for name in old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)))
    {
        let (from, to) = (old.get(name), new.get(name));
        if from != to {
            out.push(FieldChange {
                field: format!("specification: {name}"),
                from: from.cloned().unwrap_or_else(|| "none".into()),
                to: to.cloned().unwrap_or_else(|| "removed".into()),
            });
        }
    }
    out
}
