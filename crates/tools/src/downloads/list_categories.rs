//! `list_categories`: the categories and tags one download instance has, from its catalogue:
//! the valid values of every category and tag argument.

use adapters_downloads::CategoryModel;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Backend, Source, freshness, labels, one, refresher};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListCategories;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The download instance (default: the default download instance).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for ListCategories {
    type Input = Input;
    const META: Meta = Meta {
        name: "list_categories",
        title: "List torrent categories and tags",
        description: "Lists the categories (with their save paths and torrent counts) and the tags of one download instance: the only values add_torrent, set_category, move_to_category, set_tags and the find_torrents filters accept there. On Transmission a category is a sub-folder of the download folder.",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let source = one(ctx, input.instance_id.as_deref())?;
        let b = source.backend()?;
        refresher::ensure_loaded(&[source]).await;
        if !freshness::loaded(source) {
            return Err(ToolError::new(
                ErrorCode::BackendUnavailable,
                freshness::problem(source)
                    .unwrap_or_else(|| format!("instance {} could not be read", source.id)),
            ));
        }
        let memo = super::downloads(ctx).count_memo();
        memo.answer(&[source], (Self::META.name, input.instance_id), || {
            categories(source, b)
        })
    }
}

/// The categories and tags of `source`, each category's torrents counted (from the counts the
/// catalogue keeps at refresh: no scan of the rows).
fn categories(source: &Source, b: &Backend) -> Result<Output, ToolError> {
    let cats = b.catalogue.categories();
    let items: Vec<_> = cats
        .items
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "save_path": c.save_path,
                "torrents": b.catalogue.category_count(&c.name),
            })
        })
        .collect();
    let tags = b.catalogue.tags();
    let (model, base) = match &cats.model {
        CategoryModel::Native => ("native", None),
        CategoryModel::DownloadDirSubfolder { base } => ("download_dir_subfolder", Some(base)),
    };
    let names: Vec<&str> = cats.items.iter().map(|c| c.name.as_str()).collect();
    let summary = format!(
        "{} has {} categor{}{} and {} tag{}{}.",
        source.id,
        names.len(),
        if names.len() == 1 { "y" } else { "ies" },
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        },
        tags.len(),
        if tags.len() == 1 { "" } else { "s" },
        if tags.is_empty() {
            String::new()
        } else {
            format!(" ({})", tags.join(", "))
        },
    );
    let data = json!({
        "instance_id": source.id,
        "kind": source.kind,
        "model": model,
        "download_dir": base,
        "note": labels::model_note(&cats.model),
        "categories": items,
        "tags": tags,
    });
    Ok(freshness::stamp(Output::new(summary, data), &[source]))
}
