//! The tool contract: what every tool declares once, the strict input parsing, and the
//! `{summary, data, warnings, next_action, observed_at}` output every tool answers with.

pub mod bounds;
pub mod conform;
pub(crate) mod wire;

use std::{
    any::Any,
    future::Future,
    pin::Pin,
    sync::{Arc, OnceLock},
};

use chrono::{DateTime, SecondsFormat, Utc};
use domain::{AllowanceKind, Capability, KindFamily};
use policy::{Effect, PlannedFor};
use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings};
use serde::{Serialize, Serializer, de::DeserializeOwned};
use serde_json::{
    Map, Value, json,
    value::{RawValue, to_raw_value},
};
pub use wire::Rows;

pub use crate::error::{ErrorCode, ErrorKind, ToolError};
use crate::{Ctx, View, plan::Planned};

/// Everything a tool declares about itself, in its own file.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    /// snake_case verb_noun.
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub capability: Capability,
    /// The two MCP hints the effect does not settle (read-only and destructive follow from
    /// it): whether repeating a call changes nothing further, and whether it reaches an open
    /// world.
    pub hints: Hints,
    /// The grant allowance each call spends (reserved with the audit entry, before the tool
    /// acts), or `None` when calls spend none.
    pub allowance: Option<AllowanceKind>,
    /// Capabilities that serve as well as `capability` (the change tools, declared with
    /// downloads.write, serve whoever may plan a settings change too).
    pub or_capabilities: &'static [Capability],
    /// The instance family the tool acts on: it is listed only while an instance of that
    /// family is configured and covered by the caller's grant. `None`: always listed.
    pub family: Option<KindFamily>,
    /// The plan hooks of a tool that can store a change for the owner's approval (`None`: a
    /// call that would need approval is refused, never run).
    pub plan: Option<&'static dyn Planned>,
}

impl Meta {
    /// Whose calls go plan, approve, apply: the one rule in `policy`, from the effect and
    /// the capability.
    pub const fn planned_for(&self) -> PlannedFor {
        policy::planned_for(self.effect, self.capability)
    }

    /// The four MCP annotations `tools/list` serves.
    pub const fn annotations(&self) -> Annotations {
        Annotations {
            read_only: matches!(self.effect, Effect::Read),
            destructive: matches!(self.effect, Effect::Destructive),
            idempotent: self.hints.idempotent,
            open_world: self.hints.open_world,
        }
    }
}

/// The MCP hints a tool declares beyond its effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// Calling again with the same arguments changes nothing further (`idempotentHint`). A
    /// call that spends an allowance unit or stores a new plan each time is not idempotent.
    pub idempotent: bool,
    /// The call reaches entities outside the household's own configured services
    /// (`openWorldHint`): TMDB, MusicBrainz, indexers, trackers, a URL or magnet a caller
    /// gives. The household's library services and torrent clients are a closed world.
    pub open_world: bool,
}

/// The four MCP tool annotations, as `tools/list` serves them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// A tool: its declaration, its input type, and what it does.
pub trait Tool: Send + Sync + 'static {
    /// Strict: `#[serde(deny_unknown_fields)]`, no coercion.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;
    const META: Meta;
    /// The MCP Apps view its results can be shown in, when it has one.
    const VIEW: Option<&'static View> = None;
    /// The schema of the answer's `data`, generated from the type the answer is written from
    /// (`Some(data_of::<T>)`); `None` declares it as any JSON value.
    const DATA: Option<DataSchema> = None;
    /// Long enough (several backends, an operation) to stream progress and log messages.
    const LONG: bool = false;
    /// May ask the person to choose when a call is ambiguous (see `ask.rs`); over HTTP such a
    /// call is streamed, so that a legacy-era client can be asked on its way.
    const ASKS: bool = false;
    fn run(
        &self,
        ctx: &Ctx,
        input: Self::Input,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send;
}

/// A successful answer.
#[derive(Debug, Clone)]
pub struct Output {
    /// One or two sentences for the model and the person.
    pub summary: String,
    data: Data,
    pub warnings: Vec<String>,
    /// The call that most likely comes next, when there is one.
    pub next_action: Option<String>,
    /// When the data was read from its source.
    pub observed_at: DateTime<Utc>,
    /// Where the host keeps this answer's rendered form once it has rendered it, for answers
    /// a tool hands out more than once (see [`Output::shared`]).
    rendered: Option<Arc<OnceLock<Rendered>>>,
}

/// A host's rendering of an answer, of whatever type the host renders to.
type Rendered = Box<dyn Any + Send + Sync>;

/// An answer's `data`: a JSON tree, or JSON written straight from typed values (large pages
/// skip building a tree that would only be serialized again).
#[derive(Debug, Clone)]
enum Data {
    Tree(Value),
    /// Shared: a kept answer's clones do not copy it.
    Raw(Arc<RawValue>),
}

impl Serialize for Data {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Tree(v) => v.serialize(s),
            Data::Raw(r) => r.serialize(s),
        }
    }
}

impl Output {
    pub fn new(summary: impl Into<String>, data: Value) -> Output {
        Output::with_data(summary, Data::Tree(data))
    }

    /// An answer whose data is serialized from `data` at once, without a JSON tree.
    pub fn typed(summary: impl Into<String>, data: &impl Serialize) -> Result<Output, ToolError> {
        let raw = to_raw_value(data).map_err(|e| {
            tracing::error!(error = %e, "a tool answer could not be serialized");
            ToolError::new(
                ErrorCode::Internal,
                "the answer could not be written; the server log has the details",
            )
        })?;
        Ok(Output::with_data(summary, Data::Raw(raw.into())))
    }

    fn with_data(summary: impl Into<String>, data: Data) -> Output {
        Output {
            summary: summary.into(),
            data,
            warnings: Vec::new(),
            next_action: None,
            observed_at: Utc::now(),
            rendered: None,
        }
    }

    pub fn next(mut self, action: impl Into<String>) -> Output {
        self.next_action = Some(action.into());
        self.rendered = None;
        self
    }

    pub fn warn(mut self, warning: impl Into<String>) -> Output {
        self.warnings.push(warning.into());
        self.rendered = None;
        self
    }

    /// Marks a finished answer that a tool keeps and hands out again (a memo of a read):
    /// its clones share one rendered form, so the host renders it once, not once per call.
    /// A tree is written out once here, so a clone handed out again copies no tree.
    pub fn shared(mut self) -> Output {
        if let Data::Tree(v) = &self.data
            && let Ok(raw) = to_raw_value(v)
        {
            self.data = Data::Raw(raw.into());
        }
        self.rendered = Some(Arc::new(OnceLock::new()));
        self
    }

    /// This answer as `render` writes it; for a [`shared`](Output::shared) answer, written
    /// by the first caller and reused by every clone (`R` is cheap to clone: an `Arc`).
    pub fn rendered<R>(&self, render: impl FnOnce(&Output) -> R) -> R
    where
        R: Clone + Send + Sync + 'static,
    {
        let Some(cell) = &self.rendered else {
            return render(self);
        };
        if let Some(kept) = cell.get().and_then(|k| k.downcast_ref::<R>()) {
            return kept.clone();
        }
        let r = render(self);
        // Two first callers at once both render; either rendering is the same answer.
        let _ = cell.set(Box::new(r.clone()));
        r
    }

    /// The data as a JSON tree (parsed back when it was written as JSON text).
    pub fn data(&self) -> Value {
        match &self.data {
            Data::Tree(v) => v.clone(),
            Data::Raw(r) => serde_json::from_str(r.get()).unwrap_or_default(),
        }
    }

    /// The structured envelope as a JSON tree.
    pub fn envelope(&self) -> Value {
        let mut m = Map::with_capacity(5);
        m.insert("summary".into(), Value::String(self.summary.clone()));
        m.insert("data".into(), self.data());
        m.insert("warnings".into(), self.warnings.clone().into());
        m.insert(
            "next_action".into(),
            self.next_action.clone().map_or(Value::Null, Value::String),
        );
        m.insert("observed_at".into(), self.observed_at_text().into());
        Value::Object(m)
    }

    /// The structured envelope as JSON, the same as [`Output::envelope`] (keys in order),
    /// written without building a tree.
    pub fn envelope_json(&self) -> Result<Box<RawValue>, ToolError> {
        let observed_at = self.observed_at_text();
        let envelope = wire::Envelope {
            data: &self.data,
            next_action: self.next_action.as_deref(),
            observed_at: &observed_at,
            summary: &self.summary,
            warnings: &self.warnings,
        };
        to_raw_value(&envelope).map_err(|e| {
            tracing::error!(error = %e, "a tool answer could not be written");
            ToolError::new(
                ErrorCode::Internal,
                "the answer could not be written; the server log has the details",
            )
        })
    }

    fn observed_at_text(&self) -> String {
        self.observed_at
            .to_rfc3339_opts(SecondsFormat::Millis, true)
    }
}

/// The largest page a `limit` asks for (inputs declare it with
/// `#[schemars(range(min = 1, max = MAX_PAGE))]`).
pub const MAX_PAGE: u32 = 200;

/// A page size from 1 to [`MAX_PAGE`], 20 when omitted.
pub fn page_limit(limit: Option<u32>) -> Result<u32, ToolError> {
    let limit = limit.unwrap_or(20);
    if (1..=MAX_PAGE).contains(&limit) {
        Ok(limit)
    } else {
        Err(ToolError::invalid(format!(
            "invalid argument \"limit\": {limit} is outside 1 to {MAX_PAGE}"
        )))
    }
}

/// A keyset page read with `limit + 1` rows: the first `limit` rows and, when there were more,
/// the id to pass as `before_id` for the next page.
pub fn keyset_page<T>(
    mut rows: Vec<T>,
    limit: u32,
    id: impl Fn(&T) -> i64,
) -> (Vec<T>, Option<i64>) {
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next = if more { rows.last().map(id) } else { None };
    (rows, next)
}

/// Parses arguments into the tool's input type, naming the offending field on failure.
pub fn parse_input<I: DeserializeOwned>(arguments: Map<String, Value>) -> Result<I, ToolError> {
    let value = Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let message = if path == "." || path.is_empty() {
            format!("invalid arguments: {inner}")
        } else {
            format!("invalid argument \"{path}\": {inner}")
        };
        ToolError::invalid(message)
    })
}

/// The input schema of a type: an object at the root, strict, no `$schema`/`title` noise.
pub fn input_schema<I: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<I>();
    let mut map = match serde_json::to_value(schema) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    map.remove("$schema");
    map.remove("title");
    map.entry("type").or_insert_with(|| "object".into());
    map.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    map.insert("additionalProperties".into(), false.into());
    map
}

/// How a tool's `data` schema is generated: from the type its answer is written from.
pub type DataSchema = fn(&mut SchemaGenerator) -> Schema;

/// The [`DataSchema`] of answers written from `D`.
pub fn data_of<D: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<D>()
}

/// The [`DataSchema`] of a tool that only ever stores a plan for the owner's approval (it never
/// acts itself; its answer is always the planned answer): no data of its own.
pub fn planned_only(_: &mut SchemaGenerator) -> Schema {
    Schema::from(false)
}

/// The `data` of a call that stored a plan for the owner's approval instead of acting (see
/// `plan::planned_answer`): what a planned tool may answer beside its own data.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct PlannedData {
    change_id: String,
    status: String,
    /// The authority the caller lacks; `null` when the caller may apply the plan at once.
    missing_authority: Option<String>,
    review_url: String,
    content_hash: String,
    grant_revision: i64,
    /// The plan as stored, as the tool wrote it.
    plan: Value,
}

/// The output schema of a tool: the envelope, with `data` as `data` generates it (any JSON
/// value without one) or, for a tool that can store a plan, that or a planned answer.
pub fn output_schema_of(data: Option<DataSchema>, planned: bool) -> Map<String, Value> {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut data = match data {
        Some(f) => f(&mut generator).to_value(),
        None => json!({}),
    };
    if planned {
        let plan = generator.subschema_for::<PlannedData>().to_value();
        data = json!({ "anyOf": [data, plan] });
    }
    let mut envelope = output_schema();
    if let Some(Value::Object(props)) = envelope.get_mut("properties") {
        props.insert("data".into(), data);
    }
    let defs = generator.take_definitions(true);
    if !defs.is_empty() {
        envelope.insert("$defs".into(), Value::Object(defs.into_iter().collect()));
    }
    envelope
}

/// The envelope every tool answers with, `data` left open.
pub fn output_schema() -> Map<String, Value> {
    let v = json!({
        "type": "object",
        "properties": {
            "summary": { "type": "string" },
            "data": {},
            "warnings": { "type": "array", "items": { "type": "string" } },
            "next_action": { "type": ["string", "null"] },
            "observed_at": { "type": "string", "format": "date-time" }
        },
        "required": ["summary", "data", "warnings", "next_action", "observed_at"]
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A call whose arguments parsed: ready to run once the core has done its checks.
pub type Prepared<'a> =
    Box<dyn FnOnce(&'a Ctx) -> BoxFuture<'a, Result<Output, ToolError>> + Send + 'a>;

/// Object-safe face of [`Tool`], for the one registry.
pub trait DynTool: Send + Sync {
    fn meta(&self) -> Meta;
    fn input_schema(&self) -> Map<String, Value>;
    /// The schema of a successful answer's structured content.
    fn output_schema(&self) -> Map<String, Value> {
        output_schema()
    }
    fn view(&self) -> Option<&'static View>;
    fn long(&self) -> bool;
    fn asks(&self) -> bool;
    /// Parses the whole input first, so bad input is refused before anything is audited or done.
    fn prepare<'a>(&'a self, arguments: Map<String, Value>) -> Result<Prepared<'a>, ToolError>;
    /// The external server whose tool this is (a federated tool), `None` for Marquee's own:
    /// listed and called only while the caller's grant reaches that server
    /// (`policy::reaches_external`), and audited with its id as the instance.
    fn external(&self) -> Option<&str> {
        None
    }
}

impl<T: Tool> DynTool for T {
    fn meta(&self) -> Meta {
        T::META
    }

    fn input_schema(&self) -> Map<String, Value> {
        bounds::schema_of::<T::Input>().as_ref().clone()
    }

    fn output_schema(&self) -> Map<String, Value> {
        let planned = T::META.plan.is_some();
        output_schema_of(T::DATA, planned)
    }

    fn view(&self) -> Option<&'static View> {
        T::VIEW
    }

    fn long(&self) -> bool {
        T::LONG
    }

    fn asks(&self) -> bool {
        T::ASKS
    }

    fn prepare<'a>(&'a self, arguments: Map<String, Value>) -> Result<Prepared<'a>, ToolError> {
        // The bounds the schema declares first: what a client reads is what is enforced.
        bounds::check(&bounds::schema_of::<T::Input>(), &arguments)?;
        let input = parse_input::<T::Input>(arguments)?;
        Ok(Box::new(
            move |ctx: &'a Ctx| -> BoxFuture<'a, Result<Output, ToolError>> {
                Box::pin(self.run(ctx, input))
            },
        ))
    }
}
