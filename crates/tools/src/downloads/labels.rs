//! Categories and tags as each instance knows them (from its catalogue, no backend call), and the
//! refusal of a name an instance does not have, listing the ones it does.

use adapters_downloads::CategoryModel;

use super::{Source, freshness};
use governance::ErrorCode;
use governance::contract::ToolError;

/// The category names of one loaded instance; `None` when it was never read.
pub(crate) fn category_names(source: &Source) -> Option<Vec<String>> {
    if !freshness::loaded(source) {
        return None;
    }
    let b = source.working()?;
    Some(
        b.catalogue
            .categories()
            .items
            .into_iter()
            .map(|c| c.name)
            .collect(),
    )
}

/// The known tags of one loaded instance; `None` when it was never read.
pub(crate) fn tag_names(source: &Source) -> Option<Vec<String>> {
    if !freshness::loaded(source) {
        return None;
    }
    Some(source.working()?.catalogue.tags())
}

fn is_transmission(source: &Source) -> bool {
    source
        .working()
        .is_some_and(|b| b.reads().is_transmission())
}

fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn unreadable(source: &Source, what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::BackendUnavailable,
        format!(
            "cannot check the {what} on instance {} because it could not be read; {}",
            source.id,
            freshness::problem(source).unwrap_or_else(|| "try again in a few seconds".into())
        ),
    )
}

/// Refuses `name` unless every one of `sources` has that category.
pub(crate) fn require_category(sources: &[&Source], name: &str) -> Result<(), ToolError> {
    for s in sources {
        let names = category_names(s).ok_or_else(|| unreadable(s, "categories"))?;
        if !names.iter().any(|n| n == name) {
            let note = if is_transmission(s) {
                " (on transmission a category is a sub-folder of the download folder that some torrent already uses)"
            } else {
                ""
            };
            return Err(ToolError::invalid(format!(
                "unknown category \"{name}\" on instance {}; it has: {}{note}; nothing was changed",
                s.id,
                listed(&names)
            ))
            .with_data(serde_json::json!({ "instance_id": s.id, "valid": names })));
        }
    }
    Ok(())
}

/// Refuses any of `tags` that one of `sources` does not know.
pub(crate) fn require_tags(sources: &[&Source], tags: &[String]) -> Result<(), ToolError> {
    for s in sources {
        let known = tag_names(s).ok_or_else(|| unreadable(s, "tags"))?;
        let unknown: Vec<&str> = tags
            .iter()
            .filter(|t| !known.contains(t))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(ToolError::invalid(format!(
                "unknown tag{} \"{}\" on instance {}; it has: {}; nothing was changed",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join("\", \""),
                s.id,
                listed(&known)
            ))
            .with_data(serde_json::json!({ "instance_id": s.id, "valid": known })));
        }
    }
    Ok(())
}

/// For filters over several instances: refuses a category or tag that no loaded instance has,
/// unless some instance could not be read (it might have it).
pub(crate) fn require_known_somewhere(
    sources: &[&Source],
    what: &str,
    name: &str,
    names_of: fn(&Source) -> Option<Vec<String>>,
) -> Result<(), ToolError> {
    let mut all: Vec<String> = Vec::new();
    for s in sources {
        match names_of(s) {
            Some(names) => all.extend(names),
            None => return Ok(()),
        }
    }
    all.sort();
    all.dedup();
    if all.iter().any(|n| n == name) {
        return Ok(());
    }
    Err(ToolError::invalid(format!(
        "unknown {what} \"{name}\"; the instances searched have: {}",
        listed(&all)
    ))
    .with_data(serde_json::json!({ "valid": all })))
}

/// What a category is on this instance, for `list_categories`.
pub(crate) fn model_note(model: &CategoryModel) -> &'static str {
    match model {
        CategoryModel::Native => "qbittorrent categories: only the listed ones exist",
        CategoryModel::DownloadDirSubfolder { .. } => {
            "transmission has no categories; a category is a sub-folder of the download folder, and the list shows the ones torrents use now"
        }
    }
}

/// The most tags one call names (its input schema declares it too).
pub(crate) const MAX_TAGS: usize = 20;

/// Checks tag names as given (no trimming, nothing coerced): non-empty, no comma, no edge
/// spaces, at most [`MAX_TAGS`]; repeats dropped.
pub(crate) fn tag_list(raw: &[String]) -> Result<Vec<String>, ToolError> {
    if raw.len() > MAX_TAGS {
        return Err(ToolError::invalid(format!(
            "tags names {} tags; at most {MAX_TAGS}",
            raw.len()
        )));
    }
    let mut out: Vec<String> = Vec::new();
    for t in raw {
        if t.is_empty() || t.contains(',') || t.trim() != t {
            return Err(ToolError::invalid(format!(
                "tag \"{t}\" must be non-empty, without commas and without leading or trailing spaces; nothing was changed"
            )));
        }
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    Ok(out)
}
