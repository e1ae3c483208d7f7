//! The JSON the edge writes around parts serialized once already (a tool's definition, a tool's
//! result): typed shapes that borrow those parts as `&RawValue`, written with one
//! `serde_json::to_writer` into a buffer sized for them, so nothing is parsed or copied twice
//! and no JSON is assembled by hand.

use std::sync::Arc;

use rmcp::model::{CallToolResult as ModelResult, Tool};
use serde::{Serialize, Serializer};
use serde_json::{
    Value,
    value::{RawValue, to_raw_value},
};

const JSONRPC: &str = "2.0";
/// The 2026-07-28 `resultType` of an answer that is complete.
pub(crate) const COMPLETE: &str = "complete";

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
#[derive(Serialize)]
pub(crate) struct Success<'a, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: R,
}

/// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}`.
#[derive(Serialize)]
pub(crate) struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i32,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a Value>,
}

/// A `tools/list` result: each definition as it was serialized once.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolList<'a> {
    pub(crate) tools: Definitions<'a>,
    /// 2026-07-28: how long the list may be reused, and by whom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cache_scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) result_type: Option<&'static str>,
}

/// The host's tool definitions, then the fixtures' (none unless the host serves them).
pub(crate) struct Definitions<'a> {
    pub(crate) host: &'a [Arc<ListedTool>],
    pub(crate) fixtures: &'a [Arc<ListedTool>],
}

impl Definitions<'_> {
    /// About how many bytes the definitions take.
    pub(crate) fn size(&self) -> usize {
        self.host
            .iter()
            .chain(self.fixtures)
            .map(|t| t.json.get().len() + 1)
            .sum()
    }
}

impl Serialize for Definitions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.host.iter().chain(self.fixtures).map(|t| &*t.json))
    }
}

/// A `CallToolResult` around its already-serialized content and structured content.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult<'a> {
    content: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a RawValue>,
    is_error: bool,
    /// 2026-07-28 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
}

/// A 2026-07-28 `InputRequiredResult`: the questions, and what the client must echo.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputRequired<'a> {
    input_requests: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_state: Option<&'a str>,
    result_type: &'static str,
}

/// What a `tools/call` answers: a result, or (2026-07-28) the questions it needs answered.
#[derive(Serialize)]
#[serde(untagged)]
enum Shape<'a> {
    Result(CallToolResult<'a>),
    InputRequired(InputRequired<'a>),
}

/// One text content block.
#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// Writes `{"jsonrpc":"2.0","id":…,"result":…}`; `size` is a guess at the result's length.
pub(crate) fn success(id: &Value, result: impl Serialize, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 64);
    let reply = Success {
        jsonrpc: JSONRPC,
        id,
        result,
    };
    write(&mut out, &reply);
    out
}

/// Writes a JSON-RPC error answer.
pub(crate) fn failure(id: &Value, code: i32, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 96);
    let reply = Failure {
        jsonrpc: JSONRPC,
        id,
        error: ErrorObject {
            code,
            message,
            data,
        },
    };
    write(&mut out, &reply);
    out
}

/// These shapes hold strings, numbers and JSON already written: writing them to memory
/// cannot fail, but should it, the answer is an internal error rather than half an object.
fn write(out: &mut Vec<u8>, value: &impl Serialize) {
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        tracing::error!(error = %e, "an answer could not be written");
        out.clear();
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error; the server log has the details"}}"#,
        );
    }
}

/// A tool definition and its JSON, serialized once: `tools/list` writes these as they are.
#[derive(Debug)]
pub struct ListedTool {
    tool: Tool,
    json: Box<RawValue>,
}

impl ListedTool {
    pub fn new(tool: Tool) -> ListedTool {
        let json = to_raw_value(&tool).unwrap_or_else(|e| {
            tracing::error!(error = %e, tool = %tool.name, "a tool definition could not be written");
            to_raw_value(&serde_json::Map::new()).unwrap_or_default()
        });
        ListedTool { tool, json }
    }

    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The definition's JSON text.
    pub fn json(&self) -> &str {
        self.json.get()
    }
}

/// A `tools/call` result whose parts are serialized once: the content blocks and the
/// structured content, which the dispatcher writes as they are into the response (adding
/// `resultType` for 2026-07-28). Shared, so an answer a host hands out repeatedly is neither
/// copied nor serialized again per call.
#[derive(Clone, Debug)]
pub struct RenderedResult(Arc<Parts>);

#[derive(Debug)]
struct Parts {
    /// The `content` array.
    content: Box<RawValue>,
    structured: Option<Box<RawValue>>,
    is_error: bool,
    /// 2026-07-28: the call needs the person's answers first (`inputRequests`, and the
    /// `requestState` to echo); then `content` is not written.
    asking: Option<(Box<RawValue>, Option<String>)>,
}

impl RenderedResult {
    /// The result of a tool with structured output: `summary` as the first text block, the
    /// structured content as JSON text in the second (for clients that read only text), and
    /// the same content as `structuredContent`.
    pub fn structured(summary: &str, structured: Box<RawValue>, is_error: bool) -> RenderedResult {
        let blocks = [
            Text {
                kind: "text",
                text: summary,
            },
            Text {
                kind: "text",
                text: structured.get(),
            },
        ];
        RenderedResult::new(to_raw_value(&blocks), Some(structured), is_error)
    }

    /// A 2026-07-28 `input_required` result: `requests` maps question keys to the requests
    /// (`elicitation/create`, ...) the client must answer before calling again, echoing `state`.
    pub fn input_required(requests: &Value, state: Option<&str>) -> RenderedResult {
        let mut r = RenderedResult::new(to_raw_value(&[] as &[Value]), None, false);
        if let (Ok(requests), Some(parts)) = (to_raw_value(requests), Arc::get_mut(&mut r.0)) {
            parts.asking = Some((requests, state.map(str::to_owned)));
        }
        r
    }

    /// A result of content blocks only (text, images, audio, resources), as the MCP schema
    /// describes them.
    pub fn content(blocks: &[Value], is_error: bool) -> RenderedResult {
        RenderedResult::new(to_raw_value(blocks), None, is_error)
    }

    fn new(
        content: Result<Box<RawValue>, serde_json::Error>,
        structured: Option<Box<RawValue>>,
        is_error: bool,
    ) -> RenderedResult {
        // Strings and JSON text already written cannot fail to serialize; should they, the
        // caller is told the answer could not be written rather than handed half of one.
        let (content, structured, is_error) = match content {
            Ok(content) => (content, structured, is_error),
            Err(e) => {
                tracing::error!(error = %e, "a tool result could not be written");
                let text = Text {
                    kind: "text",
                    text: "the answer could not be written; the server log has the details",
                };
                (to_raw_value(&[text]).unwrap_or_default(), None, true)
            }
        };
        RenderedResult(Arc::new(Parts {
            content,
            structured,
            is_error,
            asking: None,
        }))
    }

    /// Whether the tool ran and failed.
    pub fn is_error(&self) -> bool {
        self.0.is_error
    }

    /// Whether this is a 2026-07-28 `input_required` result (the call asks first).
    pub(crate) fn is_asking(&self) -> bool {
        self.0.asking.is_some()
    }

    /// The `CallToolResult` shape, with `resultType` when `result_type` names one.
    pub(crate) fn shape(&self, result_type: Option<&'static str>) -> impl Serialize + '_ {
        if let Some((requests, state)) = &self.0.asking {
            return Shape::InputRequired(InputRequired {
                input_requests: requests,
                request_state: state.as_deref(),
                result_type: "input_required",
            });
        }
        Shape::Result(CallToolResult {
            content: &self.0.content,
            structured_content: self.0.structured.as_deref(),
            is_error: self.0.is_error,
            result_type,
        })
    }

    /// About how many bytes [`RenderedResult::shape`] writes.
    pub(crate) fn size(&self) -> usize {
        let asking = self.0.asking.as_ref().map_or(0, |(r, s)| {
            r.get().len() + s.as_ref().map_or(0, String::len) * 2
        });
        self.0.content.get().len()
            + self.0.structured.as_ref().map_or(0, |s| s.get().len())
            + asking
            + 64
    }

    /// The JSON text of the `CallToolResult` object (the older protocol era's form).
    pub fn json(&self) -> String {
        let mut out = Vec::with_capacity(self.size());
        match serde_json::to_writer(&mut out, &self.shape(None)) {
            Ok(()) => String::from_utf8(out).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// The typed result, for transports that need one (the bridge).
    pub fn to_model(&self) -> Result<ModelResult, serde_json::Error> {
        serde_json::from_str(&self.json())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::model::Tool;
    use serde_json::{Map, Value, json};

    use super::*;

    fn parsed(bytes: &[u8]) -> Value {
        serde_json::from_slice(bytes).expect("the shape writes one JSON value")
    }

    /// Text that needs every kind of escape JSON has.
    const TRICKY: &str = "say \"hi\" \\ C:\\films\n\t\u{1} Amélie \u{2028} 東京 </script>";

    #[test]
    fn a_success_carries_its_id_as_sent_and_the_result() {
        let mut result = Map::new();
        result.insert("text".into(), TRICKY.into());
        for id in [json!("req-\"7\""), json!(7), json!(-1.5), json!(null)] {
            let body = success(&id, &result, 16);
            assert_eq!(
                parsed(&body),
                json!({ "jsonrpc": "2.0", "id": id, "result": { "text": TRICKY } })
            );
        }
    }

    #[test]
    fn a_failure_has_code_message_and_data_only_when_given() {
        let data = json!({ "supported": ["2026-07-28"] });
        let body = failure(&json!("a"), -32602, TRICKY, Some(&data));
        assert_eq!(
            parsed(&body),
            json!({ "jsonrpc": "2.0", "id": "a", "error": { "code": -32602, "message": TRICKY, "data": data } })
        );
        let body = failure(&Value::Null, -32600, "invalid request", None);
        assert_eq!(
            parsed(&body),
            json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": "invalid request" } })
        );
    }

    fn listed(name: &str, description: &str) -> Arc<ListedTool> {
        let schema = Arc::new(
            json!({ "type": "object", "properties": {} })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        Arc::new(ListedTool::new(Tool::new(
            name.to_owned(),
            description.to_owned(),
            schema,
        )))
    }

    fn definition(t: &ListedTool) -> Value {
        serde_json::to_value(t.tool()).unwrap()
    }

    #[test]
    fn a_tool_list_writes_each_definition_as_serialized_then_the_fixtures() {
        let host = [listed("whoami", TRICKY), listed("find_torrents", "rows")];
        let fixtures = [listed("test_simple_text", "text")];
        let legacy = ToolList {
            tools: Definitions {
                host: &host,
                fixtures: &[],
            },
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
        };
        assert_eq!(
            parsed(&success(&json!(1), legacy, 0)),
            json!({ "jsonrpc": "2.0", "id": 1, "result": {
                "tools": [definition(&host[0]), definition(&host[1])] } })
        );
        let tools = Definitions {
            host: &host,
            fixtures: &fixtures,
        };
        assert!(tools.size() > host[0].json().len() + fixtures[0].json().len());
        let modern = ToolList {
            tools,
            ttl_ms: Some(60_000),
            cache_scope: Some("private"),
            result_type: Some(COMPLETE),
        };
        assert_eq!(
            parsed(&success(&json!("l"), modern, 0)),
            json!({ "jsonrpc": "2.0", "id": "l", "result": {
                "tools": [definition(&host[0]), definition(&host[1]), definition(&fixtures[0])],
                "ttlMs": 60_000, "cacheScope": "private", "resultType": "complete" } })
        );
        assert_eq!(definition(&host[0])["description"], TRICKY);
    }

    #[test]
    fn a_structured_result_is_summary_text_then_the_content_as_text_and_as_structured() {
        let structured = json!({ "summary": TRICKY, "data": { "rows": [1, 2.5, null, true] } });
        let raw = to_raw_value(&structured).unwrap();
        let result = RenderedResult::structured(TRICKY, raw, false);
        let meant = json!({
            "content": [
                { "type": "text", "text": TRICKY },
                { "type": "text", "text": structured.to_string() },
            ],
            "structuredContent": structured,
            "isError": false,
        });
        assert_eq!(
            serde_json::from_str::<Value>(&result.json()).unwrap(),
            meant
        );
        let mut modern = meant.clone();
        modern["resultType"] = "complete".into();
        assert_eq!(
            parsed(&success(
                &json!(9),
                result.shape(Some(COMPLETE)),
                result.size()
            )),
            json!({ "jsonrpc": "2.0", "id": 9, "result": modern })
        );
        assert_eq!(
            parsed(&success(&json!(9), result.shape(None), result.size())),
            json!({ "jsonrpc": "2.0", "id": 9, "result": meant })
        );
        let model = result.to_model().unwrap();
        assert_eq!(model.structured_content, Some(structured));
        assert_eq!(model.is_error, Some(false));
    }

    #[test]
    fn a_content_result_has_no_structured_content() {
        let blocks = [
            json!({ "type": "text", "text": TRICKY }),
            json!({ "type": "image", "data": "iVBO", "mimeType": "image/png" }),
        ];
        let result = RenderedResult::content(&blocks, true);
        assert!(result.is_error());
        assert_eq!(
            serde_json::from_str::<Value>(&result.json()).unwrap(),
            json!({ "content": blocks, "isError": true })
        );
    }
}
