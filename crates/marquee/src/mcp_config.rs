//! The `mcp` instances' own settings: how each external MCP server is started (`command`,
//! `args`, `env`) or reached (`url`, `headers`), with `_file` values read as secrets.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use domain::Secret;

use crate::config::Config;

impl Config {
    /// How each `mcp` instance's server is started (`command`) or reached (`url`, `headers`),
    /// its `_file` values read; refused when an id could make tool names collide, or when it
    /// has both or neither of `command` and `url`.
    pub fn instance_launches(&self) -> anyhow::Result<Vec<(String, tools::Launch)>> {
        let mut out = Vec::new();
        for i in self.instances.iter().filter(|i| i.kind == "mcp") {
            tools::federated::check_id(&i.id).map_err(|e| anyhow::anyhow!(e))?;
            match (&i.command, &i.url) {
                (Some(_), Some(_)) => bail!(
                    "instance \"{}\": set command (stdio) or url (Streamable HTTP), not both",
                    i.id
                ),
                (None, None) => bail!(
                    "instance \"{}\": an mcp instance needs command (a program started over stdio) or url (Streamable HTTP)",
                    i.id
                ),
                _ => {}
            }
            out.push((
                i.id.clone(),
                tools::Launch {
                    command: i.command.clone(),
                    args: i.args.clone(),
                    env: named_values(&i.env, &i.id, "env")?,
                    headers: named_values(&i.headers, &i.id, "headers")?,
                },
            ));
        }
        Ok(out)
    }
}

/// `env` or `headers` values by name; `NAME_file = "/path"` reads NAME's value from the file
/// (one trailing newline removed) and marks it a secret.
fn named_values(
    pairs: &BTreeMap<String, String>,
    id: &str,
    what: &str,
) -> anyhow::Result<Vec<(String, Secret, bool)>> {
    let mut out = Vec::new();
    for (name, value) in pairs {
        match name.strip_suffix("_file") {
            Some(base) => {
                let text = std::fs::read_to_string(value).with_context(|| {
                    format!("instance \"{id}\": {what}.{name} names {value}, which cannot be read")
                })?;
                let text = text.strip_suffix('\n').unwrap_or(&text);
                out.push((base.to_string(), Secret::new(text), true));
            }
            None => out.push((name.clone(), Secret::new(value.clone()), false)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::InstanceConfig;

    fn mcp(id: &str) -> InstanceConfig {
        InstanceConfig {
            id: id.into(),
            kind: "mcp".into(),
            command: Some("server".into()),
            ..InstanceConfig::default()
        }
    }

    fn launches(instances: Vec<InstanceConfig>) -> anyhow::Result<Vec<(String, tools::Launch)>> {
        Config {
            instances,
            ..Config::default()
        }
        .instance_launches()
    }

    #[test]
    fn an_id_whose_tool_names_could_collide_is_refused_at_load() {
        let e = launches(vec![mcp("home_")]).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "instance \"home_\": an mcp instance's id is 1 to 40 letters, digits or '-'"
            ),
            "{e}"
        );
        let mut both = mcp("home");
        both.url = Some("http://127.0.0.1:1/mcp".into());
        let e = launches(vec![both]).unwrap_err().to_string();
        assert_eq!(
            e,
            "instance \"home\": set command (stdio) or url (Streamable HTTP), not both"
        );
        let mut neither = mcp("home");
        neither.command = None;
        assert!(launches(vec![neither]).is_err());
    }

    #[test]
    fn file_values_are_read_as_secrets_and_plain_values_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, "t0ken-value\n").unwrap();
        let mut home = mcp("home");
        home.args = vec!["--stdio".into()];
        home.env = BTreeMap::from([
            ("MODE".to_string(), "quiet".to_string()),
            ("TOKEN_file".to_string(), token.display().to_string()),
        ]);
        let got = launches(vec![home]).unwrap();
        let (id, launch) = &got[0];
        assert_eq!(id, "home");
        assert_eq!(launch.args, ["--stdio"]);
        let env: Vec<(&str, &str, bool)> = launch
            .env
            .iter()
            .map(|(n, v, s)| (n.as_str(), v.expose(), *s))
            .collect();
        assert_eq!(
            env,
            [("MODE", "quiet", false), ("TOKEN", "t0ken-value", true)]
        );
    }
}
