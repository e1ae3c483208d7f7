//! The configuration as the settings catalogue shows it: each setting's value (never a
//! secret's) and whether the config file or the environment sets it (then it is fixed there,
//! and `plan_configuration` leaves it alone).

use std::{collections::BTreeMap, path::Path};

use figment::{
    Figment,
    providers::{Env, Format, Toml},
};

use crate::config::{Loaded, is_cli_only};

impl Loaded {
    /// Every setting of the catalogue as this configuration gives it: its value (a secret never:
    /// `null`; `[[instances]]` and `[[notifiers]]` by id and kind) and where it comes from.
    pub fn config_values(&self) -> BTreeMap<String, tools::ConfigValue> {
        let json = serde_json::to_value(&self.config).unwrap_or_default();
        tools::settings::catalogue::SETTINGS
            .iter()
            .map(|s| {
                let value = match s.key {
                    _ if s.secret() => serde_json::Value::Null,
                    "instances" => serde_json::json!(
                        self.config
                            .instances
                            .iter()
                            .map(|i| serde_json::json!({"id": i.id, "kind": i.kind}))
                            .collect::<Vec<_>>()
                    ),
                    "notifiers" => serde_json::json!(
                        self.config
                            .notifiers
                            .iter()
                            .map(|n| serde_json::json!({"id": n.id, "kind": n.kind}))
                            .collect::<Vec<_>>()
                    ),
                    key => key
                        .split('.')
                        .try_fold(&json, |v, part| v.get(part))
                        .cloned()
                        .unwrap_or(serde_json::Value::Null),
                };
                let source = self
                    .fixed
                    .get(s.key)
                    .copied()
                    .unwrap_or(tools::ConfigSource::Default);
                (s.key.to_owned(), tools::ConfigValue { value, source })
            })
            .collect()
    }
}

/// Which catalogue keys `file` and the environment set.
pub(crate) fn fixed_keys(file: Option<&Path>) -> BTreeMap<String, tools::ConfigSource> {
    let from_file = file.map(|f| Figment::from(Toml::file_exact(f)));
    let from_env = Figment::from(
        Env::prefixed("MARQUEE_")
            .split("__")
            .filter(|k| !k.as_str().ends_with("_file") && !is_cli_only(k.as_str())),
    );
    let mut fixed = BTreeMap::new();
    for s in tools::settings::catalogue::SETTINGS {
        let key = s.key.split("[]").next().unwrap_or(s.key);
        if from_env.find_value(key).is_ok() {
            fixed.insert(s.key.to_owned(), tools::ConfigSource::Environment);
        } else if from_file
            .as_ref()
            .is_some_and(|f| f.find_value(key).is_ok())
        {
            fixed.insert(s.key.to_owned(), tools::ConfigSource::File);
        }
    }
    fixed
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use crate::config::Config;

    /// Every key the config has (sections' fields; lists of entries as one key).
    fn keys(prefix: &str, v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) if !map.is_empty() => {
                for (k, child) in map {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    keys(&key, child, out);
                }
            }
            _ => {
                out.insert(prefix.to_owned());
            }
        }
    }

    /// The catalogue names every setting the config has, with the config's own default.
    #[test]
    fn the_catalogue_names_every_setting_with_its_default() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let mut all = BTreeSet::new();
        keys("", &defaults, &mut all);
        let catalogue: BTreeSet<String> = tools::settings::catalogue::SETTINGS
            .iter()
            .filter(|s| !s.key.contains("[]"))
            .map(|s| s.key.to_owned())
            .collect();
        assert_eq!(all, catalogue);
        for s in tools::settings::catalogue::SETTINGS
            .iter()
            .filter(|s| !s.secret())
        {
            let default = s
                .key
                .split('.')
                .try_fold(&defaults, |v, part| v.get(part))
                .unwrap();
            assert_eq!(default, &s.default_value(), "{}", s.key);
        }
    }

    /// A key the file or the environment sets is fixed there; the rest are not.
    #[test]
    fn keys_the_file_or_environment_set_are_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(
            &file,
            "[mcp]\nallow_destructive = true\n[[instances]]\nid = \"jf\"\nkind = \"jellyfin\"\n",
        )
        .unwrap();
        let fixed = super::fixed_keys(Some(&file));
        assert_eq!(
            fixed.get("mcp.allow_destructive"),
            Some(&tools::ConfigSource::File)
        );
        assert_eq!(fixed.get("instances"), Some(&tools::ConfigSource::File));
        assert_eq!(fixed.get("limits.calls_per_minute"), None);
        assert_eq!(fixed.get("outbound.allowed_hosts"), None);
    }
}
