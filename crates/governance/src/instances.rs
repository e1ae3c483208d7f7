//! The configured backend instances, and how a tool's optional `instance_id` resolves:
//! an omitted id means the kind's default; an unknown id is refused with the valid ids.

use domain::{FolderMedia, FolderRole, InstanceKind, KindFamily, Secret};
use serde::Serialize;

use crate::ErrorCode;
use crate::contract::ToolError;

/// One `[[instances]]` entry, validated.
#[derive(Debug, Clone)]
pub struct InstanceSpec {
    pub id: String,
    pub kind: InstanceKind,
    pub url: Option<url::Url>,
    pub path: Option<String>,
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub api_key: Option<Secret>,
    /// The default instance of its kind.
    pub default: bool,
}

impl InstanceSpec {
    /// The URL without userinfo or query, safe to show.
    pub fn display_url(&self) -> Option<String> {
        self.url.as_ref().map(|u| {
            let mut u = u.clone();
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.to_string()
        })
    }
}

/// What `list_instances` shows of one instance. No credentials.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InstanceView {
    pub id: String,
    /// tmdb, radarr, qbittorrent, ... as the config names it.
    #[schemars(with = "String")]
    pub kind: InstanceKind,
    /// catalogue, library, download, files, ...
    #[schemars(with = "String")]
    pub family: KindFamily,
    pub url: Option<String>,
    pub path: Option<String>,
    pub default: bool,
    pub supported: bool,
    /// Folder instances: `library` (where a media server reads) or `downloads` (where finished
    /// downloads land, to be organised).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub role: Option<FolderRole>,
    /// Folder instances: what the folder holds when the config says (movie, tv or music).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub media_type: Option<FolderMedia>,
}

/// A folder instance's `role` and `media_type`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FolderUse {
    pub role: FolderRole,
    pub media_type: Option<FolderMedia>,
}

/// How an external MCP server (an `mcp` instance) is started or reached beyond its `url`.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// The program Marquee starts and speaks MCP with on its stdin and stdout.
    pub command: Option<String>,
    pub args: Vec<String>,
    /// Its environment beyond Marquee's own: each value, and whether it came from a `_file`
    /// secret (then it is scrubbed from everything the server says).
    pub env: Vec<(String, Secret, bool)>,
    /// Headers sent to a `url` server, the same way.
    pub headers: Vec<(String, Secret, bool)>,
}

/// All configured instances, in config order.
#[derive(Debug, Clone, Default)]
pub struct Instances {
    list: Vec<InstanceSpec>,
    /// Per instance id, how long one request to it may take (`timeout_seconds`), where the
    /// config sets it; [`DEFAULT_TIMEOUT`] otherwise.
    timeouts: std::collections::HashMap<String, std::time::Duration>,
    /// Per instance id, its users' own tokens by user name (`user_tokens`: Plex managed users,
    /// whose watch state only their own token reads).
    user_tokens: std::collections::HashMap<String, Vec<(String, Secret)>>,
    /// Per `mcp` instance id, how its server is started or reached.
    launches: std::collections::HashMap<String, Launch>,
    /// Per folder instance id, its role and media type where the config sets them.
    folders: std::collections::HashMap<String, FolderUse>,
}

/// How long one request to an instance may take when its config sets no `timeout_seconds`.
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15);

impl Instances {
    /// Validates ids (unique, non-empty) and at most one default per kind; the first of a
    /// kind is its default when none is marked.
    pub fn new(mut list: Vec<InstanceSpec>) -> Result<Instances, String> {
        let mut seen = std::collections::HashSet::new();
        for spec in &list {
            if spec.id.trim().is_empty() {
                return Err("an instance has an empty id".into());
            }
            if !seen.insert(spec.id.clone()) {
                return Err(format!("instance id \"{}\" is declared twice", spec.id));
            }
        }
        for kind in InstanceKind::ALL {
            let defaults = list.iter().filter(|s| s.kind == kind && s.default).count();
            if defaults > 1 {
                return Err(format!(
                    "more than one {kind} instance is marked default = true"
                ));
            }
            if defaults == 0
                && let Some(first) = list.iter_mut().find(|s| s.kind == kind)
            {
                first.default = true;
            }
        }
        Ok(Instances {
            list,
            timeouts: Default::default(),
            user_tokens: Default::default(),
            launches: Default::default(),
            folders: Default::default(),
        })
    }

    /// With each `(id, timeout)` as the instance's own request timeout.
    pub fn with_timeouts(
        mut self,
        timeouts: impl IntoIterator<Item = (String, std::time::Duration)>,
    ) -> Instances {
        self.timeouts.extend(timeouts);
        self
    }

    /// How long one request to the instance `id` may take.
    pub fn timeout(&self, id: &str) -> std::time::Duration {
        self.timeouts.get(id).copied().unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The instance's own `timeout_seconds`, when the config sets one: a family whose default
    /// differs from [`DEFAULT_TIMEOUT`] keeps its own default otherwise.
    pub fn own_timeout(&self, id: &str) -> Option<std::time::Duration> {
        self.timeouts.get(id).copied()
    }

    /// With each `(id, users)` as the instance's users' own tokens, by user name.
    pub fn with_user_tokens(
        mut self,
        tokens: impl IntoIterator<Item = (String, Vec<(String, Secret)>)>,
    ) -> Instances {
        self.user_tokens.extend(tokens);
        self
    }

    /// The instance's users' own tokens, by user name (none when the config gives none).
    pub fn user_tokens(&self, id: &str) -> &[(String, Secret)] {
        self.user_tokens.get(id).map_or(&[], Vec::as_slice)
    }

    /// With each `(id, launch)` as how the `mcp` instance's server is started or reached.
    pub fn with_launches(
        mut self,
        launches: impl IntoIterator<Item = (String, Launch)>,
    ) -> Instances {
        self.launches.extend(launches);
        self
    }

    /// How the `mcp` instance `id`'s server is started or reached (`None`: by its url alone).
    pub fn launch(&self, id: &str) -> Option<&Launch> {
        self.launches.get(id)
    }

    /// With each `(id, use)` as the folder instance's role and media type.
    pub fn with_folders(
        mut self,
        folders: impl IntoIterator<Item = (String, FolderUse)>,
    ) -> Instances {
        self.folders.extend(folders);
        self
    }

    /// The folder instance `id`'s role and media type (a library of anything, unless the
    /// config says otherwise).
    pub fn folder(&self, id: &str) -> FolderUse {
        self.folders.get(id).copied().unwrap_or_default()
    }

    pub fn all(&self) -> &[InstanceSpec] {
        &self.list
    }

    /// The ids of the instances of one family, in config order.
    pub fn ids_of(&self, family: KindFamily) -> Vec<&str> {
        self.list
            .iter()
            .filter(|i| i.kind.family() == family)
            .map(|i| i.id.as_str())
            .collect()
    }

    /// What `list_instances` shows; `supported` says whether a family of this build has an
    /// adapter for a kind ([`crate::Ctx::supports`]).
    pub fn views(&self, supported: impl Fn(InstanceKind) -> bool) -> Vec<InstanceView> {
        self.list
            .iter()
            .map(|s| InstanceView {
                id: s.id.clone(),
                kind: s.kind,
                family: s.kind.family(),
                url: s.display_url(),
                path: s.path.clone(),
                default: s.default,
                supported: supported(s.kind),
                role: (s.kind == InstanceKind::Folder).then(|| self.folder(&s.id).role),
                media_type: self.folder(&s.id).media_type,
            })
            .collect()
    }

    /// The default instance of one kind, when one is configured.
    pub fn default_of(&self, kind: InstanceKind) -> Option<&InstanceSpec> {
        self.list.iter().find(|s| s.kind == kind && s.default)
    }

    /// Resolves an optional id within a family: the family's default when omitted.
    pub fn resolve(
        &self,
        family: KindFamily,
        id: Option<&str>,
    ) -> Result<&InstanceSpec, ToolError> {
        let of_family: Vec<&InstanceSpec> = self
            .list
            .iter()
            .filter(|s| s.kind.family() == family)
            .collect();
        let valid = || {
            of_family
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match id {
            Some(id) => of_family.iter().find(|s| s.id == id).copied().ok_or_else(|| {
                ToolError::new(ErrorCode::UnknownInstance,
                    if of_family.is_empty() {
                        format!("unknown instance_id \"{id}\"; no {family:?} instance is configured").to_lowercase()
                    } else {
                        format!("unknown instance_id \"{id}\"; valid ids: {}", valid())
                    },
                )
            }),
            None => of_family.iter().find(|s| s.default).copied().ok_or_else(|| {
                ToolError::new(ErrorCode::NoInstance, format!("no {family:?} instance is configured; add one under [[instances]] in marquee.toml").to_lowercase())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str, kind: InstanceKind, default: bool) -> InstanceSpec {
        InstanceSpec {
            id: id.into(),
            kind,
            url: None,
            path: None,
            username: None,
            password: None,
            api_key: None,
            default,
        }
    }

    #[test]
    fn defaults_and_unknown_ids() {
        let i = Instances::new(vec![
            spec("qa", InstanceKind::Qbittorrent, false),
            spec("qb", InstanceKind::Qbittorrent, true),
            spec("tr", InstanceKind::Transmission, false),
        ])
        .unwrap();
        assert_eq!(i.resolve(KindFamily::Download, None).unwrap().id, "qb");
        assert_eq!(
            i.resolve(KindFamily::Download, Some("tr")).unwrap().id,
            "tr"
        );
        let e = i.resolve(KindFamily::Download, Some("nope")).unwrap_err();
        assert_eq!(
            e.message,
            "unknown instance_id \"nope\"; valid ids: qa, qb, tr"
        );
        assert!(
            Instances::new(vec![
                spec("a", InstanceKind::Radarr, false),
                spec("a", InstanceKind::Sonarr, false)
            ])
            .is_err()
        );
        assert!(
            Instances::new(vec![
                spec("a", InstanceKind::Radarr, true),
                spec("b", InstanceKind::Radarr, true)
            ])
            .is_err()
        );
    }

    #[test]
    fn display_url_has_no_credentials() {
        let mut s = spec("r", InstanceKind::Radarr, true);
        s.url = Some(url::Url::parse("http://bob:pw@host:7878/base?apikey=zzz").unwrap());
        let shown = s.display_url().unwrap();
        assert!(
            !shown.contains("pw") && !shown.contains("zzz") && !shown.contains("bob"),
            "{shown}"
        );
    }
}
