//! Contract fakes of OpenSubtitles (REST API v1) and Bazarr, in the shapes their documents
//! publish. OpenSubtitles: `GET /api/v1/subtitles` (by `imdb_id`, `tmdb_id`, `parent_imdb_id`,
//! `season_number`, `episode_number`, `languages`, `moviehash`, `hearing_impaired`,
//! `foreign_parts_only`), `POST /api/v1/download` (a link, `requests`, `remaining`, the quota's
//! `message` and `reset_time_utc`; 406 when the day's quota is spent), the link itself, and 401
//! `{"message": ...}` for a wrong `Api-Key`. Bazarr: `/api/system/status`, `/api/movies`,
//! `/api/movies/wanted`, `/api/series`, `/api/episodes`, `/api/episodes/wanted`,
//! `/api/providers/movies|episodes` (GET: a search; POST: a download), each behind `X-API-KEY`.
//! Every request is recorded with its body.

use std::{net::SocketAddr, sync::Arc};

use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, Method, StatusCode, Uri},
    response::{IntoResponse, Response},
};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::sync::oneshot;

mod bazarr;

pub use bazarr::{BazarrEpisode, BazarrFake, BazarrMovie, BazarrSeries};

/// One request a fake received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

type Handler = dyn Fn(&Received, &str) -> Response + Send + Sync;

struct Shared {
    log: Mutex<Vec<Received>>,
    base: Mutex<String>,
    answer: Box<Handler>,
}

/// A running fake server.
struct Serving {
    base: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl Serving {
    async fn start(answer: Box<Handler>) -> Serving {
        let shared = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            base: Mutex::new(String::new()),
            answer,
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await;
        });
        let base = format!("http://{addr}");
        *shared.base.lock() = base.clone();
        Serving {
            base,
            shared,
            stop: Some(tx),
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let query = uri.query().map(url_pairs).unwrap_or_default();
    let r = Received {
        method: method.to_string(),
        path: uri.path().to_string(),
        query,
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: body.to_vec(),
    };
    shared.log.lock().push(r.clone());
    let base = shared.base.lock().clone();
    (shared.answer)(&r, &base)
}

/// `a=1&b=x%20y` decoded (`+` is a space).
fn url_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn message(status: StatusCode, text: &str) -> Response {
    (status, axum::Json(json!({ "message": text }))).into_response()
}

/// One subtitle the OpenSubtitles fake holds.
#[derive(Clone, Debug)]
pub struct FakeSubtitle {
    pub file_id: u64,
    pub language: String,
    pub release: String,
    /// The feature: IMDb number (133093), and for an episode its show's and its numbers.
    pub imdb_id: u64,
    pub tmdb_id: Option<u64>,
    pub parent_imdb_id: Option<u64>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    pub title: String,
    pub year: i32,
    pub hearing_impaired: bool,
    pub forced: bool,
    /// The movie hash of the file it was made for.
    pub moviehash: Option<String>,
    pub download_count: u64,
    /// What the download link serves.
    pub content: Vec<u8>,
}

impl FakeSubtitle {
    pub fn movie(
        file_id: u64,
        language: &str,
        imdb_id: u64,
        title: &str,
        year: i32,
        content: &[u8],
    ) -> FakeSubtitle {
        FakeSubtitle {
            file_id,
            language: language.into(),
            release: format!("{}.{year}.1080p.BluRay.x264-GRP", title.replace(' ', ".")),
            imdb_id,
            tmdb_id: None,
            parent_imdb_id: None,
            season: None,
            episode: None,
            title: title.into(),
            year,
            hearing_impaired: false,
            forced: false,
            moviehash: None,
            download_count: 1000 + file_id,
            content: content.to_vec(),
        }
    }
}

/// How the OpenSubtitles fake answers downloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaMode {
    Available,
    /// The day's quota is spent: `/download` answers 406.
    Exhausted,
}

struct OsState {
    key: String,
    subtitles: Vec<FakeSubtitle>,
    quota: Mutex<QuotaMode>,
    downloads: Mutex<u32>,
    /// Rows per page of a search answer (the service's is 60).
    per_page: Mutex<usize>,
}

/// A running OpenSubtitles fake. Dropping it stops the server.
pub struct OpenSubtitlesFake {
    serving: Serving,
    state: Arc<OsState>,
}

impl OpenSubtitlesFake {
    pub const API_KEY: &'static str = "fake-opensubtitles-key-7d1e0c55";
    /// The day's allowance of a free account.
    pub const DAILY: u32 = 20;

    pub async fn start(subtitles: Vec<FakeSubtitle>) -> OpenSubtitlesFake {
        let state = Arc::new(OsState {
            key: OpenSubtitlesFake::API_KEY.into(),
            subtitles,
            quota: Mutex::new(QuotaMode::Available),
            downloads: Mutex::new(0),
            per_page: Mutex::new(60),
        });
        let s = state.clone();
        let serving = Serving::start(Box::new(move |r, base| os_answer(&s, r, base))).await;
        OpenSubtitlesFake { serving, state }
    }

    /// The API's base, as an instance's `url` names it.
    pub fn url(&self) -> String {
        format!("{}/api/v1", self.serving.base)
    }

    /// Rows per page of a search answer; `page=` picks the page, as on the service.
    pub fn set_per_page(&self, n: usize) {
        *self.state.per_page.lock() = n.max(1);
    }

    pub fn set_quota(&self, mode: QuotaMode) {
        *self.state.quota.lock() = mode;
    }

    pub fn requests(&self) -> Vec<Received> {
        self.serving.shared.log.lock().clone()
    }
}

fn os_answer(s: &OsState, r: &Received, base: &str) -> Response {
    if let Some(token) = r.path.strip_prefix("/download/") {
        // The link /download handed out: no key needed, as on the real service.
        let id: u64 = token.split('/').next().unwrap_or("").parse().unwrap_or(0);
        return match s.subtitles.iter().find(|x| x.file_id == id) {
            Some(x) => (
                StatusCode::OK,
                [("content-type", "application/x-subrip")],
                x.content.clone(),
            )
                .into_response(),
            None => message(StatusCode::NOT_FOUND, "Not found"),
        };
    }
    if r.header("api-key") != Some(s.key.as_str()) {
        return message(StatusCode::UNAUTHORIZED, "You cannot consume this service");
    }
    if r.header("user-agent").is_none_or(str::is_empty) {
        return message(StatusCode::FORBIDDEN, "Please provide a User-Agent");
    }
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/api/v1/subtitles") => os_search(s, r),
        ("POST", "/api/v1/download") => {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let Some(id) = body["file_id"].as_u64() else {
                return message(StatusCode::BAD_REQUEST, "file_id is required");
            };
            let reset = "2026-12-07T04:00:00.000Z";
            let mut n = s.downloads.lock();
            if *s.quota.lock() == QuotaMode::Exhausted || *n >= OpenSubtitlesFake::DAILY {
                return (
                    StatusCode::NOT_ACCEPTABLE,
                    axum::Json(json!({
                        "requests": OpenSubtitlesFake::DAILY + 1,
                        "remaining": 0,
                        "message": "You have downloaded your allowed 20 subtitles for 24h.Your quota will be renewed in 07 hours and 29 minutes (2026-12-07 04:00:00 UTC) ts=1765080000",
                        "reset_time": "07 hours and 29 minutes",
                        "reset_time_utc": reset,
                    })),
                )
                    .into_response();
            }
            let Some(x) = s.subtitles.iter().find(|x| x.file_id == id) else {
                return message(StatusCode::NOT_FOUND, "Invalid file_id");
            };
            *n += 1;
            let name = format!("{}.srt", x.release);
            axum::Json(json!({
                "link": format!("{base}/download/{id}/{}/{name}", "a1b2c3d4e5"),
                "file_name": name,
                "requests": *n,
                "remaining": OpenSubtitlesFake::DAILY - *n,
                "message": "Your quota will be renewed in 07 hours and 29 minutes (2026-12-07 04:00:00 UTC) ",
                "reset_time": "07 hours and 29 minutes",
                "reset_time_utc": reset,
            }))
            .into_response()
        }
        _ => message(StatusCode::NOT_FOUND, "Not found"),
    }
}

fn os_search(s: &OsState, r: &Received) -> Response {
    let num = |k: &str| r.param(k).and_then(|v| v.parse::<u64>().ok());
    let langs: Option<Vec<String>> = r.param("languages").map(|l| {
        l.split(',')
            .map(|x| x.trim().to_ascii_lowercase())
            .collect()
    });
    let hash = r.param("moviehash").map(str::to_ascii_lowercase);
    let tri = |k: &str, v: bool| match r.param(k).unwrap_or("include") {
        "only" => v,
        "exclude" => !v,
        _ => true,
    };
    let data: Vec<Value> = s
        .subtitles
        .iter()
        .filter(|x| {
            num("imdb_id").is_none_or(|n| n == x.imdb_id)
                && num("tmdb_id").is_none_or(|n| Some(n) == x.tmdb_id)
                && num("parent_imdb_id").is_none_or(|n| Some(n) == x.parent_imdb_id)
                && num("season_number").is_none_or(|n| Some(n) == x.season.map(u64::from))
                && num("episode_number").is_none_or(|n| Some(n) == x.episode.map(u64::from))
                && langs.as_ref().is_none_or(|l| l.contains(&x.language.to_ascii_lowercase()))
                && tri("hearing_impaired", x.hearing_impaired)
                && tri("foreign_parts_only", x.forced)
                && r.param("query").is_none_or(|q| x.title.to_lowercase().contains(&q.to_lowercase()))
                // With only a hash, only what was made for that file.
                && (hash.is_none()
                    || num("imdb_id").is_some()
                    || num("tmdb_id").is_some()
                    || r.param("query").is_some()
                    || x.moviehash == hash)
        })
        .map(|x| {
            let matched = hash.is_some() && x.moviehash == hash;
            json!({
                "id": x.file_id.to_string(),
                "type": "subtitle",
                "attributes": {
                    "subtitle_id": (x.file_id + 7_000_000).to_string(),
                    "language": x.language,
                    "download_count": x.download_count,
                    "new_download_count": 12,
                    "hearing_impaired": x.hearing_impaired,
                    "hd": true,
                    "fps": 23.976,
                    "votes": 3,
                    "ratings": 8.0,
                    "from_trusted": true,
                    "foreign_parts_only": x.forced,
                    "upload_date": "2021-03-04T05:06:07Z",
                    "ai_translated": false,
                    "machine_translated": false,
                    "release": x.release,
                    "comments": "",
                    "legacy_subtitle_id": x.file_id + 1_000,
                    "uploader": { "uploader_id": 66, "name": "subber", "rank": "trusted" },
                    "feature_details": {
                        "feature_id": 500 + x.imdb_id % 100,
                        "feature_type": if x.season.is_some() { "Episode" } else { "Movie" },
                        "year": x.year,
                        "title": x.title,
                        "movie_name": format!("{} - {}", x.year, x.title),
                        "imdb_id": x.imdb_id,
                        "tmdb_id": x.tmdb_id,
                        "season_number": x.season,
                        "episode_number": x.episode,
                        "parent_imdb_id": x.parent_imdb_id,
                    },
                    "url": format!("https://www.opensubtitles.com/en/subtitles/legacy/{}", x.file_id),
                    "related_links": [],
                    "files": [{ "file_id": x.file_id, "cd_number": 1, "file_name": format!("{}.srt", x.release) }],
                    "moviehash_match": matched,
                }
            })
        })
        .collect();
    let per_page = *s.per_page.lock();
    let total = data.len();
    let total_pages = total.div_ceil(per_page).max(1);
    let page = num("page").map_or(1, |p| p.max(1) as usize);
    let data: Vec<Value> = data
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    axum::Json(json!({
        "total_pages": total_pages,
        "total_count": total,
        "per_page": per_page,
        "page": page,
        "data": data,
    }))
    .into_response()
}
