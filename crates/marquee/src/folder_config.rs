//! The `folder` instances' own settings: `role` (library or downloads) and `media_type` (movie,
//! tv or music), refused on other kinds and outside their words.

use anyhow::{anyhow, bail};
use domain::{FolderMedia, FolderRole};

use crate::config::Config;

impl Config {
    /// Each folder instance's role and media type where the config sets either.
    pub fn instance_folders(&self) -> anyhow::Result<Vec<(String, tools::FolderUse)>> {
        let mut out = Vec::new();
        for i in &self.instances {
            if i.kind != "folder" {
                for (key, set) in [
                    ("role", i.role.is_some()),
                    ("media_type", i.media_type.is_some()),
                ] {
                    if set {
                        bail!(
                            "instance \"{}\": {key} is for folder instances; a {} instance has none",
                            i.id,
                            i.kind
                        );
                    }
                }
                continue;
            }
            let role = match i.role.as_deref() {
                None => FolderRole::default(),
                Some(r) => r.parse().map_err(|_| {
                    anyhow!(
                        "instance \"{}\": role = \"{r}\" is not one of library, downloads",
                        i.id
                    )
                })?,
            };
            let media_type = match i.media_type.as_deref() {
                None => None,
                Some(m) => Some(m.parse::<FolderMedia>().map_err(|_| {
                    anyhow!(
                        "instance \"{}\": media_type = \"{m}\" is not one of movie, tv, music",
                        i.id
                    )
                })?),
            };
            out.push((i.id.clone(), tools::FolderUse { role, media_type }));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, InstanceConfig};

    fn folder(id: &str, role: Option<&str>, media_type: Option<&str>) -> InstanceConfig {
        InstanceConfig {
            id: id.into(),
            kind: "folder".into(),
            path: Some("/srv/media".into()),
            role: role.map(Into::into),
            media_type: media_type.map(Into::into),
            ..InstanceConfig::default()
        }
    }

    fn config(instances: Vec<InstanceConfig>) -> Config {
        Config {
            instances,
            ..Config::default()
        }
    }

    #[test]
    fn a_folder_is_a_library_of_anything_unless_it_says_otherwise() {
        let c = config(vec![
            folder("plain", None, None),
            folder("dl", Some("downloads"), None),
            folder("films", Some("library"), Some("movie")),
        ]);
        let got = c.instance_folders().unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1, tools::FolderUse::default());
        assert_eq!(got[1].1.role, domain::FolderRole::Downloads);
        assert_eq!(got[2].1.media_type, Some(domain::FolderMedia::Movie));
    }

    #[test]
    fn unknown_words_and_other_kinds_are_refused_with_the_choices() {
        let e = config(vec![folder("f", Some("archive"), None)])
            .instance_folders()
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "instance \"f\": role = \"archive\" is not one of library, downloads"
        );
        let e = config(vec![folder("f", None, Some("films"))])
            .instance_folders()
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "instance \"f\": media_type = \"films\" is not one of movie, tv, music"
        );
        let radarr = InstanceConfig {
            id: "r".into(),
            kind: "radarr".into(),
            role: Some("library".into()),
            ..InstanceConfig::default()
        };
        let e = config(vec![radarr])
            .instance_folders()
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "instance \"r\": role is for folder instances; a radarr instance has none"
        );
    }
}
