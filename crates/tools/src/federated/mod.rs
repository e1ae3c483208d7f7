//! Other MCP servers behind Marquee's governance: each `mcp` instance is a server started or
//! reached through `adapters-mcp`, supervised by a background job, and its tools are served as
//! `<instance id>__<tool>` while it is up (`external.rs`), under the capability `federated`,
//! planned for the owner's approval when destructive (`planned.rs`), their arguments checked
//! against the server's input schema before they leave (`arguments.rs`); their resources and
//! prompts are passed through under the same rule (`passthrough.rs`).

mod arguments;
mod external;
mod passthrough;
mod planned;

use std::{collections::HashMap, sync::Arc, time::Duration};

use adapters_mcp::{Launch, Server, ServerConfig};
use domain::{InstanceKind, Secret};
use governance::{CheckFuture, DynTool, InstanceSpec, Instances, Job, LiveTools, Slots};
use parking_lot::Mutex;

pub use adapters_mcp::check_id;
pub use passthrough::{get_prompt, list_prompts, list_resources, read_resource};

use external::External;

/// How often each server's supervisor looks whether it must be started again.
const TICK: Duration = Duration::from_millis(500);

/// The external MCP servers.
pub struct FederatedFamily;

impl governance::Family for FederatedFamily {
    fn name(&self) -> &'static str {
        "federated"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Mcp]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        Vec::new()
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Arc::new(Federation::from_instances(instances)));
    }

    fn live(&self, slots: &Slots) -> Option<Arc<dyn LiveTools>> {
        let federation = slots.get::<Arc<Federation>>()?.clone();
        (!federation.servers.is_empty()).then_some(federation as Arc<dyn LiveTools>)
    }

    /// Each server's supervisor (`federated.supervise:<id>`): starts it when it is down and
    /// its back-off has passed.
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        let Some(federation) = slots.get::<Arc<Federation>>() else {
            return Vec::new();
        };
        federation
            .servers
            .iter()
            .map(|server| {
                let server = server.clone();
                Job {
                    name: format!("federated.supervise:{}", server.id()),
                    every: TICK,
                    on_every_replica: true,
                    pass: Arc::new(move || {
                        let server = server.clone();
                        Box::pin(async move { server.tick().await })
                    }),
                }
            })
            .collect()
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move {
            let federation = slots.get::<Arc<Federation>>()?;
            let server = federation.server(&spec.id)?;
            let status = server.status();
            Some(if status.up {
                Ok(format!("up, {} tools", status.tools))
            } else {
                let mut why = status
                    .last_error
                    .unwrap_or_else(|| "not started yet".into());
                if !status.stderr.is_empty() {
                    why.push_str(&format!(
                        "; its last stderr lines: {}",
                        status.stderr.join(" | ")
                    ));
                }
                Err(format!("down: {why}"))
            })
        })
    }
}

/// The state of the external server `id` (up, its tool count, why it is down, its last stderr
/// lines), when it is configured.
pub fn status(app: &governance::App, id: &str) -> Option<adapters_mcp::Status> {
    Some(app.family::<Arc<Federation>>()?.server(id)?.status())
}

/// The configured servers and the tools each serves now.
pub(crate) struct Federation {
    servers: Vec<Arc<Server>>,
    /// Per server, the tools built from its list, with the list version they were built from.
    built: Mutex<HashMap<String, Built>>,
    /// Per server, the names of the tools it listed last while up. A call while it is down
    /// answers that it is down under one of those names, or under `<id>__*` for any other
    /// name, so no name a caller makes up is kept or counted.
    last_listed: Mutex<HashMap<String, Vec<&'static str>>>,
}

/// A server's tools, with the version of its list they were built from.
type Built = (u64, Vec<Arc<dyn DynTool>>);

impl Federation {
    fn from_instances(instances: &Instances) -> Federation {
        let servers = instances
            .all()
            .iter()
            .filter(|s| s.kind == InstanceKind::Mcp)
            .filter_map(|spec| {
                let config = config_of(instances, spec);
                if config.is_none() {
                    tracing::error!(instance = %spec.id, "an mcp instance has neither command nor url; it is not served");
                }
                config.map(Server::new)
            })
            .collect();
        Federation {
            servers,
            built: Mutex::new(HashMap::new()),
            last_listed: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn server(&self, id: &str) -> Option<&Arc<Server>> {
        self.servers.iter().find(|s| s.id() == id)
    }

    /// The tools `server` serves now (none while it is down), rebuilt when its list changed.
    fn tools_of(&self, server: &Arc<Server>) -> Vec<Arc<dyn DynTool>> {
        let version = server.version();
        let mut built = self.built.lock();
        if let Some((v, tools)) = built.get(server.id())
            && *v == version
        {
            return tools.clone();
        }
        let tools: Vec<Arc<dyn DynTool>> = server
            .tools()
            .map(|list| {
                list.iter()
                    .filter_map(|t| External::new(server.clone(), t))
                    .map(|t| Arc::new(t) as Arc<dyn DynTool>)
                    .collect()
            })
            .unwrap_or_default();
        if server.tools().is_some() {
            self.last_listed.lock().insert(
                server.id().to_string(),
                tools.iter().map(|t| t.meta().name).collect(),
            );
        }
        built.insert(server.id().to_string(), (version, tools.clone()));
        tools
    }
}

impl LiveTools for Federation {
    fn tools(&self) -> Vec<Arc<dyn DynTool>> {
        self.servers.iter().flat_map(|s| self.tools_of(s)).collect()
    }

    /// A tool of a server that is down answers that it is down, naming the server.
    fn get(&self, name: &str) -> Option<Arc<dyn DynTool>> {
        let (id, _) = name.split_once(adapters_mcp::SEPARATOR)?;
        let server = self.server(id)?;
        let found = self
            .tools_of(server)
            .into_iter()
            .find(|t| t.meta().name == name);
        match found {
            Some(t) => Some(t),
            None if server.tools().is_none() => {
                let known = self
                    .last_listed
                    .lock()
                    .get(id)
                    .and_then(|listed| listed.iter().find(|n| **n == name).copied());
                let name = known.unwrap_or_else(|| {
                    governance::intern(&format!("{id}{}*", adapters_mcp::SEPARATOR))
                });
                Some(Arc::new(external::Down::new(server.clone(), name)))
            }
            None => None,
        }
    }
}

/// The adapter's config of one `mcp` instance: a command (stdio) or its url.
fn config_of(instances: &Instances, spec: &InstanceSpec) -> Option<ServerConfig> {
    let launch = instances.launch(&spec.id).cloned().unwrap_or_default();
    let mut secrets: Vec<Secret> = Vec::new();
    let mut split = |pairs: Vec<(String, Secret, bool)>| -> Vec<(String, Secret)> {
        pairs
            .into_iter()
            .map(|(name, value, secret)| {
                if secret {
                    secrets.push(value.clone());
                }
                (name, value)
            })
            .collect()
    };
    let env = split(launch.env);
    let headers = split(launch.headers);
    let how = match (launch.command, &spec.url) {
        (Some(command), _) => Launch::Stdio {
            command,
            args: launch.args,
            env,
        },
        (None, Some(url)) => Launch::Http {
            url: url.to_string(),
            headers,
        },
        (None, None) => return None,
    };
    Some(ServerConfig {
        id: spec.id.clone(),
        launch: how,
        secrets,
        timeout: instances.timeout(&spec.id),
        max_answer_bytes: adapters_mcp::MAX_ANSWER_BYTES,
    })
}
