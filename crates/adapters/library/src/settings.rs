//! Settings writes: narrow, checked edits of one quality profile and a custom format created or
//! updated with validated specifications. A draft reads the resource whole (refused when the
//! redaction boundary would change it, so nothing masked is ever sent back), checks the edit
//! against it, and answers the field-by-field diff with the object as read and as it would be
//! written; [`Writer::write_settings`] sends a draft's object and reads the result back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{Error, LibraryClient, Service, Writer, custom_format::format_named};

/// Which settings resource a draft writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "id")]
pub enum SettingsRef {
    QualityProfile(i64),
    CustomFormat(i64),
    /// A custom format that does not exist yet (created by name).
    NewCustomFormat(String),
}

impl SettingsRef {
    fn path(&self) -> String {
        match self {
            SettingsRef::QualityProfile(id) => format!("qualityprofile/{id}"),
            SettingsRef::CustomFormat(id) => format!("customformat/{id}"),
            SettingsRef::NewCustomFormat(_) => "customformat".into(),
        }
    }
}

/// Narrow edits of one quality profile: qualities, groups and custom formats by name.
#[derive(Clone, Debug, Default)]
pub struct ProfileEdit {
    pub upgrade_allowed: Option<bool>,
    /// An allowed quality or group (after `allow`/`disallow`).
    pub cutoff: Option<String>,
    /// Qualities or groups of the profile to allow.
    pub allow: Vec<String>,
    /// Qualities or groups of the profile to stop allowing.
    pub disallow: Vec<String>,
    pub min_format_score: Option<i64>,
    pub cutoff_format_score: Option<i64>,
    /// Radarr and Sonarr only; at least 1.
    pub min_upgrade_format_score: Option<i64>,
    /// New scores of custom formats the profile already lists.
    pub format_scores: Vec<(String, i64)>,
}

/// A custom format as the caller wants it.
#[derive(Clone, Debug)]
pub struct FormatSpec {
    pub name: String,
    pub include_when_renaming: bool,
    pub specifications: Vec<SpecInput>,
}

/// One condition of a custom format; `fields` by the schema's field names.
#[derive(Clone, Debug)]
pub struct SpecInput {
    pub name: String,
    pub implementation: String,
    pub negate: bool,
    pub required: bool,
    pub fields: BTreeMap<String, Value>,
}

/// One field of a diff, as people read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    pub field: String,
    pub from: String,
    pub to: String,
}

/// A settings change worked out against the live resource; nothing is written.
#[derive(Clone, Debug)]
pub struct SettingsDraft {
    pub target: SettingsRef,
    /// The profile's or format's name.
    pub name: String,
    pub changes: Vec<FieldChange>,
    /// The resource as read (`None` for a create): opaque, handed back to revert.
    pub before: Option<Value>,
    /// The whole object to send: opaque.
    pub desired: Value,
}

pub(crate) fn invalid(message: String) -> Error {
    Error::Unsupported(message)
}

pub(crate) fn list(values: &[String]) -> String {
    if values.is_empty() {
        "none".into()
    } else {
        values.join(", ")
    }
}

/// A top-level profile item's name (a quality's, or a group's).
fn item_name(item: &Value) -> Option<&str> {
    item["quality"]["name"]
        .as_str()
        .or_else(|| item["name"].as_str())
        .filter(|n| !n.is_empty())
}

/// A top-level item's id as `cutoff` names it.
fn item_id(item: &Value) -> Option<i64> {
    item["quality"]["id"]
        .as_i64()
        .or_else(|| item["id"].as_i64())
}

pub(crate) fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}

impl LibraryClient {
    /// The settings resource `target` as it is now, whole; `None` when it is gone (or, for a
    /// new custom format, while no format has that name).
    pub async fn settings_now(&self, target: &SettingsRef) -> Result<Option<Value>, Error> {
        let core = &self.core;
        match target {
            SettingsRef::NewCustomFormat(name) => Ok(format_named(core, name).await?),
            other => match core.get_exact(&other.path()).await {
                Ok(v) => Ok(Some(v)),
                Err(Error::Http {
                    source: httpx::Error::NotFound,
                    ..
                }) => Ok(None),
                Err(e) => Err(e),
            },
        }
    }

    /// Works out `edit` on the quality profile named `profile` (its name or id).
    pub async fn draft_profile_edit(
        &self,
        profile: &str,
        edit: &ProfileEdit,
    ) -> Result<SettingsDraft, Error> {
        let all = self.core.get_exact("qualityprofile").await?;
        let all = all.as_array().cloned().unwrap_or_default();
        let names: Vec<String> = all
            .iter()
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect();
        let before = all
            .into_iter()
            .find(|p| {
                p["name"].as_str() == Some(profile)
                    || p["id"].as_i64().map(|i| i.to_string()).as_deref() == Some(profile)
            })
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "no quality profile \"{profile}\"; this instance has: {}",
                    list(&names)
                ))
            })?;
        let id = before["id"].as_i64().unwrap_or_default();
        let mut desired = before.clone();
        let mut changes = Vec::new();
        apply_items(&mut desired, edit, &mut changes)?;
        let scalars = [
            (
                "upgradeAllowed",
                "upgrade_allowed",
                edit.upgrade_allowed.map(Value::from),
            ),
            (
                "minFormatScore",
                "min_format_score",
                edit.min_format_score.map(Value::from),
            ),
            (
                "cutoffFormatScore",
                "cutoff_format_score",
                edit.cutoff_format_score.map(Value::from),
            ),
            (
                "minUpgradeFormatScore",
                "min_upgrade_format_score",
                edit.min_upgrade_format_score.map(Value::from),
            ),
        ];
        for (key, field, to) in scalars {
            let Some(to) = to else { continue };
            if key == "minUpgradeFormatScore" {
                if !matches!(self.service, Service::Radarr | Service::Sonarr) {
                    return Err(invalid(format!(
                        "{} profiles have no min_upgrade_format_score",
                        self.service.as_str()
                    )));
                }
                if to.as_i64().unwrap_or_default() < 1 {
                    return Err(invalid(
                        "min_upgrade_format_score must be at least 1".into(),
                    ));
                }
            }
            change(&mut desired, key, field, to, &mut changes);
        }
        apply_scores(&mut desired, &edit.format_scores, &mut changes)?;
        if changes.is_empty() {
            return Err(invalid(format!(
                "quality profile \"{}\" already has these values; nothing to change",
                before["name"].as_str().unwrap_or(profile)
            )));
        }
        Ok(SettingsDraft {
            target: SettingsRef::QualityProfile(id),
            name: before["name"].as_str().unwrap_or(profile).to_string(),
            changes,
            before: Some(before),
            desired,
        })
    }
}

impl Writer<'_> {
    /// Sends `desired` to `target` (PUT, or POST for a new custom format) and answers the
    /// resource as the service then stores it.
    pub async fn write_settings(
        &self,
        target: &SettingsRef,
        desired: &Value,
    ) -> Result<Value, Error> {
        let core = &self.client.core;
        let written: Value = match target {
            SettingsRef::NewCustomFormat(_) => core.post("customformat", desired).await?,
            other => core.put(&other.path(), desired).await?,
        };
        let id = written["id"].as_i64().unwrap_or_default();
        let stored = match target {
            SettingsRef::QualityProfile(_) => SettingsRef::QualityProfile(id),
            _ => SettingsRef::CustomFormat(id),
        };
        core.get_exact(&stored.path()).await
    }
}

fn change(desired: &mut Value, key: &str, field: &str, to: Value, changes: &mut Vec<FieldChange>) {
    if desired[key] != to {
        changes.push(FieldChange {
            field: field.into(),
            from: shown(&desired[key]),
            to: shown(&to),
        });
        desired[key] = to;
    }
}

/// `allow`, `disallow` and `cutoff` on the profile's top-level items.
fn apply_items(
    desired: &mut Value,
    edit: &ProfileEdit,
    changes: &mut Vec<FieldChange>,
) -> Result<(), Error> {
    let items = desired["items"]
        .as_array_mut()
        .ok_or_else(|| invalid("the profile has no quality list".into()))?;
    let names: Vec<String> = items
        .iter()
        .filter_map(item_name)
        .map(str::to_owned)
        .collect();
    for wanted in edit.allow.iter().chain(&edit.disallow) {
        if !names.contains(wanted) {
            return Err(invalid(format!(
                "the profile has no quality or group \"{wanted}\"; it has: {}",
                list(&names)
            )));
        }
        if edit.allow.contains(wanted) && edit.disallow.contains(wanted) {
            return Err(invalid(format!(
                "\"{wanted}\" is both allowed and disallowed"
            )));
        }
    }
    for item in items.iter_mut() {
        let Some(name) = item_name(item).map(str::to_owned) else {
            continue;
        };
        let to = if edit.allow.contains(&name) {
            true
        } else if edit.disallow.contains(&name) {
            false
        } else {
            continue;
        };
        if item["allowed"].as_bool() != Some(to) {
            changes.push(FieldChange {
                field: format!("allowed: {name}"),
                from: shown(&item["allowed"]),
                to: to.to_string(),
            });
            item["allowed"] = json!(to);
        }
    }
    let allowed: Vec<(String, i64)> = items
        .iter()
        .filter(|i| i["allowed"] == true)
        .filter_map(|i| Some((item_name(i)?.to_owned(), item_id(i)?)))
        .collect();
    if allowed.is_empty() {
        return Err(invalid("a profile must allow at least one quality".into()));
    }
    let allowed_names: Vec<String> = allowed.iter().map(|(n, _)| n.clone()).collect();
    let cutoff_now = desired["cutoff"].as_i64();
    let name_of = |id: Option<i64>| {
        desired["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|i| item_id(i) == id)
            .and_then(item_name)
            .unwrap_or("none")
            .to_string()
    };
    let target = match &edit.cutoff {
        Some(name) => Some(
            allowed
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, id)| *id)
                .ok_or_else(|| invalid(format!(
                    "the cutoff must be an allowed quality or group of the profile; allowed: {}",
                    list(&allowed_names)
                )))?,
        ),
        None if !allowed.iter().any(|(_, id)| Some(*id) == cutoff_now) => {
            return Err(invalid(format!(
                "the cutoff ({}) would no longer be allowed; give a new cutoff among: {}",
                name_of(cutoff_now),
                list(&allowed_names)
            )));
        }
        None => None,
    };
    if let Some(id) = target
        && Some(id) != cutoff_now
    {
        changes.push(FieldChange {
            field: "cutoff".into(),
            from: name_of(cutoff_now),
            to: name_of(Some(id)),
        });
        desired["cutoff"] = json!(id);
    }
    Ok(())
}

/// New scores for custom formats the profile already lists.
fn apply_scores(
    desired: &mut Value,
    scores: &[(String, i64)],
    changes: &mut Vec<FieldChange>,
) -> Result<(), Error> {
    let items = desired["formatItems"].as_array_mut();
    let mut items = items.map(std::mem::take).unwrap_or_default();
    let names: Vec<String> = items
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_owned))
        .collect();
    for (name, score) in scores {
        let item = items
            .iter_mut()
            .find(|f| f["name"].as_str() == Some(name))
            .ok_or_else(|| {
                invalid(format!(
                    "the profile lists no custom format \"{name}\"; it lists: {}",
                    list(&names)
                ))
            })?;
        if item["score"].as_i64() != Some(*score) {
            changes.push(FieldChange {
                field: format!("score: {name}"),
                from: shown(&item["score"]),
                to: score.to_string(),
            });
            item["score"] = json!(score);
        }
    }
    desired["formatItems"] = Value::Array(items);
    Ok(())
}
