//! `list_categories`: the categories and tags one download instance has, from its catalogue:
//! the valid values of every category and tag argument.

use adapters_downloads::CategoryModel;
use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Backend, Source, freshness, labels, one, refresher};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListCategories;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The download instance (default: the default download instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for ListCategories {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Listed>);
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
        .map(|c| CategoryRow {
            name: c.name.clone(),
            save_path: c.save_path.clone(),
            torrents: b.catalogue.category_count(&c.name),
        })
        .collect();
    let tags = b.catalogue.tags();
    let (model, base) = match &cats.model {
        CategoryModel::Native => ("native", None),
        CategoryModel::DownloadDirSubfolder { base } => {
            ("download_dir_subfolder", Some(base.clone()))
        }
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
    let data = Listed {
        instance_id: source.id.clone(),
        kind: source.kind,
        model,
        download_dir: base,
        note: labels::model_note(&cats.model),
        categories: items,
        tags,
    };
    Ok(freshness::stamp(
        crate::typed::output(summary, &data)?,
        &[source],
    ))
}

/// The answer's data: the instance's categories and tags, and how it keeps categories.
#[derive(Serialize, JsonSchema)]
struct Listed {
    instance_id: String,
    #[schemars(with = "String")]
    kind: InstanceKind,
    /// native (qBittorrent) or download_dir_subfolder (Transmission).
    model: &'static str,
    /// The folder categories are sub-folders of (`null` for native categories).
    download_dir: Option<String>,
    note: &'static str,
    categories: Vec<CategoryRow>,
    tags: Vec<String>,
}

/// A category, its save path and how many torrents it holds.
#[derive(Serialize, JsonSchema)]
struct CategoryRow {
    name: String,
    save_path: Option<String>,
    torrents: usize,
}
