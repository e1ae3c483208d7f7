//! `get_recommendations`: titles like one title, within the caller's content limits.

use domain::{Capability, MediaId, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    catalogues::Entry,
    identity::TitleType,
    limits::{Gate, pass_titles},
    lookup, render,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetRecommendations;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Where the id comes from, as a discovery row gave it; always with media_id.
    #[schemars(required)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source; always with media_source.
    #[schemars(required)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// movie or tv.
    pub media_type: TitleType,
    /// Page, from 1 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to read, as list_instances shows it (default: one that answers media_source).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for GetRecommendations {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> = Some(
        governance::contract::data_of::<super::render::ListData<'static, render::TitleRow<'static>>>,
    );
    const META: Meta = Meta {
        name: "get_recommendations",
        title: "Recommendations",
        description: "Titles like the one named by media_source + media_id: TMDB's recommendations, or for the builtin catalogue films sharing directors, cast and genres. Titles this account's content limits forbid are left out and counted.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Catalogue),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let question = format!("{input:?}");
        let page_no = render::page(input.page)?;
        let (entry, id) = lookup::entry_for(
            ctx,
            input.media_source,
            input.media_id,
            input.media_type,
            input.instance_id.as_deref(),
        )?;
        entry
            .answer(ctx, Self::META.name, question, || async {
                // A limited person may only ask about a title they may see: read through the
                // limits when the answer is computed (a kept answer was computed for these limits).
                let (id, context) = if Gate::for_caller_would_filter(ctx) {
                    let looked = lookup::read(ctx, entry, id, input.media_type).await?;
                    let context = format!("like {}", lookup::label(&looked.details));
                    (looked.details.summary.id, context)
                } else {
                    let context = format!("like {id}");
                    (id, context)
                };
                recommend(ctx, entry, id, input.media_type, page_no, context).await
            })
            .await
    }
}

async fn recommend(
    ctx: &Ctx,
    entry: &Entry,
    id: MediaId,
    media_type: TitleType,
    page_no: u32,
    context: String,
) -> Result<Output, ToolError> {
    let catalogue = entry.catalogue().await?;
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let mut page = catalogue
        .recommendations(&id, media_type.media_type(), page_no)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let passed = pass_titles(&mut gate, std::mem::take(&mut page.items)).await?;
    render::titles_output(
        &entry.id,
        &context,
        &page,
        &passed.rows,
        passed.hidden,
        gate.is_some(),
        &super::in_library::for_caller(ctx).await,
    )
}
