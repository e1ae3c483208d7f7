//! Marquee's vocabulary: the nouns every other crate shares. No IO, no async, no policy.

mod allowance;
mod capability;
mod instance;
mod media;
mod person;
mod secret;
mod torrent;

pub use allowance::{AllowanceKind, AllowanceRule, MAX_ALLOWANCE_DAYS};
pub use capability::{Capability, Preset};
pub use instance::{InstanceId, InstanceKind, KindFamily};
pub use media::{MediaId, MediaSource, MediaType};
pub use person::{PersonId, Role};
pub use secret::Secret;
pub use torrent::{InfoHash, InfoHashError};
