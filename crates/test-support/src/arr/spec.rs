//! A narrow OpenAPI 3.0 checker for the fakes' answers: finds the operation a request matched in
//! the vendor's document and checks the answer against its response schema (`$ref`, `type`,
//! `format` int32, `properties`, `additionalProperties`, `items`, `enum`, `nullable`: the subset
//! the *arr documents use). The documents are read from `../shared/specs` beside the repository
//! (`MARQUEE_SHARED` overrides the shared folder), never copied into it.
//!
//! Two gaps between the documents and the servers are patched: real command bodies carry
//! per-command fields (`movieIds`, `seriesId`, …; see `../shared/specs/README.md`), so `Command`
//! and `CommandResource` accept properties they do not list; and Readarr's lookups and the
//! custom-format schema (`GAPS`).

use std::path::PathBuf;

use serde_json::Value;

use super::{ArrKind, FakeArr, server::ArrRequest};

/// The shared folder: `MARQUEE_SHARED`, else `../shared` beside the repository root.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("MARQUEE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::beside_checkout("shared"))
}

/// Answers the services send that their documents leave out: Readarr's lookups answer lists of
/// authors and books, and `customformat/schema` a list of specification schemas, although the
/// documents declare no body.
const GAPS: [(&str, &str, &str); 4] = [
    ("GET", "/api/v1/author/lookup", "AuthorResource"),
    ("GET", "/api/v1/book/lookup", "BookResource"),
    (
        "GET",
        "/api/v3/customformat/schema",
        "CustomFormatSpecificationSchema",
    ),
    (
        "GET",
        "/api/v1/customformat/schema",
        "CustomFormatSpecificationSchema",
    ),
];

/// One vendor document.
pub struct Spec {
    doc: Value,
}

/// What checking the answers a fake gave found.
#[derive(Debug, Default)]
pub struct Report {
    /// Answers checked against a response schema, as "GET /api/v3/queue -> QueueResourcePagingResource".
    pub checked: Vec<String>,
    /// Answers that do not match their schema, with the JSON path and the reason.
    pub errors: Vec<String>,
    /// Successful answers to requests the document does not describe.
    pub undocumented: Vec<String>,
}

impl Spec {
    /// Reads the document of `kind`; panics with the path and the override when it is missing.
    pub fn load(kind: ArrKind) -> Spec {
        Spec::load_file(kind.spec_file())
    }

    /// Reads one document of `../shared/specs` by its file name.
    pub fn load_file(file: &str) -> Spec {
        let path = shared_dir().join("specs").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {} ({e}); set MARQUEE_SHARED to the shared folder",
                path.display()
            )
        });
        Spec {
            doc: serde_json::from_str(&text).expect("the vendor document is JSON"),
        }
    }

    /// A document already read (e.g. a YAML one converted to JSON values by the test).
    pub fn from_value(doc: Value) -> Spec {
        Spec { doc }
    }

    /// The path template and operation of a request, preferring literal segments over `{id}`.
    fn operation(&self, method: &str, path: &str) -> Option<(&str, &Value)> {
        let wanted: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        let paths = self.doc["paths"].as_object()?;
        paths
            .iter()
            .filter_map(|(template, item)| {
                let parts: Vec<&str> = template.split('/').collect();
                let fits = parts.len() == wanted.len()
                    && parts
                        .iter()
                        .zip(&wanted)
                        .all(|(p, w)| p.starts_with('{') || p == w);
                let op = item.get(method.to_ascii_lowercase())?;
                fits.then(|| {
                    (
                        parts.iter().filter(|p| p.starts_with('{')).count(),
                        template.as_str(),
                        op,
                    )
                })
            })
            .min_by_key(|(templated, _, _)| *templated)
            .map(|(_, template, op)| (template, op))
    }

    /// Checks one answer; `Ok(None)` when the request is not in the document.
    pub fn check(
        &self,
        method: &str,
        path: &str,
        status: u16,
        body: &Value,
    ) -> Result<Option<String>, String> {
        let Some((template, op)) = self.operation(method, path) else {
            return Ok(None);
        };
        let responses = &op["responses"];
        let response = responses
            .get(status.to_string())
            .or_else(|| (200..300).contains(&status).then(|| &responses["200"]));
        let Some(response) = response.filter(|r| !r.is_null()) else {
            return Err(format!(
                "{method} {template}: status {status} is not documented"
            ));
        };
        let gap = GAPS
            .iter()
            .find(|(m, t, _)| *m == method && *t == template)
            .map(|(_, _, s)| s);
        let patched = gap.map(|name| serde_json::json!({ "type": "array", "items": { "$ref": format!("#/components/schemas/{name}") } }));
        let schema = patched
            .as_ref()
            .unwrap_or(&response["content"]["application/json"]["schema"]);
        if schema.is_null() {
            return if body.is_null() {
                Ok(Some(format!("{method} {template} -> (no body)")))
            } else {
                Err(format!(
                    "{method} {template}: the document declares no body, the fake sent one"
                ))
            };
        }
        let mut errors = Vec::new();
        self.validate(schema, body, "$", &mut errors);
        if errors.is_empty() {
            Ok(Some(format!("{method} {template} -> {}", describe(schema))))
        } else {
            Err(format!("{method} {template}: {}", errors.join("; ")))
        }
    }

    fn resolve<'a>(&'a self, schema: &'a Value) -> (&'a Value, Option<&'a str>) {
        match schema["$ref"].as_str() {
            Some(r) => {
                let name = r.rsplit('/').next().unwrap_or("");
                (&self.doc["components"]["schemas"][name], Some(name))
            }
            None => (schema, None),
        }
    }

    /// Checks `value` against `schema`, pushing "path: reason" for each mismatch.
    pub fn validate(&self, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
        let (schema, name) = self.resolve(schema);
        if schema.is_null() {
            return errors.push(format!("{at}: unknown schema {name:?}"));
        }
        if value.is_null() {
            if schema["nullable"] != Value::Bool(true) {
                errors.push(format!(
                    "{at}: null where {} is not nullable",
                    name.unwrap_or("the value")
                ));
            }
            return;
        }
        if let Some(allowed) = schema["enum"].as_array() {
            if !allowed.contains(value) {
                errors.push(format!(
                    "{at}: {value} is not one of {}",
                    name.unwrap_or("the enum")
                ));
            }
            return;
        }
        let kind = schema["type"]
            .as_str()
            .or(schema.get("properties").map(|_| "object"));
        match kind {
            Some("integer") => {
                let int32 = schema["format"] == "int32";
                match value.as_i64() {
                    Some(n) if int32 && i32::try_from(n).is_err() => {
                        errors.push(format!("{at}: {n} is outside int32"))
                    }
                    Some(_) => {}
                    None => errors.push(format!("{at}: {value} is not an integer")),
                }
            }
            Some("number") if !value.is_number() => {
                errors.push(format!("{at}: {value} is not a number"))
            }
            Some("string") if !value.is_string() => {
                errors.push(format!("{at}: {value} is not a string"))
            }
            Some("boolean") if !value.is_boolean() => {
                errors.push(format!("{at}: {value} is not a boolean"))
            }
            Some("array") => match value.as_array() {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.validate(&schema["items"], item, &format!("{at}[{i}]"), errors);
                    }
                }
                None => errors.push(format!("{at}: {value} is not an array")),
            },
            Some("object") => self.validate_object(schema, name, value, at, errors),
            _ => {}
        }
    }

    fn validate_object(
        &self,
        schema: &Value,
        name: Option<&str>,
        value: &Value,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        let Some(object) = value.as_object() else {
            return errors.push(format!("{at}: {value} is not an object"));
        };
        // The documented gap: command bodies carry per-command fields.
        let open = matches!(name, Some("Command" | "CommandResource"));
        for (key, field) in object {
            match schema["properties"].get(key) {
                Some(property) => self.validate(property, field, &format!("{at}.{key}"), errors),
                None => match &schema["additionalProperties"] {
                    Value::Bool(false) if !open => errors.push(format!(
                        "{at}: {} has no property {key:?}",
                        name.unwrap_or("the object")
                    )),
                    extra @ Value::Object(_) => {
                        self.validate(extra, field, &format!("{at}.{key}"), errors)
                    }
                    _ => {}
                },
            }
        }
    }
}

fn describe(schema: &Value) -> String {
    match (schema["$ref"].as_str(), schema["type"].as_str()) {
        (Some(r), _) => r.rsplit('/').next().unwrap_or(r).to_string(),
        (None, Some("array")) => format!("[{}]", describe(&schema["items"])),
        (None, Some(t)) => t.to_string(),
        _ => "?".into(),
    }
}

/// Checks every successful answer in a log against the kind's document.
pub fn check_log(kind: ArrKind, log: &[ArrRequest]) -> Report {
    check_log_in(&Spec::load(kind), kind.api_prefix(), log)
}

/// Checks every successful answer in a log (paths below `prefix`) against `spec`.
pub fn check_log_in(spec: &Spec, prefix: &str, log: &[ArrRequest]) -> Report {
    let mut report = Report::default();
    for r in log.iter().filter(|r| (200..300).contains(&r.status)) {
        let path = format!("{prefix}{}", r.path);
        match spec.check(&r.method, &path, r.status, &r.answer) {
            Ok(Some(checked)) => report.checked.push(checked),
            Ok(None) => report.undocumented.push(format!("{} {path}", r.method)),
            Err(error) => report.errors.push(error),
        }
    }
    report
}

impl FakeArr {
    /// Checks every successful answer this fake gave so far against the vendor's document.
    pub fn check_answers(&self) -> Report {
        check_log_in(
            &Spec::load_file(self.spec_file()),
            self.api_prefix(),
            &self.requests(),
        )
    }
}
