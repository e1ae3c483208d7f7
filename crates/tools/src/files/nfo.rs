//! Kodi/Jellyfin NFO files as text: `<movie>`, `<tvshow>` and `<episodedetails>` documents
//! from a catalogue record, every value XML-escaped, with a comment that marks the file as
//! Marquee's (so a later scrape may replace it, and never a file someone else wrote).

use adapters_catalogue::{Certification, EpisodeDetails, TitleDetails};

use super::naming::Facts;

/// The comment every NFO file Marquee writes carries.
pub(crate) const MARKER: &str = "<!-- written by Marquee -->";

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";

/// `text` escaped for an XML element or attribute; characters XML 1.0 cannot hold are dropped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

fn element(out: &mut String, name: &str, value: &str) {
    out.push_str(&format!("  <{name}>{}</{name}>\n", escape(value)));
}

/// The title's ids as NFO `uniqueid` types and values, the catalogue's own first.
fn uniqueids(d: &TitleDetails) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for id in std::iter::once(&d.summary.id).chain(&d.summary.external_ids) {
        if let Some(kind) = super::scrape_metadata::uniqueid_type(id.media_source)
            && !out.iter().any(|(k, _)| *k == kind)
        {
            out.push((kind, id.media_id.clone()));
        }
    }
    out
}

/// "tmdb 949, imdb tt0113277", for the owner's review.
pub(crate) fn ids_text(d: &TitleDetails) -> String {
    let ids: Vec<String> = uniqueids(d)
        .into_iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

/// The fields a film and a show share: title, year, plot, genres, certification, ids, art.
fn common(out: &mut String, d: &TitleDetails) {
    let s = &d.summary;
    element(out, "title", &s.title);
    if let Some(y) = s.year {
        element(out, "year", &y.to_string());
    }
    if let Some(plot) = &s.overview {
        element(out, "plot", plot);
    }
    for g in &s.genres {
        element(out, "genre", g);
    }
    if let Certification::Rated { region, rating } = &s.certification {
        let value = if region == "US" {
            rating.clone()
        } else {
            format!("{region}:{rating}")
        };
        element(out, "mpaa", &value);
    }
    if let Some(m) = d.runtime_minutes {
        element(out, "runtime", &m.to_string());
    }
    for (i, (kind, value)) in uniqueids(d).into_iter().enumerate() {
        out.push_str(&format!(
            "  <uniqueid type=\"{kind}\"{}>{}</uniqueid>\n",
            if i == 0 { " default=\"true\"" } else { "" },
            escape(&value)
        ));
    }
    if let Some(poster) = &s.poster_url {
        out.push_str(&format!(
            "  <thumb aspect=\"poster\">{}</thumb>\n",
            escape(poster)
        ));
    }
    if let Some(fanart) = &d.backdrop_url {
        out.push_str(&format!(
            "  <fanart>\n    <thumb>{}</thumb>\n  </fanart>\n",
            escape(fanart)
        ));
    }
}

fn document(root: &str, body: &str) -> String {
    format!("{HEAD}{MARKER}\n<{root}>\n{body}</{root}>\n")
}

/// `movie.nfo`.
pub(crate) fn movie(d: &TitleDetails) -> String {
    let mut body = String::new();
    common(&mut body, d);
    for director in &d.directors {
        element(&mut body, "director", director);
    }
    document("movie", &body)
}

/// `tvshow.nfo`.
pub(crate) fn tvshow(d: &TitleDetails) -> String {
    let mut body = String::new();
    common(&mut body, d);
    document("tvshow", &body)
}

/// One episode's `.nfo`: its title (the catalogue's name for it, else its file name's, else
/// "Episode N"), show, season and episode, and the plot and air date where the catalogue
/// knows them (never invented).
pub(crate) fn episode(show: &TitleDetails, f: &Facts, known: Option<&EpisodeDetails>) -> String {
    let mut body = String::new();
    let title = known
        .and_then(|e| e.name.clone())
        .or_else(|| f.episode_title.clone())
        .unwrap_or_else(|| {
            format!(
                "Episode {}",
                f.episodes.first().copied().unwrap_or_default()
            )
        });
    element(&mut body, "title", &title);
    element(&mut body, "showtitle", &show.summary.title);
    element(
        &mut body,
        "season",
        &f.season.unwrap_or_default().to_string(),
    );
    element(
        &mut body,
        "episode",
        &f.episodes.first().copied().unwrap_or_default().to_string(),
    );
    if let Some(plot) = known.and_then(|e| e.overview.as_deref()) {
        element(&mut body, "plot", plot);
    }
    if let Some(aired) = known.and_then(|e| e.air_date.as_deref()) {
        element(&mut body, "aired", aired);
    }
    document("episodedetails", &body)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use adapters_catalogue::TitleSummary;
    use domain::{MediaId, MediaSource, MediaType};

    use super::*;

    fn details() -> TitleDetails {
        TitleDetails {
            summary: TitleSummary {
                id: MediaId::new(MediaSource::Tmdb, "949"),
                media_type: MediaType::Movie,
                title: "Heat & <Dust> \"Q\"".into(),
                year: Some(1995),
                certification: Certification::Rated {
                    region: "GB".into(),
                    rating: "15".into(),
                },
                genres: vec!["Crime".into(), "Drama".into()],
                overview: Some("Cops & robbers\u{1}.".into()),
                original_language: None,
                vote_average: None,
                vote_count: None,
                poster_url: Some("https://image.example/p.jpg?a=1&b=2".into()),
                external_ids: vec![MediaId::new(MediaSource::Imdb, "tt0113277")],
            },
            certifications: Vec::new(),
            runtime_minutes: Some(170),
            cast: Vec::new(),
            directors: vec!["Michael Mann".into()],
            release_dates: Vec::new(),
            languages: Vec::new(),
            countries: Vec::new(),
            seasons: None,
            backdrop_url: Some("https://image.example/b.jpg".into()),
        }
    }

    #[test]
    fn a_movie_nfo_is_escaped_xml_with_ids_and_art() {
        let text = movie(&details());
        assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\""));
        assert!(text.contains(MARKER));
        assert!(text.contains("<title>Heat &amp; &lt;Dust&gt; &quot;Q&quot;</title>"));
        assert!(text.contains("<plot>Cops &amp; robbers.</plot>"), "{text}");
        assert!(text.contains("<genre>Crime</genre>\n  <genre>Drama</genre>"));
        assert!(text.contains("<mpaa>GB:15</mpaa>"));
        assert!(text.contains("<uniqueid type=\"tmdb\" default=\"true\">949</uniqueid>"));
        assert!(text.contains("<uniqueid type=\"imdb\">tt0113277</uniqueid>"));
        assert!(
            text.contains(
                "<thumb aspect=\"poster\">https://image.example/p.jpg?a=1&amp;b=2</thumb>"
            )
        );
        assert!(
            text.contains("<fanart>\n    <thumb>https://image.example/b.jpg</thumb>\n  </fanart>"),
            "{text}"
        );
        assert!(text.trim_end().ends_with("</movie>"));
        assert_eq!(ids_text(&details()), "tmdb 949, imdb tt0113277");
    }

    #[test]
    fn an_episode_nfo_names_its_show_season_and_episode() {
        let facts = Facts {
            movie: false,
            title: "Heat".into(),
            year: None,
            season: Some(1),
            episodes: vec![2],
            episode_title: Some("The <Detail>".into()),
            screen_size: None,
        };
        let text = episode(&details(), &facts, None);
        assert!(text.contains("<episodedetails>"));
        assert!(text.contains("<title>The &lt;Detail&gt;</title>"));
        assert!(text.contains("<season>1</season>\n  <episode>2</episode>"));
        assert!(
            !text.contains("<plot>") && !text.contains("<aired>"),
            "{text}"
        );
        let known = EpisodeDetails {
            season: 1,
            episode: 2,
            name: Some("Rock & Roll".into()),
            overview: Some("A <bank> job.".into()),
            air_date: Some("1995-12-15".into()),
        };
        let text = episode(&details(), &facts, Some(&known));
        assert!(text.contains("<title>Rock &amp; Roll</title>"), "{text}");
        assert!(text.contains("<plot>A &lt;bank&gt; job.</plot>"), "{text}");
        assert!(text.contains("<aired>1995-12-15</aired>"), "{text}");
        assert!(tvshow(&details()).contains("<tvshow>"));
    }
}
