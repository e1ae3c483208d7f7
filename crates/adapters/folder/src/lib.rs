//! Confined access beneath a folder instance's root. Every path is relative to a [`Root`] and
//! resolved beneath it in one step (`cap-std`: `openat2` with `RESOLVE_BENEATH` where the kernel
//! has it), never canonicalised and then checked. A path that is absolute, climbs with `..`,
//! leads outside through a symlink, names a device, FIFO or socket, or holds a NUL gets exactly
//! the answer a missing path gets. Invariant: no MCP, SQL or permissions; nothing outside a root.

pub mod confine;
pub mod probe;
pub mod tags;
pub mod walk;
pub mod write;

pub use cap_std;
pub use confine::{FileFacts, FolderError, Root};
pub use walk::{Candidate, WalkEntry, WalkSummary};
