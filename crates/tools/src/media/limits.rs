//! A limited person's gate on media-server items: the item's own rating (an episode takes its
//! show's when it has none) against the person's cap for movies or TV, on the region's ladder
//! (a rating from another country's ladder measured by the age it admits, `ladders.rs`), and
//! blocked genres. Fails closed: a rating no ladder here knows, or a region without a ladder
//! here, hides a title under a cap. Owners and admins are never filtered.

use adapters_media::{ItemKind, MediaItem};
use domain::MediaType;
use governance::Ctx;
use store::ContentLimits;

use super::ladders;
use crate::discover::ratings::is_unrated_label;

/// The caller's gate, when their answers are filtered.
pub(crate) struct Gate {
    limits: ContentLimits,
    region: String,
    blocked: Vec<String>,
}

/// Lower-case letters and digits only: "Sci-Fi" and "sci fi" compare equal.
fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl Gate {
    pub(crate) fn for_caller(ctx: &Ctx) -> Option<Gate> {
        if !ctx.caller.scope.content_limited {
            return None;
        }
        Some(Gate::of(ctx.caller.authority.person.limits.clone()))
    }

    /// The gate of another person's limits (a row's audience), `None` when they have none.
    pub(crate) fn for_limits(limits: &ContentLimits) -> Option<Gate> {
        (!limits.is_unlimited()).then(|| Gate::of(limits.clone()))
    }

    fn of(limits: ContentLimits) -> Gate {
        let region = limits
            .rating_region
            .as_deref()
            .map(|r| r.trim().to_ascii_uppercase())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "US".into());
        Gate {
            blocked: limits.blocked_genres.iter().map(|g| fold(g)).collect(),
            limits,
            region,
        }
    }

    /// Whether the person may see `item`; `show` is the episode's show, when known.
    pub(crate) fn allows(&self, item: &MediaItem, show: Option<&MediaItem>) -> bool {
        let genres = item
            .genres
            .iter()
            .chain(show.into_iter().flat_map(|s| &s.genres));
        if genres.map(|g| fold(g)).any(|g| {
            self.blocked
                .iter()
                .any(|b| !b.is_empty() && g.contains(b.as_str()))
        }) {
            return false;
        }
        let media_type = match item.kind {
            ItemKind::Movie => MediaType::Movie,
            ItemKind::Series | ItemKind::Episode => MediaType::Tv,
        };
        let rating = item
            .rating
            .as_deref()
            .or_else(|| show.and_then(|s| s.rating.as_deref()))
            .filter(|r| !is_unrated_label(r));
        let cap = match media_type {
            MediaType::Movie => self.limits.max_movie_cert.as_deref(),
            _ => self.limits.max_tv_rating.as_deref(),
        };
        let Some(rating) = rating else {
            return !self.limits.block_unrated;
        };
        let Some(cap) = cap else {
            return true;
        };
        match (
            ladders::place(rating, media_type, &self.region),
            ladders::place_cap(cap, media_type, &self.region),
        ) {
            (Some(r), Some(max)) => ladders::within(r, max),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use adapters_media::ProviderIds;

    use super::*;

    fn item(kind: ItemKind, rating: Option<&str>, genres: &[&str]) -> MediaItem {
        MediaItem {
            id: "1".into(),
            kind,
            title: "t".into(),
            year: None,
            series_id: None,
            series_title: None,
            season: None,
            episode: None,
            ids: ProviderIds::default(),
            rating: rating.map(Into::into),
            genres: genres.iter().map(|g| g.to_string()).collect(),
            added_at: None,
            runtime_seconds: None,
        }
    }

    fn gate(limits: ContentLimits) -> Gate {
        gate_in(limits, "US")
    }

    fn gate_in(limits: ContentLimits, region: &str) -> Gate {
        Gate {
            blocked: limits.blocked_genres.iter().map(|g| fold(g)).collect(),
            limits,
            region: region.into(),
        }
    }

    #[test]
    fn a_british_household_caps_items_rated_in_any_country() {
        let g = gate_in(
            ContentLimits {
                max_movie_cert: Some("12A".into()),
                max_tv_rating: Some("PG".into()),
                ..ContentLimits::default()
            },
            "GB",
        );
        assert!(g.allows(&item(ItemKind::Movie, Some("12A"), &[]), None));
        assert!(g.allows(&item(ItemKind::Movie, Some("DE-12"), &[]), None));
        assert!(g.allows(&item(ItemKind::Movie, Some("PG"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("gb/15"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("FSK 16"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("PG-13"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("X-99"), &[]), None));
        assert!(g.allows(&item(ItemKind::Series, Some("TV-Y7"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Series, Some("TV-14"), &[]), None));
        // A region with no ladder here hides everything under a cap.
        let jp = gate_in(
            ContentLimits {
                max_movie_cert: Some("G".into()),
                ..ContentLimits::default()
            },
            "JP",
        );
        assert!(!jp.allows(&item(ItemKind::Movie, Some("G"), &[]), None));
    }

    #[test]
    fn a_cap_hides_stricter_and_unknown_ratings_and_an_episode_takes_its_shows() {
        let g = gate(ContentLimits {
            max_movie_cert: Some("PG".into()),
            max_tv_rating: Some("TV-Y7".into()),
            blocked_genres: vec!["Horror".into()],
            ..ContentLimits::default()
        });
        assert!(g.allows(&item(ItemKind::Movie, Some("PG"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("R"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("X-99"), &[]), None));
        assert!(!g.allows(&item(ItemKind::Movie, Some("G"), &["Horror"]), None));
        let show = item(ItemKind::Series, Some("TV-MA"), &[]);
        assert!(!g.allows(&item(ItemKind::Episode, None, &[]), Some(&show)));
        assert!(g.allows(&item(ItemKind::Episode, Some("TV-Y"), &[]), None));
    }
}
