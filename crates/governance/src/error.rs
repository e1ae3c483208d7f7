//! Tool errors: a closed list of codes, each with the kind of failure it is, and the error a
//! tool that ran and failed answers with.

use chrono::{SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{
    Map, Value, json,
    value::{RawValue, to_raw_value},
};

use crate::contract::wire::Envelope;

/// What kind of failure a code is: what the caller can do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments are wrong: fix them and call again.
    BadInput,
    /// The thing named does not exist.
    NotFound,
    /// The caller may not do this.
    Denied,
    /// An allowance or quota is spent for now.
    Quota,
    /// The state changed or disagrees with the call.
    Conflict,
    /// A backend (or Marquee's own database) failed or could not be reached.
    Backend,
    /// Marquee itself failed.
    Internal,
}

/// The code a tool error carries: a stable name clients see in `data.code`, and the kind of
/// failure it is. The core's codes are the constants below; a family declares its own with
/// [`ErrorCode::new`] (and lists them in `Family::error_codes`), while the kinds stay closed:
/// the REST mirror and the audit read only the kind, with named exceptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    name: &'static str,
    kind: ErrorKind,
}

// The core's codes read like the variants they once were (`ErrorCode::NotFound`).
#[allow(non_upper_case_globals)]
impl ErrorCode {
    /// An argument is malformed or out of range.
    pub const InvalidArgument: ErrorCode = ErrorCode::new("invalid_argument", ErrorKind::BadInput);
    /// An `instance_id` names no configured instance.
    pub const UnknownInstance: ErrorCode = ErrorCode::new("unknown_instance", ErrorKind::BadInput);
    /// No instance of the family the tool needs is configured.
    pub const NoInstance: ErrorCode = ErrorCode::new("no_instance", ErrorKind::BadInput);
    /// The instance cannot answer this (a catalogue without that media source, say).
    pub const Unsupported: ErrorCode = ErrorCode::new("unsupported", ErrorKind::BadInput);
    /// The named thing does not exist.
    pub const NotFound: ErrorCode = ErrorCode::new("not_found", ErrorKind::NotFound);
    /// Content limits hide this title from the caller.
    pub const NotAvailable: ErrorCode = ErrorCode::new("not_available", ErrorKind::Denied);
    /// Policy refused the call.
    pub const Denied: ErrorCode = ErrorCode::new("denied", ErrorKind::Denied);
    /// Allowed only as a plan the owner approves.
    pub const NeedsPlan: ErrorCode = ErrorCode::new("needs_plan", ErrorKind::Denied);
    /// A grant allowance is spent.
    pub const AllowanceExhausted: ErrorCode =
        ErrorCode::new("allowance_exhausted", ErrorKind::Quota);
    /// The state disagrees with the call.
    pub const Conflict: ErrorCode = ErrorCode::new("conflict", ErrorKind::Conflict);
    /// A planned change read state that has changed since: plan it again.
    pub const StalePlan: ErrorCode = ErrorCode::new("stale_plan", ErrorKind::Conflict);
    /// The instance's adapter could not be set up from its config.
    pub const BackendUnavailable: ErrorCode =
        ErrorCode::new("backend_unavailable", ErrorKind::Backend);
    /// The instance's config is wrong (e.g. a catalogue that needs a key has none).
    pub const BackendMisconfigured: ErrorCode =
        ErrorCode::new("backend_misconfigured", ErrorKind::Backend);
    /// The backend did not answer in time or at all.
    pub const BackendUnreachable: ErrorCode =
        ErrorCode::new("backend_unreachable", ErrorKind::Backend);
    /// The backend refused Marquee's credentials.
    pub const BackendUnauthorized: ErrorCode =
        ErrorCode::new("backend_unauthorized", ErrorKind::Backend);
    /// The backend asked Marquee to slow down.
    pub const BackendRateLimited: ErrorCode =
        ErrorCode::new("backend_rate_limited", ErrorKind::Backend);
    /// The backend answered with an error or something unreadable.
    pub const BackendError: ErrorCode = ErrorCode::new("backend_error", ErrorKind::Backend);
    /// The backend's answer could not be read completely; nothing partial is shown.
    pub const BackendIncomplete: ErrorCode =
        ErrorCode::new("backend_incomplete", ErrorKind::Backend);
    /// Marquee's own database could not be read or written.
    pub const StoreUnavailable: ErrorCode = ErrorCode::new("store_unavailable", ErrorKind::Backend);
    /// The call is ambiguous and the person must choose; the error lists the choices.
    pub const ChoiceNeeded: ErrorCode = ErrorCode::new("choice_needed", ErrorKind::BadInput);
    /// The person declined (or cancelled) a question the call asked; nothing was done.
    pub const Declined: ErrorCode = ErrorCode::new("declined", ErrorKind::Denied);
    /// 2026-07-28: the call's question went back as an input-required result.
    pub const InputRequired: ErrorCode = ErrorCode::new("input_required", ErrorKind::BadInput);
    /// The caller made too many calls this minute; `data.retry_after_seconds` says when to
    /// call again (`rate.rs`).
    pub const RateLimited: ErrorCode = ErrorCode::new("rate_limited", ErrorKind::Quota);
    /// Marquee failed; the server log has the details.
    pub const Internal: ErrorCode = ErrorCode::new("internal", ErrorKind::Internal);

    /// Every code of the core, in a stable order.
    pub const CORE: &'static [ErrorCode] = &[
        ErrorCode::InvalidArgument,
        ErrorCode::UnknownInstance,
        ErrorCode::NoInstance,
        ErrorCode::Unsupported,
        ErrorCode::NotFound,
        ErrorCode::NotAvailable,
        ErrorCode::Denied,
        ErrorCode::NeedsPlan,
        ErrorCode::AllowanceExhausted,
        ErrorCode::Conflict,
        ErrorCode::StalePlan,
        ErrorCode::BackendUnavailable,
        ErrorCode::BackendMisconfigured,
        ErrorCode::BackendUnreachable,
        ErrorCode::BackendUnauthorized,
        ErrorCode::BackendRateLimited,
        ErrorCode::BackendError,
        ErrorCode::BackendIncomplete,
        ErrorCode::StoreUnavailable,
        ErrorCode::ChoiceNeeded,
        ErrorCode::Declined,
        ErrorCode::InputRequired,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
    ];

    /// A code of a family's own: `name` in snake_case, unique in the build.
    pub const fn new(name: &'static str, kind: ErrorKind) -> ErrorCode {
        ErrorCode { name, kind }
    }

    /// The stable machine-readable name clients see in `data.code`.
    pub fn as_str(self) -> &'static str {
        self.name
    }

    pub fn kind(self) -> ErrorKind {
        self.kind
    }

    /// True when a failure with this code certainly did nothing outside Marquee (the call was
    /// refused or its input was wrong); a backend or internal failure may have half-happened.
    pub fn nothing_happened(self) -> bool {
        !matches!(self.kind(), ErrorKind::Backend | ErrorKind::Internal)
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool that ran and failed: answered as an `isError` result with one actionable sentence.
#[derive(Debug, Clone)]
pub struct ToolError {
    pub message: String,
    pub code: ErrorCode,
    /// Structured detail merged into the answer's `data` (valid values, when it refills...).
    pub data: Value,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            code,
            data: Value::Null,
        }
    }

    pub fn invalid(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidArgument, message)
    }

    pub fn denied(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::Denied, message)
    }

    pub fn with_data(mut self, data: Value) -> ToolError {
        self.data = data;
        self
    }

    /// The same envelope as a success, so clients read both the same way.
    pub fn envelope(&self) -> Value {
        json!({
            "summary": self.message,
            "data": self.envelope_data(),
            "warnings": [],
            "next_action": null,
            "observed_at": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        })
    }

    /// [`ToolError::envelope`] as JSON, written without building the whole tree; `None` only
    /// if it could not be written (logged), which strings and numbers cannot cause.
    pub fn envelope_json(&self) -> Option<Box<RawValue>> {
        let observed_at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
        let envelope = Envelope {
            data: &self.envelope_data(),
            next_action: None,
            observed_at: &observed_at,
            summary: &self.message,
            warnings: &[],
        };
        to_raw_value(&envelope)
            .inspect_err(|e| tracing::error!(error = %e, "a tool error could not be written"))
            .ok()
    }

    /// `data`: the code, its kind, and what the tool added.
    fn envelope_data(&self) -> Map<String, Value> {
        let mut data = Map::new();
        data.insert("code".into(), self.code.as_str().into());
        data.insert("kind".into(), json!(self.code.kind()));
        if let Value::Object(extra) = &self.data {
            data.extend(extra.clone());
        }
        data
    }
}

impl From<store::Error> for ToolError {
    fn from(e: store::Error) -> ToolError {
        tracing::error!(error = %e, "store failure inside a tool");
        if e.is_disk_full() {
            return ToolError::new(
                ErrorCode::StoreUnavailable,
                "marquee's data folder is full: its database refuses writes until space is freed there; reads still answer",
            );
        }
        ToolError::new(
            ErrorCode::StoreUnavailable,
            "marquee's own database could not be read; run diagnose or check the server log",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_codes_have_unique_snake_case_names() {
        let mut names: Vec<&str> = ErrorCode::CORE.iter().map(|c| c.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        );
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
        assert_eq!(ErrorCode::StalePlan.kind(), ErrorKind::Conflict);
        assert_eq!(ErrorCode::Declined.as_str(), "declined");
    }

    #[test]
    fn the_envelope_names_the_code_and_its_kind() {
        let e = ToolError::new(ErrorCode::NotFound, "no torrent").with_data(json!({"x": 1}));
        let v = e.envelope();
        assert_eq!(v["data"]["code"], "not_found");
        assert_eq!(v["data"]["kind"], "not_found");
        assert_eq!(v["data"]["x"], 1);
        assert_eq!(v["summary"], "no torrent");
    }
}
