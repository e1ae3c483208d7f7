//! A shortlist row as the row tools answer it, and what a run of it would do: its theme's
//! titles found in the media server's kept index, the rules and every audience member's
//! content limits applied, the missing ones named, and the difference from the collection
//! Marquee made on the server.

use std::collections::BTreeSet;

use adapters_media::{ItemKind, MediaItem};
use domain::{KindFamily, MediaId, MediaSource, MediaType, PersonId};
use schemars::JsonSchema;
use serde::Serialize;
use store::{ShortlistRow, Theme};

use super::theme::{Pick, Rules, view as theme_view};
use crate::{
    discover::{identity::TitleType, lookup},
    media::{limits::Gate, servers},
};
use governance::{Ctx, ErrorCode, ToolError};

/// The most titles a "because you watched" rule adds.
const SIMILAR: usize = 20;

/// A row as the row tools answer it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct RowView {
    pub row_id: i64,
    pub theme_id: i64,
    pub theme: String,
    /// The media server.
    pub instance_id: String,
    pub library_id: String,
    /// The collection's name on the server.
    pub name: String,
    /// The people it is for (names); empty: the whole household.
    pub audience: Vec<String>,
    pub enabled: bool,
    /// The collection a run made on the server, once made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
    /// When it runs on its own (plan_schedule), once scheduled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleView>,
    /// How it shows on the server.
    pub display: DisplayView,
}

/// How a row shows on its server.
#[derive(Clone, Debug, Serialize, serde::Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct DisplayView {
    /// `collection` (for everyone it is for) or `playlist` (one person's, owned by their user on the server).
    pub kind: DisplayKind,
    /// `release` (oldest first) or `title`.
    pub sort: Sort,
    /// Whether its poster is its first title's artwork.
    pub poster: bool,
}

#[derive(Clone, Copy, Debug, Serialize, serde::Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum DisplayKind {
    #[default]
    Collection,
    Playlist,
}

#[derive(Clone, Copy, Debug, Serialize, serde::Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    #[default]
    Release,
    Title,
}

impl Default for DisplayView {
    fn default() -> DisplayView {
        DisplayView::of(&store::Display::default())
    }
}

impl DisplayView {
    pub(crate) fn of(d: &store::Display) -> DisplayView {
        DisplayView {
            kind: if d.kind == "playlist" {
                DisplayKind::Playlist
            } else {
                DisplayKind::Collection
            },
            sort: if d.sort == "title" {
                Sort::Title
            } else {
                Sort::Release
            },
            poster: d.poster,
        }
    }

    pub(crate) fn stored(&self) -> store::Display {
        store::Display {
            kind: match self.kind {
                DisplayKind::Collection => "collection",
                DisplayKind::Playlist => "playlist",
            }
            .into(),
            sort: match self.sort {
                Sort::Release => "release",
                Sort::Title => "title",
            }
            .into(),
            poster: self.poster,
        }
    }

    /// In a sentence, for the owner.
    pub(crate) fn text(&self) -> String {
        format!(
            "{}, by {}{}",
            match self.kind {
                DisplayKind::Collection => "a collection",
                DisplayKind::Playlist => "its one person's playlist",
            },
            match self.sort {
                Sort::Release => "release (oldest first)",
                Sort::Title => "title",
            },
            if self.poster {
                ", its poster the first title's artwork"
            } else {
                ""
            }
        )
    }
}

/// A row's schedule as the row tools answer it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ScheduleView {
    /// The cron expression, in the server's task time zone.
    pub cron: String,
    pub paused: bool,
    /// Missing titles each run requests.
    pub max_requests: u32,
    /// Further missing titles each run acquires.
    pub max_acquisitions: u32,
    /// Who planned it (its runs' requests are filed for them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planned_by: Option<String>,
    /// When it runs next (RFC 3339), while it is not paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
}

pub(crate) async fn view(ctx: &Ctx, row: &ShortlistRow) -> Result<RowView, ToolError> {
    let theme = ctx.store().theme(row.theme_id).await?;
    let mut audience = Vec::with_capacity(row.audience.len());
    for id in &row.audience {
        if let Some(p) = ctx.store().person(*id).await? {
            audience.push(p.name);
        }
    }
    let schedule = match &row.schedule {
        None => None,
        Some(s) => Some(ScheduleView {
            cron: s.cron.clone(),
            paused: s.paused,
            max_requests: s.max_requests,
            max_acquisitions: s.max_acquisitions,
            planned_by: match s.by {
                Some(by) => ctx.store().person(by).await?.map(|p| p.name),
                None => None,
            },
            next_run: s.next_at.filter(|_| !s.paused).map(crate::tasks::rfc3339),
        }),
    };
    Ok(RowView {
        row_id: row.id,
        theme_id: row.theme_id,
        theme: theme.map(|t| t.name).unwrap_or_default(),
        instance_id: row.instance_id.clone(),
        library_id: row.library_id.clone(),
        name: row.name.clone(),
        audience,
        enabled: row.enabled,
        collection_id: row.collection_id.clone(),
        schedule,
        display: DisplayView::of(&row.display),
    })
}

/// One title of a preview.
#[derive(Clone, Debug, Serialize, serde::Deserialize, JsonSchema)]
pub(crate) struct Shown {
    pub title: String,
    pub year: Option<i32>,
    /// The server's own id, when it has the title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    pub media_source: MediaSource,
    pub media_id: String,
    pub media_type: TitleType,
    /// Why it is left out, for a title the row does not show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a run of a row would do now.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Preview {
    pub row_id: i64,
    pub instance_id: String,
    /// The titles the row shows: the server has them, and the rules and every audience
    /// member's limits allow them.
    pub shown: Vec<Shown>,
    /// Titles of the theme the server does not have.
    pub missing: Vec<Shown>,
    /// Titles the server has that the row leaves out, each with why.
    pub left_out: Vec<Shown>,
    /// Whether a run creates the collection (none made yet, or the one made is gone).
    pub creates_collection: bool,
    /// Items a run adds to the collection, and takes out of it.
    pub to_add: Vec<String>,
    pub to_remove: Vec<String>,
    /// A playlist's owner on the server (read for the run, not answered).
    #[serde(skip)]
    pub user: Option<String>,
}

fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Why `rules` leave `item` out, if they do.
fn ruled_out(rules: &Rules, item: &MediaItem) -> Option<String> {
    if !rules.genres.is_empty() {
        let has = |g: &String| item.genres.iter().any(|i| fold(i) == fold(g));
        if !rules.genres.iter().any(has) {
            return Some(format!("not one of the genres {}", rules.genres.join(", ")));
        }
    }
    let year = item.year;
    if let (Some(from), Some(y)) = (rules.year_from, year)
        && y < from
    {
        return Some(format!("released before {from}"));
    }
    if let (Some(to), Some(y)) = (rules.year_to, year)
        && y > to
    {
        return Some(format!("released after {to}"));
    }
    if rules.missing_only {
        return Some("the theme shows only titles still missing".into());
    }
    None
}

/// The theme's titles: its picks, then up to [`SIMILAR`] titles like `similar_to` (from the
/// catalogue's recommendations), each once.
async fn candidates(ctx: &Ctx, picks: &[Pick], rules: &Rules) -> Result<Vec<Pick>, ToolError> {
    let mut out: Vec<Pick> = picks.to_vec();
    let Some(like) = &rules.similar_to else {
        return Ok(out);
    };
    let (entry, id) = lookup::entry_for(
        ctx,
        Some(like.media_source),
        Some(like.media_id.clone()),
        like.media_type,
        None,
    )?;
    let catalogue = entry.catalogue().await?;
    let page = catalogue
        .recommendations(&id, like.media_type.media_type(), 1)
        .await
        .map_err(|e| crate::discover::render::catalogue_error(e, &entry.id))?;
    for t in page.items.into_iter().take(SIMILAR) {
        let media_type = match t.media_type {
            MediaType::Tv => TitleType::Tv,
            _ => TitleType::Movie,
        };
        let seen = |p: &Pick| p.media_source == t.id.media_source && p.media_id == t.id.media_id;
        if !out.iter().any(seen) {
            out.push(Pick {
                media_source: t.id.media_source,
                media_id: t.id.media_id.clone(),
                media_type,
                title: t.title,
                year: t.year,
            });
        }
    }
    Ok(out)
}

/// Reads what a run of `row` would do, from the server's kept index and (once a collection was
/// made) the collection's items on the server.
pub(crate) async fn preview(
    ctx: &Ctx,
    row: &ShortlistRow,
    theme: &Theme,
) -> Result<Preview, ToolError> {
    let (spec, _) = ctx.instance(KindFamily::MediaServers, Some(&row.instance_id))?;
    let server = servers(ctx).by_id(&spec.id).ok_or_else(|| {
        ToolError::new(
            ErrorCode::NotFound,
            format!("{} is not a media server", spec.id),
        )
    })?;
    let found = server.index.get(&spec.id).await;
    let Some(index) = found.snapshot else {
        let why = found
            .failure
            .unwrap_or_else(|| "its library was never read".into());
        return Err(ToolError::new(
            ErrorCode::BackendUnavailable,
            format!("media server {} could not be read: {why}", spec.id),
        ));
    };
    let theme = theme_view(theme)?;
    let gates = audience_gates(ctx, &row.audience).await?;
    let (mut shown, mut missing, mut left_out) = (Vec::new(), Vec::new(), Vec::new());
    for pick in candidates(ctx, &theme.picks, &theme.rules).await? {
        let kind = match pick.media_type {
            TitleType::Movie => ItemKind::Movie,
            TitleType::Tv => ItemKind::Series,
        };
        // The builtin catalogue's ids are IMDb ids.
        let source = match pick.media_source {
            MediaSource::Builtin => MediaSource::Imdb,
            other => other,
        };
        let id = MediaId::new(source, pick.media_id.clone());
        let item = index
            .lookup(id.media_source, &id.media_id)
            .find(|i| i.kind == kind);
        let mut row = Shown {
            title: pick.title.clone(),
            year: pick.year,
            item_id: item.map(|i| i.id.clone()),
            media_source: pick.media_source,
            media_id: pick.media_id.clone(),
            media_type: pick.media_type,
            reason: None,
        };
        let Some(item) = item else {
            missing.push(row);
            continue;
        };
        row.reason = ruled_out(&theme.rules, item).or_else(|| {
            gates
                .iter()
                .find(|(_, g)| !g.allows(item, None))
                .map(|(name, _)| format!("beyond {name}'s content limits"))
        });
        if row.reason.is_some() {
            left_out.push(row);
        } else {
            shown.push(row);
        }
    }
    order(&mut shown, &row.display.sort);
    let wanted: Vec<String> = shown.iter().filter_map(|s| s.item_id.clone()).collect();
    let client = server
        .client()
        .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e))?;
    let user = super::shelf::owner(ctx, row).await?;
    let current = match &row.collection_id {
        Some(id) => match super::shelf::items(client, user.as_deref(), id).await {
            Ok(items) => Some(items),
            Err(e) if e.is_not_found() => None,
            Err(e) => {
                return Err(ToolError::new(
                    ErrorCode::BackendUnavailable,
                    server.failure(&e),
                ));
            }
        },
        None => None,
    };
    let have: BTreeSet<&String> = current.iter().flatten().collect();
    let to_add = wanted
        .iter()
        .filter(|w| !have.contains(w))
        .cloned()
        .collect();
    let to_remove = current
        .iter()
        .flatten()
        .filter(|c| !wanted.contains(c))
        .cloned()
        .collect();
    Ok(Preview {
        row_id: row.id,
        instance_id: row.instance_id.clone(),
        shown,
        missing,
        left_out,
        creates_collection: current.is_none(),
        to_add,
        to_remove,
        user,
    })
}

/// Orders a row's titles as its display says: `title`, or by release (oldest first, titles
/// without a year last).
fn order(shown: &mut [Shown], sort: &str) {
    if sort == "title" {
        shown.sort_by_cached_key(|s| fold(&s.title));
    } else {
        shown.sort_by_cached_key(|s| (s.year.unwrap_or(i32::MAX), fold(&s.title)));
    }
}

/// The content limits of each audience member who has any, by name.
async fn audience_gates(
    ctx: &Ctx,
    audience: &[PersonId],
) -> Result<Vec<(String, Gate)>, ToolError> {
    let mut out = Vec::new();
    for id in audience {
        if let Some(p) = ctx.store().person(*id).await?
            && let Some(gate) = Gate::for_limits(&p.limits)
        {
            out.push((p.name, gate));
        }
    }
    Ok(out)
}
