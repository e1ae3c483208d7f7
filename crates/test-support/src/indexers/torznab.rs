//! A contract fake of a Torznab feed in Jackett's shapes: `GET /torznab/api?t=caps`,
//! `t=search&q=`, `t=movie&imdbid=`, `t=tvsearch&tvdbid=&season=&ep=`, the key as `apikey=`
//! (a wrong one answers `<error code="100" description="Incorrect user credentials"/>`, with
//! HTTP 200 as Jackett does), RSS items with `torznab:attr` seeders, peers, size, infohash,
//! magneturl and imdb; and `GET /dl/{n}.torrent` handing out a release's .torrent (or a redirect
//! to its magnet, or to another host). [`FeedMode`] makes it answer badly.

use std::{sync::Arc, time::Duration};

use axum::{
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use chrono::Utc;
use parking_lot::Mutex;

use super::{FakeRelease, Served};
use crate::RecordedRequest;

/// How the feed answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedMode {
    Up,
    /// Every answer after this long.
    Slow(Duration),
    /// An HTML login page, HTTP 200.
    Html,
    /// Broken XML, HTTP 200.
    BrokenXml,
    /// HTTP 401 with no body.
    Unauthorized,
    /// The error element for a wrong key, whatever key was sent.
    WrongKey,
}

struct State {
    key: String,
    title: String,
    base: Mutex<String>,
    mode: Mutex<FeedMode>,
    releases: Mutex<Vec<FakeRelease>>,
    /// Where `/dl/...` redirects instead of answering, when set.
    redirect: Mutex<Option<String>>,
    /// The `supportedParams` of movie-search and tv-search in the caps; `None`: not available
    /// (then `t=movie` or `t=tvsearch` is answered with error 202, as Jackett does).
    searching: Mutex<(Option<String>, Option<String>)>,
}

/// A running Torznab feed fake. Dropping it stops the server.
pub struct TorznabFake {
    served: Served,
    state: Arc<State>,
}

impl TorznabFake {
    pub const API_KEY: &'static str = "fake-torznab-key-77d1e0aa";
    /// The tracker passkey inside its download links.
    pub const PASSKEY: &'static str = "FEEDPASSKEY0123";

    pub async fn start(title: &str, releases: Vec<FakeRelease>) -> TorznabFake {
        let state = Arc::new(State {
            key: TorznabFake::API_KEY.into(),
            title: title.into(),
            base: Mutex::new(String::new()),
            mode: Mutex::new(FeedMode::Up),
            releases: Mutex::new(releases),
            redirect: Mutex::new(None),
            searching: Mutex::new((Some("q,imdbid".into()), Some("q,season,ep,tvdbid".into()))),
        });
        let s = state.clone();
        let served = Served::start(Box::new(move |r| {
            let s = s.clone();
            Box::pin(async move { answer(&s, r).await })
        }))
        .await;
        *state.base.lock() = served.base.clone();
        TorznabFake { served, state }
    }

    /// The feed's API endpoint, as an instance's `url`.
    pub fn url(&self) -> String {
        format!("{}/torznab/api", self.served.base)
    }

    pub fn set_mode(&self, mode: FeedMode) {
        *self.state.mode.lock() = mode;
    }

    /// What the caps say the movie and tv searches take (`"q,imdbid"`), or that one is not
    /// offered (`None`). A parameter left out of the caps is ignored when sent.
    pub fn set_searching(&self, movie: Option<&str>, tv: Option<&str>) {
        *self.state.searching.lock() = (movie.map(str::to_string), tv.map(str::to_string));
    }

    /// Makes every download link redirect to `to`.
    pub fn redirect_downloads(&self, to: &str) {
        *self.state.redirect.lock() = Some(to.into());
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.served.requests()
    }

    /// Requests to the download links.
    pub fn downloads(&self) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.path.starts_with("/dl/"))
            .count()
    }
}

fn xml(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/rss+xml; charset=utf-8")],
        body,
    )
        .into_response()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn answer(state: &State, r: RecordedRequest) -> Response {
    let mode = state.mode.lock().clone();
    if let FeedMode::Slow(d) = mode {
        tokio::time::sleep(d).await;
    }
    match mode {
        FeedMode::Html => {
            return (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "text/html")],
                "<!DOCTYPE html><html><head><title>Login</title></head><body>Please log in</body></html>",
            )
                .into_response();
        }
        FeedMode::BrokenXml => {
            return xml("<?xml version=\"1.0\"?><rss><channel><item><title>cut".into());
        }
        FeedMode::Unauthorized => return StatusCode::UNAUTHORIZED.into_response(),
        _ => {}
    }
    if let Some(file) = r.path.strip_prefix("/dl/") {
        return download(state, file, &r);
    }
    if r.path != "/torznab/api" {
        return StatusCode::NOT_FOUND.into_response();
    }
    if mode == FeedMode::WrongKey || r.param("apikey") != Some(&state.key) {
        return xml(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<error code=\"100\" description=\"Incorrect user credentials\" />".into(),
        );
    }
    let searching = state.searching.lock().clone();
    match r.param("t") {
        Some("caps") => xml(caps(&state.title, &searching)),
        Some("movie") if searching.0.is_none() => no_such_function(),
        Some("tvsearch") if searching.1.is_none() => no_such_function(),
        Some("search" | "movie" | "tvsearch") => xml(feed(state, &r, &searching)),
        _ => xml(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<error code=\"202\" description=\"No such function\" />".into(),
        ),
    }
}

fn no_such_function() -> Response {
    xml(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<error code=\"202\" description=\"No such function\" />".into(),
    )
}

fn caps(title: &str, searching: &(Option<String>, Option<String>)) -> String {
    let search = |s: &Option<String>| match s {
        Some(p) => format!("available=\"yes\" supportedParams=\"{}\"", escape(p)),
        None => "available=\"no\" supportedParams=\"q\"".to_string(),
    };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<caps>
  <server version="1.0" title="{}" />
  <limits default="100" max="100" />
  <searching>
    <search available="yes" supportedParams="q" />
    <tv-search {} />
    <movie-search {} />
    <music-search available="no" supportedParams="q" />
    <audio-search available="no" supportedParams="q" />
    <book-search available="no" supportedParams="q" />
  </searching>
  <categories>
    <category id="2000" name="Movies">
      <subcat id="2040" name="Movies/HD" />
      <subcat id="2045" name="Movies/UHD" />
    </category>
    <category id="5000" name="TV">
      <subcat id="5040" name="TV/HD" />
    </category>
  </categories>
</caps>"#,
        escape(title),
        search(&searching.1),
        search(&searching.0),
    )
}

fn feed(
    state: &State,
    r: &RecordedRequest,
    searching: &(Option<String>, Option<String>),
) -> String {
    // A parameter the caps do not list for this function is ignored, as feeds do.
    let takes = |name: &str| match r.param("t") {
        Some("movie") => searching
            .0
            .as_deref()
            .is_some_and(|p| p.split(',').any(|x| x == name)),
        Some("tvsearch") => searching
            .1
            .as_deref()
            .is_some_and(|p| p.split(',').any(|x| x == name)),
        _ => false,
    };
    let q = r.param("q").filter(|q| !q.trim().is_empty());
    let imdb = r.param("imdbid").filter(|_| takes("imdbid"));
    let tvdb = r
        .param("tvdbid")
        .filter(|_| takes("tvdbid"))
        .and_then(|t| t.parse().ok());
    let season = r
        .param("season")
        .filter(|_| takes("season"))
        .and_then(|t| t.parse().ok());
    let episode = r
        .param("ep")
        .filter(|_| takes("ep"))
        .and_then(|t| t.parse().ok());
    let base = state.base.lock().clone();
    let now = Utc::now();
    let mut items = String::new();
    for (n, rel) in state.releases.lock().iter().enumerate() {
        if !rel.answers(q, imdb, tvdb, season, episode) {
            continue;
        }
        let link = format!(
            "{base}/dl/{n}.torrent?apikey={}&amp;passkey={}",
            state.key,
            TorznabFake::PASSKEY
        );
        let published = (now - chrono::Duration::days(rel.age_days)).to_rfc2822();
        let mut attrs = String::new();
        if rel.usenet {
            attrs.push_str(&format!(
                "      <newznab:attr name=\"size\" value=\"{}\" />\n",
                rel.size
            ));
        } else {
            attrs.push_str(&format!(
                "      <torznab:attr name=\"seeders\" value=\"{}\" />\n      <torznab:attr name=\"peers\" value=\"{}\" />\n      <torznab:attr name=\"downloadvolumefactor\" value=\"1\" />\n      <torznab:attr name=\"uploadvolumefactor\" value=\"1\" />\n",
                rel.seeders, rel.peers
            ));
            if let Some(h) = &rel.info_hash {
                attrs.push_str(&format!(
                    "      <torznab:attr name=\"infohash\" value=\"{h}\" />\n"
                ));
            }
            if let Some(m) = &rel.magnet {
                attrs.push_str(&format!(
                    "      <torznab:attr name=\"magneturl\" value=\"{}\" />\n",
                    escape(m)
                ));
            }
        }
        if let Some(i) = &rel.imdb {
            attrs.push_str(&format!(
                "      <torznab:attr name=\"imdb\" value=\"{}\" />\n",
                i.trim_start_matches("tt")
            ));
        }
        if let Some(t) = rel.tvdb {
            attrs.push_str(&format!(
                "      <torznab:attr name=\"tvdbid\" value=\"{t}\" />\n"
            ));
        }
        let kind = if rel.usenet {
            "application/x-nzb"
        } else {
            "application/x-bittorrent"
        };
        items.push_str(&format!(
            r#"    <item>
      <title>{title}</title>
      <guid>{base}/details/{n}?passkey={pass}</guid>
      <jackettindexer id="fake">{indexer}</jackettindexer>
      <type>private</type>
      <comments>{base}/details/{n}</comments>
      <pubDate>{published}</pubDate>
      <size>{size}</size>
      <description>{description}</description>
      <link>{link}</link>
      <category>2000</category>
      <category>2040</category>
      <enclosure url="{link}" length="{size}" type="{kind}" />
      <torznab:attr name="category" value="2000" />
{attrs}    </item>
"#,
            title = escape(&rel.title),
            pass = TorznabFake::PASSKEY,
            indexer = escape(&state.title),
            size = rel.size,
            description = escape(rel.description.as_deref().unwrap_or("")),
        ));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:torznab="http://torznab.com/schemas/2015/feed">
  <channel>
    <atom:link href="{base}/torznab/api" rel="self" type="application/rss+xml" />
    <title>{title}</title>
    <description>{title} feed</description>
    <link>{base}/</link>
    <language>en-US</language>
    <category>search</category>
{items}  </channel>
</rss>"#,
        title = escape(&state.title)
    )
}

fn download(state: &State, file: &str, r: &RecordedRequest) -> Response {
    if r.param("apikey") != Some(&state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if let Some(to) = state.redirect.lock().clone() {
        return (StatusCode::FOUND, [(header::LOCATION, to)]).into_response();
    }
    let n: usize = file
        .trim_end_matches(".torrent")
        .parse()
        .unwrap_or(usize::MAX);
    let Some(rel) = state.releases.lock().get(n).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match (rel.torrent, rel.magnet) {
        (Some(bytes), _) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/x-bittorrent")],
            bytes,
        )
            .into_response(),
        (None, Some(m)) => (StatusCode::FOUND, [(header::LOCATION, m)]).into_response(),
        (None, None) => StatusCode::NOT_FOUND.into_response(),
    }
}
