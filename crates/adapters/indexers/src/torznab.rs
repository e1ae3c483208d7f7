//! Torznab/Newznab: the request parameters of a search, and the three answers a feed gives, read
//! with quick-xml as a stream: an RSS channel of items (`torznab:attr`/`newznab:attr` carry
//! seeders, peers, size, infohash, magneturl, ids), a `caps` document, or an error element
//! (`<error code="100" description="Incorrect user credentials"/>`). Anything else (an HTML
//! page, broken XML, another document) is an unreadable answer, named without its content.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use quick_xml::{
    Reader,
    escape::resolve_predefined_entity,
    events::{BytesStart, Event},
};

use crate::{
    Category, Error, Indexer, Link, Protocol, Query, Release, SearchKind, clean_text,
    looks_like_html,
};

/// The query string of one search (without the key).
pub(crate) fn search_params(q: &Query) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    match (q.kind, &q.imdb, q.tvdb) {
        (SearchKind::Movie, Some(imdb), _) => {
            out.push(("t", "movie".into()));
            out.push(("imdbid", imdb.trim_start_matches("tt").to_string()));
        }
        (SearchKind::Tv, _, Some(tvdb)) => {
            out.push(("t", "tvsearch".into()));
            out.push(("tvdbid", tvdb.to_string()));
        }
        (SearchKind::Movie, None, _) => out.push(("t", "movie".into())),
        (SearchKind::Tv, _, None) => out.push(("t", "tvsearch".into())),
        (SearchKind::Any, _, _) => out.push(("t", "search".into())),
    }
    if q.kind == SearchKind::Tv {
        if let Some(s) = q.season {
            out.push(("season", s.to_string()));
        }
        if let Some(e) = q.episode {
            out.push(("ep", e.to_string()));
        }
    }
    let by_id = q.imdb.is_some() && q.kind == SearchKind::Movie
        || q.tvdb.is_some() && q.kind == SearchKind::Tv;
    if let Some(text) = q.text.as_deref().filter(|t| !t.trim().is_empty())
        && !by_id
    {
        out.push(("q", text.to_string()));
    }
    if q.limit > 0 {
        out.push(("limit", q.limit.to_string()));
    }
    out.push(("extended", "1".into()));
    out
}

/// The query string of one search as the feed's `caps` allow it: the search function it offers
/// for the kind asked (`t=movie`, `t=tvsearch`) with only the parameters it lists (`imdbid`,
/// `tvdbid`, `season`, `ep`); what it cannot take by parameter goes into the free text
/// (the title, "S01E02"), and a kind it does not offer is a plain `t=search`. Without caps the
/// search is asked as [`search_params`] asks it.
pub(crate) fn search_params_for(q: &Query, caps: Option<&Caps>) -> Vec<(&'static str, String)> {
    let Some(caps) = caps else {
        return search_params(q);
    };
    let supports = |params: &[String], p: &str| {
        params.iter().any(|x| x.eq_ignore_ascii_case(p)) || (params.is_empty() && p == "q")
    };
    let mut out = Vec::new();
    let text: Option<String> = q
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let mut by_id = false;
    let mut tail = String::new();
    match q.kind {
        SearchKind::Movie if caps.movie_search => {
            out.push(("t", "movie".into()));
            if let Some(imdb) = &q.imdb
                && supports(&caps.movie_params, "imdbid")
            {
                out.push(("imdbid", imdb.trim_start_matches("tt").to_string()));
                by_id = true;
            }
        }
        SearchKind::Tv if caps.tv_search => {
            out.push(("t", "tvsearch".into()));
            if let Some(tvdb) = q.tvdb
                && supports(&caps.tv_params, "tvdbid")
            {
                out.push(("tvdbid", tvdb.to_string()));
                by_id = true;
            }
            let season = supports(&caps.tv_params, "season");
            let ep = supports(&caps.tv_params, "ep");
            match (q.season, q.episode) {
                (Some(s), Some(e)) if season && ep => {
                    out.push(("season", s.to_string()));
                    out.push(("ep", e.to_string()));
                }
                (Some(s), None) if season => out.push(("season", s.to_string())),
                (Some(s), e) => {
                    tail = format!("S{s:02}");
                    if let Some(e) = e {
                        tail.push_str(&format!("E{e:02}"));
                    }
                }
                (None, _) => {}
            }
        }
        SearchKind::Tv => {
            out.push(("t", "search".into()));
            if let Some(s) = q.season {
                tail = format!("S{s:02}");
                if let Some(e) = q.episode {
                    tail.push_str(&format!("E{e:02}"));
                }
            }
        }
        SearchKind::Movie | SearchKind::Any => out.push(("t", "search".into())),
    }
    let text = match (text, by_id, tail.is_empty()) {
        (_, true, true) => None,
        (_, true, false) | (None, false, false) => Some(tail),
        (Some(t), false, false) => Some(format!("{t} {tail}")),
        (t, false, true) => t,
    };
    if let Some(t) = text {
        out.push(("q", t));
    }
    if q.limit > 0 {
        out.push(("limit", q.limit.to_string()));
    }
    out.push(("extended", "1".into()));
    out
}

/// A feed's capabilities.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Caps {
    pub title: Option<String>,
    pub categories: Vec<Category>,
    /// Whether it offers `t=movie` and `t=tvsearch`, and the parameters each takes.
    pub movie_search: bool,
    pub tv_search: bool,
    pub movie_params: Vec<String>,
    pub tv_params: Vec<String>,
}

impl Caps {
    pub(crate) fn into_indexer(self, name: &str) -> Indexer {
        Indexer {
            id: None,
            name: self.title.unwrap_or_else(|| name.to_string()),
            protocol: Protocol::Torrent,
            enabled: true,
            privacy: None,
            categories: self.categories,
            movie_params: self.movie_params,
            tv_params: self.tv_params,
            disabled_till: None,
            most_recent_failure: None,
        }
    }
}

fn unreadable(detail: impl Into<String>) -> Error {
    Error::decode(detail)
}

/// The text of a body, refused when it is an HTML page.
fn text_of(body: &[u8]) -> Result<Cow<'_, str>, Error> {
    if looks_like_html(body) {
        return Err(unreadable("an HTML page, not a Torznab answer"));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(unreadable("an empty answer"));
    }
    Ok(String::from_utf8_lossy(body))
}

fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.as_ref() == name).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(Cow::into_owned)
                .unwrap_or_else(|_| a.value.into_owned())
        })
    })
}

/// `<error code=".." description=".."/>` as the error it is.
fn feed_error(e: &BytesStart<'_>) -> Error {
    let code = attr(e, "code")
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(900);
    let description = attr(e, "description")
        .map(|d| clean_text(&d).chars().take(200).collect())
        .unwrap_or_else(|| "no description".into());
    Error::Feed { code, description }
}

/// A parse error, named by where it is (quick-xml's own message may quote the document).
fn xml_error(reader: &Reader<&[u8]>, _e: &quick_xml::Error) -> Error {
    unreadable(format!(
        "not well-formed XML (at byte {})",
        reader.error_position()
    ))
}

/// Text collected between a start and its end tag.
#[derive(Default)]
struct Collect {
    /// The element whose text is being read.
    name: Option<String>,
    text: String,
}

impl Collect {
    fn push(&mut self, s: &str) {
        if self.name.is_some() {
            self.text.push_str(s);
        }
    }
}

fn entity(r: &quick_xml::events::BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    let name: &str = r;
    resolve_predefined_entity(name).map_or_else(|| format!("&{name};"), str::to_string)
}

/// One item being read.
#[derive(Default)]
struct Item {
    title: Option<String>,
    guid: Option<String>,
    link: Option<String>,
    size: Option<u64>,
    published: Option<DateTime<Utc>>,
    description: Option<String>,
    categories: Vec<u32>,
    enclosure: Option<(String, Option<String>, Option<u64>)>,
    seeders: Option<u32>,
    peers: Option<u32>,
    grabs: Option<u32>,
    info_hash: Option<String>,
    magnet: Option<String>,
    imdb: Option<String>,
    tvdb: Option<u64>,
    tags: Vec<String>,
    torznab: bool,
    indexer: Option<String>,
}

impl Item {
    fn attribute(&mut self, prefix: &str, name: &str, value: String) {
        if prefix == "torznab" {
            self.torznab = true;
        }
        let number = || value.trim().parse::<u64>().ok();
        match name.to_ascii_lowercase().as_str() {
            "seeders" => self.seeders = number().and_then(|n| u32::try_from(n).ok()),
            "peers" => self.peers = number().and_then(|n| u32::try_from(n).ok()),
            "grabs" => self.grabs = number().and_then(|n| u32::try_from(n).ok()),
            "size" => self.size = number().or(self.size),
            "infohash" => self.info_hash = Some(value.trim().to_string()),
            "magneturl" => self.magnet = Some(value.trim().to_string()),
            "category" => {
                if let Some(c) = number().and_then(|n| u32::try_from(n).ok())
                    && !self.categories.contains(&c)
                {
                    self.categories.push(c);
                }
            }
            "imdb" | "imdbid" => {
                let digits = value.trim().trim_start_matches("tt");
                if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                    self.imdb = Some(format!("tt{digits:0>7}"));
                }
            }
            "tvdbid" => self.tvdb = number().filter(|n| *n > 0),
            "tag" => self.tags.push(value.trim().to_string()),
            "downloadvolumefactor" if value.trim() == "0" => self.tags.push("freeleech".into()),
            _ => {}
        }
    }

    fn text(&mut self, name: &str, text: String) {
        let text = text.trim().to_string();
        match name {
            "title" => self.title = Some(text),
            "guid" => self.guid = Some(text),
            "link" => self.link = Some(text),
            "size" => self.size = text.parse().ok().or(self.size),
            "pubDate" => {
                self.published = DateTime::parse_from_rfc2822(&text)
                    .ok()
                    .map(|d| d.with_timezone(&Utc));
            }
            "description" => self.description = Some(text),
            "category" => {
                if let Ok(c) = text.parse::<u32>()
                    && !self.categories.contains(&c)
                {
                    self.categories.push(c);
                }
            }
            "jackettindexer" | "prowlarrindexer" => self.indexer = Some(text),
            _ => {}
        }
    }

    fn finish(self) -> Option<Release> {
        let title = self.title.filter(|t| !t.is_empty())?;
        let (enclosure_url, enclosure_type, enclosure_len) = match self.enclosure {
            Some((u, t, l)) => (Some(u), t, l),
            None => (None, None, None),
        };
        let kind = enclosure_type.unwrap_or_default().to_ascii_lowercase();
        let download = enclosure_url.or(self.link);
        let magnet = self
            .magnet
            .or_else(|| download.clone().filter(|d| d.starts_with("magnet:")));
        let protocol = if kind.contains("bittorrent") {
            Protocol::Torrent
        } else if kind.contains("nzb") {
            Protocol::Usenet
        } else if self.torznab
            || magnet.is_some()
            || self.seeders.is_some()
            || self.info_hash.is_some()
        {
            Protocol::Torrent
        } else {
            Protocol::Unknown
        };
        let guid = self
            .guid
            .or_else(|| download.clone())
            .unwrap_or_else(|| title.clone());
        Some(Release {
            leechers: match (self.peers, self.seeders) {
                (Some(p), Some(s)) => Some(p.saturating_sub(s)),
                _ => None,
            },
            title,
            guid: Link::new(guid),
            indexer: self.indexer.unwrap_or_default(),
            indexer_id: None,
            size: self.size.or(enclosure_len),
            seeders: self.seeders,
            grabs: self.grabs,
            published: self.published,
            info_hash: self.info_hash.and_then(|h| h.parse().ok()),
            protocol,
            download: download
                .filter(|d| !d.starts_with("magnet:"))
                .map(Link::new),
            magnet: magnet.map(Link::new),
            description: self.description.map(|d| clean_text(&d)),
            categories: self.categories,
            tags: self.tags,
            imdb: self.imdb,
            tvdb: self.tvdb,
        })
    }
}

/// The releases of a search answer (an RSS channel), or the feed's error, or why it is
/// unreadable.
pub fn parse_feed(body: &[u8]) -> Result<Vec<Release>, Error> {
    let text = text_of(body)?;
    let mut reader = Reader::from_str(&text);
    let mut rows = Vec::new();
    let mut item: Option<Item> = None;
    let mut collect = Collect::default();
    let mut root: Option<String> = None;
    let mut depth = 0usize;
    loop {
        let event = reader.read_event().map_err(|e| xml_error(&reader, &e))?;
        match event {
            Event::Eof => {
                if depth > 0 {
                    return Err(cut_short(&reader));
                }
                break;
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                depth += usize::from(!empty);
                let qname = e.name();
                let full: &str = qname.as_ref();
                if root.is_none() {
                    if full == "error" {
                        return Err(feed_error(e));
                    }
                    if full != "rss" {
                        return Err(unreadable(format!(
                            "not a Torznab search answer (its root element is <{}>)",
                            full.chars().take(30).collect::<String>()
                        )));
                    }
                    root = Some(full.to_string());
                    continue;
                }
                if full == "error" {
                    return Err(feed_error(e));
                }
                if full == "item" {
                    item = Some(Item::default());
                    continue;
                }
                let Some(it) = item.as_mut() else { continue };
                let (prefix, local) = full.split_once(':').unwrap_or(("", full));
                match (prefix, local) {
                    ("torznab" | "newznab", "attr") => {
                        if let (Some(n), Some(v)) = (attr(e, "name"), attr(e, "value")) {
                            it.attribute(prefix, &n, v);
                        }
                    }
                    ("", "enclosure") => {
                        if let Some(url) = attr(e, "url") {
                            it.enclosure = Some((
                                url,
                                attr(e, "type"),
                                attr(e, "length").and_then(|l| l.trim().parse().ok()),
                            ));
                        }
                    }
                    _ if !empty => {
                        collect.name = Some(full.to_string());
                        collect.text.clear();
                    }
                    _ => {}
                }
            }
            Event::Text(t) => collect.push(&t.xml10_content()),
            Event::CData(c) => collect.push(&c.xml10_content()),
            Event::GeneralRef(r) => collect.push(&entity(&r)),
            Event::End(e) => {
                depth = depth.saturating_sub(1);
                let qname = e.name();
                let full: &str = qname.as_ref();
                if full == "item" {
                    if let Some(r) = item.take().and_then(Item::finish) {
                        rows.push(r);
                    }
                } else if collect.name.as_deref() == Some(full) {
                    if let Some(it) = item.as_mut() {
                        it.text(full, std::mem::take(&mut collect.text));
                    }
                    collect.name = None;
                }
            }
            _ => {}
        }
    }
    if root.is_none() {
        return Err(unreadable("not a Torznab answer (no XML element)"));
    }
    Ok(rows)
}

/// A document that ends inside an element (an answer cut short).
fn cut_short(reader: &Reader<&[u8]>) -> Error {
    unreadable(format!(
        "not well-formed XML (it ends inside an element, at byte {})",
        reader.buffer_position()
    ))
}

/// A `caps` answer, or the feed's error, or why it is unreadable.
pub fn parse_caps(body: &[u8]) -> Result<Caps, Error> {
    let text = text_of(body)?;
    let mut reader = Reader::from_str(&text);
    let mut caps = Caps::default();
    let mut root = false;
    let mut depth = 0usize;
    loop {
        match reader.read_event().map_err(|e| xml_error(&reader, &e))? {
            Event::Eof => {
                if depth > 0 {
                    return Err(cut_short(&reader));
                }
                break;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Start(e) => {
                depth += 1;
                caps_element(&e, &mut root, &mut caps)?;
            }
            Event::Empty(e) => caps_element(&e, &mut root, &mut caps)?,
            _ => {}
        }
    }
    if !root {
        return Err(unreadable("not a Torznab answer (no XML element)"));
    }
    Ok(caps)
}

/// One element of a caps document: the root checked, what it says kept.
fn caps_element(e: &BytesStart<'_>, root: &mut bool, caps: &mut Caps) -> Result<(), Error> {
    let qname = e.name();
    let name: &str = qname.as_ref();
    if !*root {
        return match name {
            "error" => Err(feed_error(e)),
            "caps" => {
                *root = true;
                Ok(())
            }
            other => Err(unreadable(format!(
                "not a Torznab caps answer (its root element is <{}>)",
                other.chars().take(30).collect::<String>()
            ))),
        };
    }
    match name {
        "server" => caps.title = attr(e, "title"),
        "category" | "subcat" => {
            if let (Some(id), Some(n)) = (
                attr(e, "id").and_then(|i| i.trim().parse().ok()),
                attr(e, "name"),
            ) {
                caps.categories.push(Category { id, name: n });
            }
        }
        "movie-search" | "tv-search" => {
            let available = attr(e, "available").is_some_and(|a| a == "yes");
            let params: Vec<String> = attr(e, "supportedParams")
                .unwrap_or_default()
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            if available {
                if name == "movie-search" {
                    caps.movie_search = true;
                    caps.movie_params = params;
                } else {
                    caps.tv_search = true;
                    caps.tv_params = params;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:torznab="http://torznab.com/schemas/2015/feed">
  <channel>
    <title>Feed</title>
    <item>
      <title>The.Matrix.1999.1080p.BluRay.x264-GRP &amp; friends</title>
      <guid>http://idx/details/1</guid>
      <jackettindexer id="one">One</jackettindexer>
      <comments>http://idx/details/1</comments>
      <pubDate>Sat, 05 Dec 2026 10:00:00 +0000</pubDate>
      <size>1500000000</size>
      <description><![CDATA[A <b>fine</b> copy http://idx/dl?passkey=P4SS]]></description>
      <link>http://idx/dl/1.torrent?apikey=K</link>
      <category>2040</category>
      <enclosure url="http://idx/dl/1.torrent?apikey=K" length="1500000000" type="application/x-bittorrent" />
      <torznab:attr name="category" value="2000" />
      <torznab:attr name="seeders" value="42" />
      <torznab:attr name="peers" value="50" />
      <torznab:attr name="infohash" value="0123456789abcdef0123456789abcdef01234567" />
      <torznab:attr name="imdbid" value="0133093" />
      <torznab:attr name="downloadvolumefactor" value="0" />
    </item>
    <item>
      <title>The.Matrix.1999.720p.WEB-X</title>
      <guid>g2</guid>
      <enclosure url="http://idx/nzb/2" length="900" type="application/x-nzb" />
      <newznab:attr name="size" value="900" />
    </item>
  </channel>
</rss>"#;

    #[test]
    fn a_feed_reads_into_releases() {
        let rows = parse_feed(FEED.as_bytes()).unwrap();
        assert_eq!(rows.len(), 2);
        let r = &rows[0];
        assert_eq!(r.title, "The.Matrix.1999.1080p.BluRay.x264-GRP & friends");
        assert_eq!(r.indexer, "One");
        assert_eq!(r.seeders, Some(42));
        assert_eq!(r.leechers, Some(8));
        assert_eq!(r.size, Some(1_500_000_000));
        assert_eq!(r.protocol, Protocol::Torrent);
        assert_eq!(r.categories, vec![2040, 2000]);
        assert_eq!(r.imdb.as_deref(), Some("tt0133093"));
        assert_eq!(r.tags, vec!["freeleech".to_string()]);
        assert_eq!(
            r.info_hash.unwrap().to_hex(),
            "0123456789abcdef0123456789abcdef01234567"
        );
        assert!(r.published.is_some());
        assert!(!r.description.as_deref().unwrap().contains("P4SS"));
        assert_eq!(rows[1].protocol, Protocol::Usenet);
    }

    #[test]
    fn the_error_element_is_the_feeds_error() {
        let e = parse_feed(
            br#"<?xml version="1.0" encoding="UTF-8"?><error code="100" description="Incorrect user credentials"/>"#,
        )
        .unwrap_err();
        assert!(e.is_credentials());
        assert_eq!(
            e.to_string(),
            "the indexer answered error 100: Incorrect user credentials"
        );
    }

    #[test]
    fn html_and_broken_xml_are_unreadable() {
        let html = parse_feed(b"<!DOCTYPE html><html><body>Login</body></html>").unwrap_err();
        assert!(html.to_string().contains("an HTML page"), "{html}");
        let broken = parse_feed(b"<rss><channel><item><title>x</item></rss>").unwrap_err();
        assert!(
            broken.to_string().contains("not well-formed XML"),
            "{broken}"
        );
        let cut = parse_feed(b"<?xml version=\"1.0\"?><rss><channel><item><title>cut").unwrap_err();
        assert!(cut.to_string().contains("ends inside an element"), "{cut}");
        let other = parse_feed(b"<feed/>").unwrap_err();
        assert!(other.to_string().contains("<feed>"), "{other}");
    }

    #[test]
    fn caps_read() {
        let caps = parse_caps(br#"<?xml version="1.0" encoding="UTF-8"?>
<caps><server version="1.0" title="Jackett"/><limits default="100" max="100"/>
<searching><search available="yes" supportedParams="q"/>
<tv-search available="yes" supportedParams="q,season,ep,tvdbid"/>
<movie-search available="yes" supportedParams="q,imdbid"/></searching>
<categories><category id="2000" name="Movies"><subcat id="2040" name="Movies/HD"/></category></categories></caps>"#).unwrap();
        assert_eq!(caps.title.as_deref(), Some("Jackett"));
        assert_eq!(caps.movie_params, vec!["q", "imdbid"]);
        assert_eq!(caps.tv_params, vec!["q", "season", "ep", "tvdbid"]);
        assert_eq!(caps.categories.len(), 2);
    }

    #[test]
    fn search_params_by_identity() {
        let q = Query {
            kind: SearchKind::Tv,
            tvdb: Some(81189),
            season: Some(2),
            episode: Some(3),
            text: Some("ignored".into()),
            ..Query::default()
        };
        let p = search_params(&q);
        assert!(p.contains(&("t", "tvsearch".into())));
        assert!(p.contains(&("tvdbid", "81189".into())));
        assert!(p.contains(&("ep", "3".into())));
        assert!(!p.iter().any(|(k, _)| *k == "q"));
    }

    fn caps(movie: Option<&str>, tv: Option<&str>) -> Caps {
        let list = |p: &str| p.split(',').map(str::to_string).collect::<Vec<_>>();
        Caps {
            movie_search: movie.is_some(),
            tv_search: tv.is_some(),
            movie_params: movie.map(list).unwrap_or_default(),
            tv_params: tv.map(list).unwrap_or_default(),
            ..Caps::default()
        }
    }

    fn q_of(p: &[(&'static str, String)]) -> Option<String> {
        p.iter().find(|(k, _)| *k == "q").map(|(_, v)| v.clone())
    }

    #[test]
    fn searches_ask_only_what_the_caps_offer() {
        let movie = Query {
            kind: SearchKind::Movie,
            imdb: Some("tt0133093".into()),
            text: Some("The Matrix".into()),
            ..Query::default()
        };
        let p = search_params_for(&movie, Some(&caps(Some("q,imdbid"), None)));
        assert!(p.contains(&("t", "movie".into())));
        assert!(p.contains(&("imdbid", "0133093".into())));
        assert_eq!(q_of(&p), None);
        // A movie search without imdbid: by title.
        let p = search_params_for(&movie, Some(&caps(Some("q"), None)));
        assert!(p.contains(&("t", "movie".into())));
        assert!(!p.iter().any(|(k, _)| *k == "imdbid"));
        assert_eq!(q_of(&p).as_deref(), Some("The Matrix"));
        // No movie search at all: a plain search by title.
        let p = search_params_for(&movie, Some(&caps(None, Some("q"))));
        assert!(p.contains(&("t", "search".into())));
        assert_eq!(q_of(&p).as_deref(), Some("The Matrix"));

        let tv = Query {
            kind: SearchKind::Tv,
            tvdb: Some(81189),
            season: Some(2),
            episode: Some(3),
            text: Some("Breaking Bad".into()),
            ..Query::default()
        };
        let p = search_params_for(&tv, Some(&caps(None, Some("q,season,ep,tvdbid"))));
        assert!(p.contains(&("t", "tvsearch".into())));
        assert!(p.contains(&("tvdbid", "81189".into())));
        assert!(p.contains(&("season", "2".into())) && p.contains(&("ep", "3".into())));
        assert_eq!(q_of(&p), None);
        let p = search_params_for(&tv, Some(&caps(None, Some("q,season,ep"))));
        assert!(!p.iter().any(|(k, _)| *k == "tvdbid"));
        assert!(p.contains(&("season", "2".into())) && p.contains(&("ep", "3".into())));
        assert_eq!(q_of(&p).as_deref(), Some("Breaking Bad"));
        let p = search_params_for(&tv, Some(&caps(None, Some("q,season"))));
        assert!(!p.iter().any(|(k, _)| *k == "season" || *k == "ep"));
        assert_eq!(q_of(&p).as_deref(), Some("Breaking Bad S02E03"));
        let p = search_params_for(&tv, Some(&caps(Some("q"), None)));
        assert!(p.contains(&("t", "search".into())));
        assert_eq!(q_of(&p).as_deref(), Some("Breaking Bad S02E03"));
        // Without caps: asked as the feed is expected to take it.
        assert_eq!(search_params_for(&tv, None), search_params(&tv));
    }
}
