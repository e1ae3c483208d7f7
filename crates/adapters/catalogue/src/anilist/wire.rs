//! AniList's GraphQL answers (the `Media` and `Page` types), and their mapping to the model.

use domain::{MediaId, MediaSource, MediaType};
use serde::Deserialize;

use crate::{ReleaseDate, TitleDetails, TitleSummary};

/// `{"data": …, "errors": […]}`.
#[derive(Deserialize)]
pub(crate) struct Answer<T> {
    pub data: Option<T>,
}

#[derive(Deserialize)]
pub(crate) struct One {
    #[serde(rename = "Media")]
    pub media: Option<Media>,
}

#[derive(Deserialize)]
pub(crate) struct Searched {
    #[serde(rename = "Page")]
    pub page: Paged,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Paged {
    pub page_info: Option<PageInfo>,
    #[serde(default)]
    pub media: Vec<Media>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageInfo {
    pub total: Option<u64>,
    pub last_page: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Media {
    pub id: u64,
    pub id_mal: Option<u64>,
    pub format: Option<String>,
    pub title: Option<Titles>,
    pub description: Option<String>,
    pub start_date: Option<FuzzyDate>,
    pub season_year: Option<i32>,
    pub duration: Option<u32>,
    pub country_of_origin: Option<String>,
    #[serde(default)]
    pub genres: Vec<String>,
    pub average_score: Option<u32>,
    pub is_adult: Option<bool>,
    pub cover_image: Option<Cover>,
    pub banner_image: Option<String>,
    pub staff: Option<Staff>,
    pub recommendations: Option<Recommendations>,
}

#[derive(Deserialize)]
pub(crate) struct Titles {
    pub romaji: Option<String>,
    pub english: Option<String>,
    pub native: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct FuzzyDate {
    pub year: Option<i32>,
    pub month: Option<u32>,
    pub day: Option<u32>,
}

#[derive(Deserialize)]
pub(crate) struct Cover {
    pub large: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct Staff {
    #[serde(default)]
    pub edges: Vec<StaffEdge>,
}

#[derive(Deserialize)]
pub(crate) struct StaffEdge {
    pub role: Option<String>,
    pub node: Option<StaffNode>,
}

#[derive(Deserialize)]
pub(crate) struct StaffNode {
    pub name: Option<StaffName>,
}

#[derive(Deserialize)]
pub(crate) struct StaffName {
    pub full: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Recommendations {
    pub page_info: Option<PageInfo>,
    #[serde(default)]
    pub nodes: Vec<RecommendationNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RecommendationNode {
    pub media_recommendation: Option<Media>,
}

/// AniList's description as plain text: `<br>` becomes a line break, other tags go, and the
/// entities AniList uses are decoded.
fn plain(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = &rest[open..];
            break;
        };
        let tag = rest[open + 1..open + close].trim().to_ascii_lowercase();
        if tag.starts_with("br") {
            out.push('\n');
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let out = out
        .replace("&quot;", "\"")
        .replace("&#039;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    lines.join("\n").trim().replace("\n\n\n", "\n\n")
}

impl Media {
    fn media_type(&self) -> MediaType {
        match self.format.as_deref() {
            Some("MOVIE") => MediaType::Movie,
            _ => MediaType::Tv,
        }
    }

    pub fn summary(self) -> TitleSummary {
        let media_type = self.media_type();
        let title = self
            .title
            .as_ref()
            .and_then(|t| t.english.clone().or(t.romaji.clone()).or(t.native.clone()))
            .unwrap_or_default();
        let mut genres = self.genres;
        if self.is_adult == Some(true) && !genres.iter().any(|g| g == "Hentai") {
            genres.push("Hentai".into());
        }
        TitleSummary {
            id: MediaId::new(MediaSource::Anilist, self.id.to_string()),
            media_type,
            title,
            year: self
                .season_year
                .or(self.start_date.as_ref().and_then(|d| d.year)),
            certification: super::unrated(),
            genres,
            overview: self
                .description
                .as_deref()
                .map(plain)
                .filter(|d| !d.is_empty()),
            original_language: None,
            vote_average: self.average_score.map(|s| s as f32 / 10.0),
            vote_count: None,
            poster_url: self.cover_image.and_then(|c| c.large),
            external_ids: self
                .id_mal
                .map(|m| MediaId::new(MediaSource::Myanimelist, m.to_string()))
                .into_iter()
                .collect(),
        }
    }

    pub fn details(mut self) -> TitleDetails {
        let directors: Vec<String> = self
            .staff
            .take()
            .map(|s| s.edges)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.role.as_deref().is_some_and(|r| r.starts_with("Director")))
            .filter_map(|e| e.node?.name?.full)
            .collect();
        let date = self
            .start_date
            .as_ref()
            .and_then(|d| Some(format!("{:04}-{:02}-{:02}", d.year?, d.month?, d.day?)));
        let runtime_minutes = self.duration.filter(|m| *m > 0);
        let countries: Vec<String> = self.country_of_origin.clone().into_iter().collect();
        let backdrop_url = self.banner_image.take();
        let summary = self.summary();
        TitleDetails {
            summary,
            certifications: Vec::new(),
            runtime_minutes,
            cast: Vec::new(),
            directors,
            release_dates: date
                .map(|date| ReleaseDate {
                    region: None,
                    date,
                    kind: Some("first aired".into()),
                })
                .into_iter()
                .collect(),
            languages: Vec::new(),
            countries,
            seasons: None,
            backdrop_url,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_become_plain_text() {
        assert_eq!(
            plain("In 2071, <i>bounty</i> hunters &amp; friends.<br><br>\n(Source: ANN)"),
            "In 2071, bounty hunters & friends.\n\n(Source: ANN)"
        );
        assert_eq!(plain("no tags"), "no tags");
        assert_eq!(plain("a < b"), "a < b");
    }
}
