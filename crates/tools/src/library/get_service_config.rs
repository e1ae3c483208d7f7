//! `get_service_config`: one library instance's indexers, download clients, delay and release
//! profiles and remote path mappings: names, kinds and switches, bounded and secret-free.

use adapters_library::CONFIG_BOUND;
use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{count, source::one};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetServiceConfig;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance, as list_instances shows it (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// movie, tv, music or book: picks the default instance of that kind.
    #[serde(default)]
    pub media_type: Option<MediaType>,
}

impl Tool for GetServiceConfig {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Config>);
    const META: Meta = Meta {
        name: "get_service_config",
        title: "Library service settings",
        description: "A library instance's indexers and download clients (name, kind, protocol, enabled, priority), delay and release profiles and remote path mappings. Never settings values such as keys or passwords; each list is cut at 50 entries.",
        effect: Effect::Read,
        capability: Capability::SettingsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let source = one(ctx, input.instance_id.as_deref(), input.media_type)?;
        let config = source
            .client()?
            .service_config()
            .await
            .map_err(|e| source.error(e))?;
        let enabled = config.indexers.iter().filter(|i| i.enabled).count();
        let mut out = crate::typed::output(
            format!(
                "{} has {} ({} enabled), {}, {}.",
                source.id,
                count(config.indexers.len(), "indexer", "indexers"),
                enabled,
                count(
                    config.download_clients.len(),
                    "download client",
                    "download clients"
                ),
                count(
                    config.remote_path_mappings.len(),
                    "remote path mapping",
                    "remote path mappings"
                )
            ),
            &Config {
                instance_id: source.id.clone(),
                kind: source.kind,
                config: shapes::ServiceConfig::of(&config),
            },
        )?;
        if config.truncated {
            out = out.warn(format!("some lists were cut at {CONFIG_BOUND} entries"));
        }
        Ok(out)
    }
}

/// The answer's data: the instance's secret-free settings.
#[derive(Serialize, JsonSchema)]
struct Config {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    config: shapes::ServiceConfig,
}
