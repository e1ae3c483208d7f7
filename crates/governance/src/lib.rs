//! The governance core every call passes: authenticate, decide with `policy`, parse the whole
//! input, re-read authority before a write, audit, reserve the allowance, contain panics, and
//! store a plan for the owner where one is needed. It also holds the tool contract (`Tool`,
//! `Meta`, `Output`, errors) and the sockets a family plugs into (`Family`: its tools, its
//! state in a typed slot, its error codes, its background jobs, its health check).
//!
//! Architecture invariant: this crate names no family. Whatever it needs to know about a tool
//! is a field of the tool's `Meta` (its plan hooks, its instance family, the capabilities that
//! serve as well as its own), never a match on its name.

pub mod allowance;
mod app;
pub mod ask;
pub mod authority;
pub mod context;
pub mod contract;
mod delegate;
mod detached;
pub mod error;
mod facts;
mod family;
pub mod instances;
mod jobs;
mod listing;
mod outcome;
pub mod plan;
pub mod rate;
mod registry;
pub mod report;
pub mod settings;
pub mod stored;
mod view;

pub use app::{App, Called, Line, ToolView};
pub use context::{Caller, Credential, Ctx};
pub use contract::{Annotations, DynTool, Hints, Meta, Output, Tool};
pub use delegate::{Delegate, JobView};
pub use error::{ErrorCode, ErrorKind, ToolError};
pub use family::{CheckFuture, Family, Job, JobFuture, LiveTools, Slots, intern};
pub use instances::{FolderUse, InstanceSpec, InstanceView, Instances, Launch};
pub use outcome::audit_message;
pub use settings::{ConfigSource, ConfigValue, LocalAccess, Settings};
pub use view::View;
