//! The settings lists every service shares (`service_config`): indexers, download clients,
//! delay and release profiles and remote path mappings, bounded and secret-free.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::{
    Error,
    core::Core,
    model::{ConfigEntry, ServiceConfig},
    redact::redacted,
};

/// How many entries each settings list of `service_config` keeps.
pub const CONFIG_BOUND: usize = 50;

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VProvider {
    id: i64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    implementation: Option<String>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    enable: Option<bool>,
    #[serde(default)]
    enable_rss: Option<bool>,
    #[serde(default)]
    enable_automatic_search: Option<bool>,
    #[serde(default)]
    priority: Option<i64>,
}
}

fn entry(v: VProvider) -> ConfigEntry {
    ConfigEntry {
        id: v.id,
        name: v.name.unwrap_or_default(),
        implementation: v.implementation,
        protocol: v.protocol,
        enabled: v.enable.unwrap_or(false)
            || v.enable_rss.unwrap_or(false)
            || v.enable_automatic_search.unwrap_or(false),
        priority: v.priority,
    }
}

/// Indexers, download clients, delay and release profiles and remote path mappings: names,
/// kinds and switches only (provider settings, where keys live, are never read out), each list
/// cut at [`CONFIG_BOUND`].
pub async fn service_config(core: &Core) -> Result<ServiceConfig, Error> {
    let (indexers, clients, delay, release, mappings) = tokio::try_join!(
        core.get::<Vec<VProvider>>("indexer", &[]),
        core.get::<Vec<VProvider>>("downloadclient", &[]),
        core.get::<Vec<Value>>("delayprofile", &[]),
        core.get::<Vec<Value>>("releaseprofile", &[]),
        core.get::<Vec<Value>>("remotepathmapping", &[]),
    )?;
    let mut truncated = false;
    let mut cut = |len: usize| {
        truncated |= len > CONFIG_BOUND;
        len.min(CONFIG_BOUND)
    };
    let n = cut(indexers.len());
    let indexers = indexers.into_iter().take(n).map(entry).collect();
    let n = cut(clients.len());
    let download_clients = clients.into_iter().take(n).map(entry).collect();
    let n = cut(delay.len());
    let delay_profiles = delay.into_iter().take(n).map(keep_plain).collect();
    let n = cut(release.len());
    let release_profiles = release
        .into_iter()
        .take(n)
        .map(|v| indexer_ids(keep_plain(v)))
        .collect();
    let n = cut(mappings.len());
    let remote_path_mappings = mappings.into_iter().take(n).map(keep_plain).collect();
    Ok(ServiceConfig {
        indexers,
        download_clients,
        delay_profiles,
        release_profiles,
        remote_path_mappings,
        truncated,
    })
}

/// A release profile's indexers as a list, whichever way the service names them: Sonarr v5
/// lists `indexerIds`; the others name one `indexerId`, 0 for every indexer (an empty list).
fn indexer_ids(mut v: Value) -> Value {
    if let Some(map) = v.as_object_mut()
        && let Some(one) = map.remove("indexerId")
    {
        let ids = match one.as_i64() {
            Some(id) if id > 0 => json!([id]),
            _ => json!([]),
        };
        map.insert("indexerIds".into(), ids);
    }
    v
}

/// A settings row with only its scalar fields and short lists of scalars: nested provider
/// settings are dropped rather than trusted to the redaction alone.
fn keep_plain(v: Value) -> Value {
    let Value::Object(map) = v else {
        return json!({});
    };
    let kept = map
        .into_iter()
        .filter(|(_, v)| match v {
            Value::Array(a) => a.len() <= 20 && a.iter().all(|x| !x.is_object() && !x.is_array()),
            Value::Object(_) => false,
            _ => true,
        })
        .collect();
    Value::Object(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_profiles_indexers_read_as_a_list_in_every_version() {
        let v3 = indexer_ids(json!({"id": 1, "indexerId": 4}));
        let any = indexer_ids(json!({"id": 1, "indexerId": 0}));
        let v5 = indexer_ids(json!({"id": 1, "indexerIds": [4]}));
        assert_eq!(v3, v5);
        assert_eq!(any, json!({"id": 1, "indexerIds": []}));
    }
}
