//! What the registry says of a tool by name, for the edges: how a call of it runs (long,
//! asking, external, only reading) and the bounded name it is counted under.

use policy::Effect;

use crate::App;

impl App {
    /// Whether a call of this tool is long: worth streaming progress and log messages.
    pub fn is_long(&self, name: &str) -> bool {
        self.shared.registry.get(name).is_some_and(|t| t.long())
    }

    /// Whether `name` is an external server's tool.
    pub fn is_external(&self, name: &str) -> bool {
        self.shared
            .registry
            .get(name)
            .is_some_and(|t| t.external().is_some())
    }

    /// Whether `name` only reads (a protocol task of it may be stopped half-way).
    pub fn only_reads(&self, name: &str) -> bool {
        self.shared
            .registry
            .get(name)
            .is_some_and(|t| t.meta().effect == Effect::Read)
    }

    /// The name a call of `name` is counted under: the tool's own name, from a bounded set
    /// (a made-up name counts as no tool).
    pub fn tool_label(&self, name: &str) -> Option<&'static str> {
        self.shared.registry.get(name).map(|t| t.meta().name)
    }

    /// Whether a call of this tool may ask the person to choose.
    pub fn asks(&self, name: &str) -> bool {
        self.shared.registry.get(name).is_some_and(|t| t.asks())
    }
}
