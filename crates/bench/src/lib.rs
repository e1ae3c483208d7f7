//! Load-test helpers for `scripts/bench.sh`: precomputed JSON-RPC answers keyed by method (and,
//! for `tools/call`, optionally by tool name), and the synthetic torrents of `fake-qbittorrent`.
//!
//! The `bench-bare` binary serves the answers on `POST /mcp` as the reference a real Marquee is
//! measured against: the same HTTP stack, the same JSON parse of the request, no work beyond.
//! The `fake-qbittorrent` binary serves [`qbit::Synthetic`] torrents over qBittorrent's WebAPI v2.

use std::{collections::HashMap, path::Path};

use serde_json::Value;

pub mod qbit;

/// One precomputed answer: the serialized `result` of a real response, spliced around the id.
#[derive(Debug, Clone)]
pub struct Answer {
    result: String,
}

impl Answer {
    /// Reads a saved JSON-RPC response (`{"jsonrpc":"2.0","id":…,"result":…}`); only its
    /// `result` is kept.
    pub fn from_response(text: &str) -> Result<Answer, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let result = value
            .get("result")
            .ok_or("the response has no \"result\"; save a successful answer")?;
        let result = serde_json::to_string(result).map_err(|e| e.to_string())?;
        Ok(Answer { result })
    }

    /// The response body for a request with this id (`null` when the request had none).
    pub fn render(&self, id: Option<&Value>) -> Vec<u8> {
        let id = id.map_or_else(|| "null".to_owned(), Value::to_string);
        let mut out = Vec::with_capacity(self.result.len() + id.len() + 40);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(br#","result":"#);
        out.extend_from_slice(self.result.as_bytes());
        out.push(b'}');
        out
    }
}

/// Answers by JSON-RPC method name; `tools/call:NAME` keys answer one tool, before a plain
/// `tools/call` key answering any.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    by_method: HashMap<String, Answer>,
}

impl Answers {
    /// Loads one `METHOD=FILE` pair (METHOD may be `tools/call:NAME`), as given on the command line.
    pub fn load(&mut self, spec: &str) -> Result<(), String> {
        let (method, file) = spec
            .split_once('=')
            .ok_or_else(|| format!("--answer {spec}: expected METHOD=FILE"))?;
        let text = std::fs::read_to_string(Path::new(file))
            .map_err(|e| format!("--answer {spec}: cannot read {file}: {e}"))?;
        let answer = Answer::from_response(&text).map_err(|e| format!("--answer {spec}: {e}"))?;
        self.by_method.insert(method.to_owned(), answer);
        Ok(())
    }

    /// The body answering one parsed request, or `None` for a method with no saved answer.
    pub fn answer(&self, request: &Value) -> Option<Vec<u8>> {
        let method = request.get("method")?.as_str()?;
        let tool = (method == "tools/call")
            .then(|| request.get("params")?.get("name")?.as_str())
            .flatten()
            .and_then(|name| self.by_method.get(&format!("tools/call:{name}")));
        let answer = tool.or_else(|| self.by_method.get(method))?;
        Some(answer.render(request.get("id")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splices_only_the_id() {
        let a = Answer::from_response(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#).unwrap();
        let mut answers = Answers::default();
        answers.by_method.insert("tools/list".into(), a);
        let req: Value =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":"x7","method":"tools/list"}"#).unwrap();
        let body = answers.answer(&req).unwrap();
        let got: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            got,
            serde_json::json!({"jsonrpc":"2.0","id":"x7","result":{"tools":[]}})
        );
        let other: Value =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
        assert!(answers.answer(&other).is_none());
    }

    #[test]
    fn a_tool_key_wins_over_the_method_key() {
        let mut answers = Answers::default();
        for (key, tools) in [("tools/call", 1), ("tools/call:find_torrents", 2)] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"n":{tools}}}}}"#);
            answers
                .by_method
                .insert(key.into(), Answer::from_response(&text).unwrap());
        }
        let n = |name: &str| {
            let req = serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":name}});
            let got: Value = serde_json::from_slice(&answers.answer(&req).unwrap()).unwrap();
            got["result"]["n"].as_i64().unwrap()
        };
        assert_eq!((n("find_torrents"), n("whoami")), (2, 1));
    }

    #[test]
    fn refuses_an_error_response() {
        assert!(Answer::from_response(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1}}"#).is_err());
    }
}
