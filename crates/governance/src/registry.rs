//! The tools a process has, by name: those its families declared at start, and those
//! registered while it runs (a federated server's tools come and go).

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};

use parking_lot::RwLock;

use crate::{LiveTools, contract::DynTool};

/// The tools a process has: those its families declared at start, and those registered while
/// it runs (a federated server's), each by its name.
pub(crate) struct Registry {
    fixed: Vec<Arc<dyn DynTool>>,
    by_name: HashMap<&'static str, usize>,
    /// Tools registered at run time, by name; none of them shadows a fixed one.
    runtime: RwLock<BTreeMap<&'static str, Arc<dyn DynTool>>>,
    /// The families' tools that come and go (an external server's), asked each time.
    live: Vec<Arc<dyn LiveTools>>,
}

impl Registry {
    pub(crate) fn new(tools: Vec<Box<dyn DynTool>>) -> Registry {
        let mut fixed: Vec<Arc<dyn DynTool>> = Vec::with_capacity(tools.len());
        let mut seen = HashSet::new();
        for t in tools {
            let name = t.meta().name;
            if seen.insert(name) {
                fixed.push(Arc::from(t));
            } else {
                tracing::error!(
                    tool = name,
                    "two tools share a name; the second is not served"
                );
            }
        }
        fixed.sort_by_key(|t| t.meta().name);
        let by_name = fixed
            .iter()
            .enumerate()
            .map(|(i, t)| (t.meta().name, i))
            .collect();
        Registry {
            fixed,
            by_name,
            runtime: RwLock::new(Default::default()),
            live: Vec::new(),
        }
    }

    /// With `live` asked for the tools that come and go; a fixed tool's name is never theirs.
    pub(crate) fn with_live(mut self, live: Vec<Arc<dyn LiveTools>>) -> Registry {
        self.live = live;
        self
    }

    pub(crate) fn get(&self, name: &str) -> Option<Arc<dyn DynTool>> {
        match self.by_name.get(name) {
            Some(&i) => Some(self.fixed[i].clone()),
            None => self
                .runtime
                .read()
                .get(name)
                .cloned()
                .or_else(|| self.live.iter().find_map(|l| l.get(name))),
        }
    }

    /// Every tool, in the stable order (by name).
    pub(crate) fn all(&self) -> Vec<Arc<dyn DynTool>> {
        let runtime = self.runtime.read();
        if runtime.is_empty() && self.live.is_empty() {
            return self.fixed.clone();
        }
        let mut all: Vec<Arc<dyn DynTool>> =
            self.fixed.iter().chain(runtime.values()).cloned().collect();
        for live in &self.live {
            all.extend(
                live.tools()
                    .into_iter()
                    .filter(|t| !self.by_name.contains_key(t.meta().name)),
            );
        }
        all.sort_by_key(|t| t.meta().name);
        all
    }

    /// Serves `tool` from now on; refused when a tool the families declared has its name.
    pub(crate) fn register(&self, tool: Arc<dyn DynTool>) -> Result<(), String> {
        let name = tool.meta().name;
        if self.by_name.contains_key(name) {
            return Err(format!("a tool named {name} exists already"));
        }
        self.runtime.write().insert(name, tool);
        Ok(())
    }

    /// Stops serving the run-time tool `name`; `false` when there was none.
    pub(crate) fn unregister(&self, name: &str) -> bool {
        self.runtime.write().remove(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Ctx, Meta, Output, Tool, ToolError};

    struct Named;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoInput {}

    impl Tool for Named {
        type Input = NoInput;
        const META: Meta = Meta {
            name: "",
            title: "",
            description: "",
            effect: policy::Effect::Read,
            capability: domain::Capability::Discover,
            hints: crate::contract::Hints {
                idempotent: false,
                open_world: false,
            },
            allowance: None,
            or_capabilities: &[],
            family: None,
            plan: None,
        };

        async fn run(&self, _ctx: &Ctx, _input: NoInput) -> Result<Output, ToolError> {
            Ok(Output::new("named", json!({})))
        }
    }

    /// A tool whose name is made at run time, as a federated server's is.
    struct Runtime(&'static str);

    impl DynTool for Runtime {
        fn meta(&self) -> Meta {
            Meta {
                name: self.0,
                ..Named::META
            }
        }
        fn input_schema(&self) -> serde_json::Map<String, serde_json::Value> {
            crate::contract::input_schema::<NoInput>()
        }
        fn view(&self) -> Option<&'static crate::View> {
            None
        }
        fn long(&self) -> bool {
            false
        }
        fn asks(&self) -> bool {
            false
        }
        fn prepare<'a>(
            &'a self,
            arguments: serde_json::Map<String, serde_json::Value>,
        ) -> Result<crate::contract::Prepared<'a>, ToolError> {
            crate::contract::parse_input::<NoInput>(arguments)?;
            Ok(Box::new(|_| {
                Box::pin(async { Err(ToolError::invalid("not run in this test")) })
            }))
        }
    }

    #[test]
    fn run_time_tools_come_and_go_beside_the_fixed_ones_in_name_order() {
        let fixed: Vec<Box<dyn DynTool>> = vec![Box::new(Runtime("whoami"))];
        let registry = Registry::new(fixed);
        let home = crate::intern("home__turn_on");
        assert!(registry.register(Arc::new(Runtime(home))).is_ok());
        assert!(
            registry.register(Arc::new(Runtime("whoami"))).is_err(),
            "a fixed tool's name is not taken over"
        );
        assert!(registry.register(Arc::new(Runtime("alpha"))).is_ok());
        let names: Vec<&str> = registry.all().iter().map(|t| t.meta().name).collect();
        assert_eq!(names, ["alpha", "home__turn_on", "whoami"]);
        assert!(registry.get("home__turn_on").is_some());
        assert!(registry.unregister("home__turn_on"));
        assert!(!registry.unregister("home__turn_on"));
        assert!(registry.get("home__turn_on").is_none());
        assert!(registry.get("whoami").is_some());
    }
}
