//! `search_music`: artists, release groups (albums, EPs, singles) or recordings on MusicBrainz,
//! or songs on a lyrics source (LRCLIB).
//! Music carries no ratings: a person's blocked genres apply to its tags, and "block unrated"
//! hides it all.

use adapters_catalogue::{MusicKind, MusicSearch, ReleaseType};
use domain::{Capability, InstanceKind, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{catalogues::Entry, limits::Gate, pick, render};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SearchMusic;

/// What to look for.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Artist,
    ReleaseGroup,
    Recording,
}

/// A release group's primary type.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Release {
    Album,
    Ep,
    Single,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Words of the name or title ("Radiohead", "OK Computer").
    #[schemars(length(max = 200))]
    pub query: String,
    /// artist, release_group (an album, EP or single) or recording (default artist).
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Release groups only: album, ep or single.
    #[serde(default)]
    pub release_type: Option<Release>,
    /// Page, from 1 (default 1); 25 rows per page.
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to search, as list_instances shows it (default: a MusicBrainz instance; an lrclib instance answers recordings).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for SearchMusic {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<render::ListData<'static, serde_json::Value>>);
    const META: Meta = Meta {
        name: "search_music",
        title: "Search music",
        description: "Searches MusicBrainz for artists, release groups (albums, EPs, singles) or recordings, or a lyrics instance (LRCLIB) for songs (kind recording). Rows carry media_source + media_id (musicbrainz: the MBID) for get_lyrics and requests. Rows this account's content limits forbid are left out and counted.",
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
        let entry = pick(
            ctx,
            input.instance_id.as_deref(),
            &[InstanceKind::Musicbrainz, InstanceKind::Lrclib],
            "music search",
        )?;
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || search(ctx, entry, input))
            .await
    }
}

async fn search(ctx: &Ctx, entry: &Entry, input: Input) -> Result<Output, ToolError> {
    let catalogue = entry.catalogue().await?;
    let (kind, noun) = match input.kind.unwrap_or(Kind::Artist) {
        Kind::Artist => (MusicKind::Artist, "artist"),
        Kind::ReleaseGroup => (MusicKind::ReleaseGroup, "release group"),
        Kind::Recording => (MusicKind::Recording, "recording"),
    };
    let search = MusicSearch {
        kind,
        query: input.query.clone(),
        release_type: input.release_type.map(|r| match r {
            Release::Album => ReleaseType::Album,
            Release::Ep => ReleaseType::Ep,
            Release::Single => ReleaseType::Single,
        }),
        page: render::page(input.page)?,
    };
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let held = super::in_library::for_caller(ctx).await;
    let mut page = catalogue
        .search_music(&search)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let (rows, hidden) = match &mut gate {
        Some(g) => {
            let f = g.music(std::mem::take(&mut page.items));
            (f.rows, f.hidden)
        }
        None => (std::mem::take(&mut page.items), 0),
    };
    let mut summary = render::list_summary(
        noun,
        &format!("for \"{}\"", input.query.trim()),
        &entry.id,
        &page,
        rows.len(),
        0,
    );
    if hidden > 0 {
        summary.push_str(&format!(
            " {hidden} result{} hidden by this account's content limits.",
            if hidden == 1 { " was" } else { "s were" }
        ));
    }
    let data = render::list_data(
        &entry.id,
        &page,
        rows.iter().map(|m| render::music_row(m, &held)).collect(),
        hidden,
        gate.is_some(),
    );
    let mut out = Output::typed(summary, &data)?;
    if !rows.is_empty() {
        for w in held.warnings(std::iter::once(MediaType::Music)) {
            out = out.warn(w);
        }
    }
    Ok(out)
}
