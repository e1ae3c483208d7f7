//! The shared core against a small hand-written server: the key goes in the header, redirects
//! are not followed, errors name method and path but never the query string, key or body, and a
//! queue page short of its total is an error.

#![allow(clippy::unwrap_used)]

use adapters_library::{Error, LibraryClient, Service};
use axum::{
    Router,
    http::{HeaderMap, StatusCode, header},
    response::IntoResponse,
    routing::get,
};
use domain::Secret;
use serde_json::json;

const KEY: &str = "k3y-never-shown-0a1b";

async fn serve(router: Router) -> url::Url {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/").parse().unwrap()
}

fn keyed(headers: &HeaderMap) -> bool {
    headers.get("x-api-key").and_then(|v| v.to_str().ok()) == Some(KEY)
}

async fn client(router: Router) -> LibraryClient {
    LibraryClient::new(Service::Radarr, serve(router).await, Secret::new(KEY)).unwrap()
}

#[tokio::test]
async fn a_redirect_is_not_followed_and_the_error_names_only_method_and_path() {
    let router = Router::new()
        .route(
            "/api/v3/health",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [(header::LOCATION, "http://elsewhere.invalid/steal")],
                )
            }),
        )
        .route("/steal", get(|| async { "followed" }));
    let e = client(router).await.health().await.unwrap_err();
    let text = e.to_string();
    assert_eq!(
        text,
        "GET /api/v3/health: the service answered HTTP 302: its body is not passed on"
    );
}

#[tokio::test]
async fn a_refusal_hides_the_key_the_query_and_the_upstream_body() {
    let router = Router::new().route(
        "/api/v3/movie/lookup/imdb",
        get(|| async {
            (
                StatusCode::BAD_REQUEST,
                format!("bad key {KEY} for imdbId=tt1"),
            )
                .into_response()
        }),
    );
    let media = adapters_library::MediaRef {
        source: domain::MediaSource::Imdb,
        id: "tt1".into(),
        media_type: domain::MediaType::Movie,
    };
    let e = client(router).await.find(&media).await.unwrap_err();
    let text = e.to_string();
    assert!(
        !text.contains(KEY) && !text.contains("tt1") && !text.contains("bad key"),
        "{text}"
    );
    assert!(
        text.starts_with("GET /api/v3/movie/lookup/imdb: the service answered HTTP 400"),
        "{text}"
    );
}

#[tokio::test]
async fn the_key_travels_in_the_header_and_a_short_queue_page_is_incomplete() {
    let router = Router::new().route(
        "/api/v3/queue",
        get(|headers: HeaderMap| async move {
            if !keyed(&headers) {
                return (StatusCode::UNAUTHORIZED, axum::Json(json!({}))).into_response();
            }
            axum::Json(json!({"page": 1, "pageSize": 1000, "totalRecords": 3,
                "records": [{"id": 1, "title": "a", "status": "downloading", "size": 10.0, "sizeleft": 5.0}]}))
            .into_response()
        }),
    );
    let e = client(router).await.queue().await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Incomplete {
                total: 3,
                read: 1,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the queue could not be read completely: the service reported 3 records but answered 1"
    );
}

#[tokio::test]
async fn a_wrong_key_is_unauthorized() {
    let router = Router::new().route(
        "/api/v3/diskspace",
        get(|| async { StatusCode::UNAUTHORIZED }),
    );
    let e = client(router).await.disk_space().await.unwrap_err();
    assert!(e.is_unauthorized(), "{e}");
}
