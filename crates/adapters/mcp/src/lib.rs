//! Other MCP servers, reached through rmcp's client: a child Marquee starts and supervises
//! (stdio) or a Streamable HTTP endpoint. A [`Server`] keeps its connection up (restarting a
//! child with back-off), its tool list current (`notifications/tools/list_changed` reads it
//! again) and answers calls within a time and size limit, with the secrets Marquee handed the
//! server scrubbed from what comes back and from its stderr lines.
//!
//! Architecture invariant: no permissions, no SQL, no Marquee tool contract; rmcp's types stay
//! inside this crate.

mod redact;
mod server;

use std::time::Duration;

use domain::Secret;
use serde_json::{Map, Value};

pub use server::{Ask, Progress, Server, Status};

/// How a server is reached.
#[derive(Debug, Clone)]
pub enum Launch {
    /// A child process Marquee starts, speaking MCP on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Its environment beyond Marquee's own, by name.
        env: Vec<(String, Secret)>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        /// Headers sent with every request, by name.
        headers: Vec<(String, Secret)>,
    },
}

/// One configured server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The instance id: its tools are listed as `<id>__<tool>`.
    pub id: String,
    pub launch: Launch,
    /// The values read from `_file` secrets: scrubbed from answers and stderr lines.
    pub secrets: Vec<Secret>,
    /// How long connecting, or one call, may take.
    pub timeout: Duration,
    /// The largest answer accepted, in bytes of JSON.
    pub max_answer_bytes: usize,
}

/// The largest answer accepted by default: 1 MiB of JSON.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// The separator between an instance id and a tool name in a listed name.
pub const SEPARATOR: &str = "__";

/// Refuses an instance id that could make two servers' listed names collide: letters, digits
/// and `-` only (so `<id>__<tool>` splits at its first `__`), 1 to 40 characters.
pub fn check_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 40
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "instance \"{id}\": an mcp instance's id is 1 to 40 letters, digits or '-' (no '_'), so that its tools' names (<id>__<tool>) cannot collide with another server's"
        ))
    }
}

/// A tool a server offers, as it described it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Map<String, Value>,
    pub hints: RemoteHints,
}

/// A tool's annotations with the specification's defaults filled in (an unannotated tool is
/// not read-only, destructive, not idempotent, open-world).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteHints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// A call's answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The content blocks, as JSON.
    pub content: Vec<Value>,
    pub structured: Option<Value>,
    /// The server's `isError`.
    pub is_error: bool,
    /// The answer's size in bytes of JSON.
    pub bytes: usize,
}

impl Answer {
    /// The text blocks joined, for a summary.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Why a call got no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    #[error("the MCP server {id} is down{why}")]
    Down { id: String, why: String },
    #[error("the MCP server {id} did not answer within {secs} s")]
    Timeout { id: String, secs: u64 },
    #[error("the MCP server {id} answered {bytes} bytes, more than the {limit} accepted")]
    TooLarge {
        id: String,
        bytes: usize,
        limit: usize,
    },
    #[error("the MCP server {id} refused the call: {message}")]
    Refused { id: String, message: String },
    #[error("the MCP server {id} failed: {message}")]
    Failed { id: String, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_collide_are_refused() {
        assert!(check_id("home").is_ok());
        assert!(check_id("home-2").is_ok());
        for bad in ["", "home_", "a__b", "x.y", &"a".repeat(41)] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }
}
