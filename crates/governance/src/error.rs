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

/// Every code a tool error can carry. Closed: a new code is a new variant, and every match on
/// it (the REST mirror's statuses) must say what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An argument is malformed or out of range.
    InvalidArgument,
    /// An `instance_id` names no configured instance.
    UnknownInstance,
    /// No instance of the family the tool needs is configured.
    NoInstance,
    /// The instance cannot answer this (a catalogue without that media source, say).
    Unsupported,
    /// The named thing does not exist.
    NotFound,
    /// Content limits hide this title from the caller.
    NotAvailable,
    /// Policy refused the call.
    Denied,
    /// Allowed only as a plan the owner approves.
    NeedsPlan,
    /// A request quota is spent.
    RequestQuotaExceeded,
    /// A grant allowance is spent.
    AllowanceExhausted,
    /// The state disagrees with the call.
    Conflict,
    /// A planned change read state that has changed since: plan it again.
    StalePlan,
    /// The instance's adapter could not be set up from its config.
    BackendUnavailable,
    /// The instance's config is wrong (e.g. a catalogue that needs a key has none).
    BackendMisconfigured,
    /// The backend did not answer in time or at all.
    BackendUnreachable,
    /// The backend refused Marquee's credentials.
    BackendUnauthorized,
    /// The backend asked Marquee to slow down.
    BackendRateLimited,
    /// The backend answered with an error or something unreadable.
    BackendError,
    /// The backend's answer could not be read completely; nothing partial is shown.
    BackendIncomplete,
    /// The caller's content limits could not be checked against the catalogue.
    LimitsUnreadable,
    /// Marquee's own database could not be read or written.
    StoreUnavailable,
    /// The call is ambiguous and the person must choose; the error lists the choices.
    ChoiceNeeded,
    /// The person declined (or cancelled) a question the call asked; nothing was done.
    Declined,
    /// 2026-07-28: the call's question went back as an input-required result.
    InputRequired,
    /// Marquee failed; the server log has the details.
    Internal,
}

impl ErrorCode {
    /// The stable machine-readable name clients see in `data.code`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::UnknownInstance => "unknown_instance",
            ErrorCode::NoInstance => "no_instance",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotAvailable => "not_available",
            ErrorCode::Denied => "denied",
            ErrorCode::NeedsPlan => "needs_plan",
            ErrorCode::RequestQuotaExceeded => "request_quota_exceeded",
            ErrorCode::AllowanceExhausted => "allowance_exhausted",
            ErrorCode::Conflict => "conflict",
            ErrorCode::StalePlan => "stale_plan",
            ErrorCode::BackendUnavailable => "backend_unavailable",
            ErrorCode::BackendMisconfigured => "backend_misconfigured",
            ErrorCode::BackendUnreachable => "backend_unreachable",
            ErrorCode::BackendUnauthorized => "backend_unauthorized",
            ErrorCode::BackendRateLimited => "backend_rate_limited",
            ErrorCode::BackendError => "backend_error",
            ErrorCode::BackendIncomplete => "backend_incomplete",
            ErrorCode::LimitsUnreadable => "limits_unreadable",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::ChoiceNeeded => "choice_needed",
            ErrorCode::Declined => "declined",
            ErrorCode::InputRequired => "input_required",
            ErrorCode::Internal => "internal",
        }
    }

    pub fn kind(self) -> ErrorKind {
        match self {
            ErrorCode::InvalidArgument
            | ErrorCode::UnknownInstance
            | ErrorCode::NoInstance
            | ErrorCode::Unsupported
            | ErrorCode::ChoiceNeeded
            | ErrorCode::InputRequired => ErrorKind::BadInput,
            ErrorCode::NotFound => ErrorKind::NotFound,
            ErrorCode::NotAvailable
            | ErrorCode::Denied
            | ErrorCode::NeedsPlan
            | ErrorCode::Declined => ErrorKind::Denied,
            ErrorCode::RequestQuotaExceeded | ErrorCode::AllowanceExhausted => ErrorKind::Quota,
            ErrorCode::Conflict | ErrorCode::StalePlan => ErrorKind::Conflict,
            ErrorCode::BackendUnavailable
            | ErrorCode::BackendMisconfigured
            | ErrorCode::BackendUnreachable
            | ErrorCode::BackendUnauthorized
            | ErrorCode::BackendRateLimited
            | ErrorCode::BackendError
            | ErrorCode::BackendIncomplete
            | ErrorCode::LimitsUnreadable
            | ErrorCode::StoreUnavailable => ErrorKind::Backend,
            ErrorCode::Internal => ErrorKind::Internal,
        }
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
    fn the_envelope_names_the_code_and_its_kind() {
        let e = ToolError::new(ErrorCode::NotFound, "no torrent").with_data(json!({"x": 1}));
        let v = e.envelope();
        assert_eq!(v["data"]["code"], "not_found");
        assert_eq!(v["data"]["kind"], "not_found");
        assert_eq!(v["data"]["x"], 1);
        assert_eq!(v["summary"], "no torrent");
    }
}
