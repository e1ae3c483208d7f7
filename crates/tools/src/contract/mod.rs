//! The tools' outward contract: the core's tool contract (strict inputs, the answer envelope,
//! schemas) as the families and the hosts name it, and the table of every tool that
//! `docs/tools.md` is generated from.

pub use governance::contract::*;

mod table;

pub use table::tools_table;
