//! Asking the person back, through the real MCP endpoint: `request_media` for a show without
//! seasons and for a title several films share asks with legacy-era elicitation on the call's
//! own SSE stream, or with a 2026-07-28 `input_required` result the client answers on a retry.
//! Answers outside the choices are refused, declining does nothing, a client that cannot answer
//! gets the choices in a `choice_needed` error, a kid is offered only what their limits allow,
//! and an answer is never an approval.

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::{InstanceKind, Role};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use store::{ContentLimits, RequestQuery};
use test_support::TmdbFake;
use tower::ServiceExt;

use crate::support::{
    self, Server, builtin, instance, modern, outcome, post, server_with_instances,
};

async fn server() -> (Server, TmdbFake) {
    let fake = TmdbFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tmdb",
            InstanceKind::Tmdb,
            Some(fake.base_url()),
            Some(TmdbFake::API_KEY),
        ),
    ])
    .await;
    (s, fake)
}

fn show() -> Value {
    json!({"media_source": "tmdb", "media_id": "1399", "media_type": "tv"})
}

fn beauty() -> Value {
    json!({"title": "Beauty and the Beast", "media_type": "movie"})
}

async fn requests(s: &Server) -> Vec<store::MediaRequest> {
    s.host
        .app
        .store()
        .requests_page(&RequestQuery {
            limit: 50,
            ..RequestQuery::default()
        })
        .await
        .unwrap()
}

/// A legacy client that declared elicitation in `initialize`.
async fn initialize(s: &Server, key: &str, capabilities: Value) {
    let (status, body) = s
        .rpc(
            key,
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
                "protocolVersion":"2025-11-25","capabilities":capabilities,
                "clientInfo":{"name":"t","version":"1"}}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

/// A legacy `tools/call` answered as an SSE stream: the first message the server sends
/// (its question), and the rest of the stream to read once the question is answered.
async fn ask_call(s: &Server, key: &str, arguments: Value) -> (Value, Body) {
    let req = post("/mcp")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::ACCEPT, "application/json, text/event-stream")
        .body(Body::from(
            json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{
                "name":"request_media","arguments":arguments}})
            .to_string(),
        ))
        .unwrap();
    let resp = s.router.clone().oneshot(req).await.unwrap();
    assert_eq!(
        resp.headers()[header::CONTENT_TYPE],
        "text/event-stream",
        "an asking tool streams"
    );
    let mut body = resp.into_body();
    let first = next_event(&mut body).await.expect("a first message");
    (first, body)
}

async fn next_event(body: &mut Body) -> Option<Value> {
    let frame = body.frame().await?.unwrap();
    let bytes = frame.into_data().unwrap();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let data = text.trim().strip_prefix("event: message\ndata: ").unwrap();
    Some(serde_json::from_str(data).unwrap())
}

/// Answers a legacy question with a JSON-RPC response on its own POST.
async fn answer(s: &Server, key: &str, question: &Value, result: Value) {
    let req = post("/mcp")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::from(
            json!({"jsonrpc":"2.0","id":question["id"],"result":result}).to_string(),
        ))
        .unwrap();
    let (resp, _) = support::send(&s.router, req).await;
    assert_eq!(resp.status(), 202);
}

fn choice(value: &str) -> Value {
    json!({"action": "accept", "content": {"choice": value}})
}

/// The values a question's form offers.
fn offered(question: &Value) -> Vec<String> {
    question["params"]["requestedSchema"]["properties"]["choice"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["const"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_legacy_client_is_asked_which_seasons_and_its_answer_is_requested() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    initialize(&s, &ana, json!({"elicitation": {}})).await;
    let (question, mut rest) = ask_call(&s, &ana, show()).await;
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(
        question["params"]["message"],
        "Which seasons of Game of Thrones (2011) should be requested?"
    );
    let values = offered(&question);
    assert_eq!(values[..4], ["all", "first", "latest", "1"]);
    assert_eq!(values.last().unwrap(), "8");
    answer(&s, &ana, &question, choice("latest")).await;
    let done = next_event(&mut rest).await.unwrap();
    let (err, summary, data) = outcome(&done["result"]);
    assert!(!err, "{data}");
    assert!(
        summary.contains("Game of Thrones (2011) season 8"),
        "{summary}"
    );
    assert_eq!(data["request"]["status"], "pending");
    assert_eq!(requests(&s).await.len(), 1);
}

#[tokio::test]
async fn an_answer_outside_the_choices_is_refused_and_nothing_is_requested() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    initialize(&s, &ana, json!({"elicitation": {}})).await;
    let (question, mut rest) = ask_call(&s, &ana, show()).await;
    answer(&s, &ana, &question, choice("9")).await;
    let done = next_event(&mut rest).await.unwrap();
    let (err, summary, data) = outcome(&done["result"]);
    assert!(err);
    assert_eq!(data["code"], "invalid_argument");
    assert!(
        summary.starts_with("the answer \"9\" is not one of the choices; nothing was done"),
        "{summary}"
    );
    assert!(requests(&s).await.is_empty());
}

#[tokio::test]
async fn declining_the_question_does_nothing() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    initialize(&s, &ana, json!({"elicitation": {}})).await;
    let (question, mut rest) = ask_call(&s, &ana, beauty()).await;
    assert_eq!(
        offered(&question),
        [
            "builtin:tt2316801",
            "builtin:tt0101414",
            "builtin:tt0038348"
        ]
    );
    answer(&s, &ana, &question, json!({"action": "decline"})).await;
    let (err, summary, data) = outcome(&next_event(&mut rest).await.unwrap()["result"]);
    assert!(err);
    assert_eq!(data["code"], "declined");
    assert_eq!(summary, "the person declined to choose; nothing was done");
    assert!(requests(&s).await.is_empty());
}

#[tokio::test]
async fn a_client_that_cannot_answer_gets_the_choices_listed() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    // Declared no elicitation: asked nothing, told the choices.
    initialize(&s, &ana, json!({})).await;
    let (first, _) = ask_call(&s, &ana, beauty()).await;
    let (err, summary, data) = outcome(&first["result"]);
    assert!(err);
    assert_eq!(data["code"], "choice_needed");
    assert!(
        summary.contains("ask the person and call again with media_source + media_id; choices: builtin:tt2316801 (Beauty and the Beast (2014)), builtin:tt0101414 (Beauty and the Beast (1991))"),
        "{summary}"
    );
    assert_eq!(
        data["choices"][1],
        json!({"media_source": "builtin", "media_id": "tt0101414", "title": "Beauty and the Beast",
            "year": 1991, "value": "builtin:tt0101414", "label": "Beauty and the Beast (1991)"})
    );
    // A plain JSON call cannot be asked either.
    let (err, _, data) = outcome(&s.call(&ana, "request_media", show()).await);
    assert!(err);
    assert_eq!(data["code"], "choice_needed");
    assert_eq!(data["argument"], "seasons or season_scope");
    assert!(requests(&s).await.is_empty());
}

/// A 2026-07-28 `tools/call` of `request_media` with `extra` params; the result.
async fn modern_call(s: &Server, key: &str, arguments: Value, extra: Value) -> Value {
    let (mut body, headers) = modern(
        "tools/call",
        3,
        json!({"name": "request_media", "arguments": arguments}),
    );
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    body["params"]
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let mut req = Request::post("/mcp")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::AUTHORIZATION, format!("Bearer {key}"));
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let (resp, bytes) = s
        .send(req.body(Body::from(body.to_string())).unwrap())
        .await;
    assert_eq!(resp.status(), 200);
    support::parse(&bytes)["result"].clone()
}

#[tokio::test]
async fn a_modern_client_answers_on_a_retry_and_asking_creates_nothing() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    let args = json!({"title": "Game of Thrones", "media_type": "tv"});
    let first = modern_call(&s, &ana, args.clone(), json!({})).await;
    // One title of that name: no question about it; the seasons are asked.
    assert_eq!(first["resultType"], "input_required", "{first}");
    let asked = &first["inputRequests"]["seasons"];
    assert_eq!(asked["method"], "elicitation/create");
    assert!(first.get("requestState").is_none());
    assert!(requests(&s).await.is_empty(), "asking created nothing");

    let done = modern_call(
        &s,
        &ana,
        args,
        json!({"inputResponses": {"seasons": choice("2")}}),
    )
    .await;
    assert_eq!(done["resultType"], "complete");
    let (err, summary, _) = outcome(&done);
    assert!(!err && summary.contains("season 2"), "{summary}");

    // A film named by words several films share: the title is asked the same way. (An
    // answer carried over several rounds in requestState is covered in mcp's asker tests.)
    let film = modern_call(&s, &ana, beauty(), json!({})).await;
    assert_eq!(film["resultType"], "input_required");
    assert!(film["inputRequests"]["title"].is_object());
    let done = modern_call(
        &s,
        &ana,
        beauty(),
        json!({"inputResponses": {"title": choice("builtin:tt0101414")}}),
    )
    .await;
    let (err, summary, _) = outcome(&done);
    assert!(
        !err && summary.contains("Beauty and the Beast (1991)"),
        "{summary}"
    );
}

#[tokio::test]
async fn a_tv_title_several_shows_share_asks_which_show_then_which_seasons_over_two_rounds() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    let args = json!({"title": "The Office", "media_type": "tv"});
    let first = modern_call(&s, &ana, args.clone(), json!({})).await;
    assert_eq!(first["resultType"], "input_required", "{first}");
    let which = &first["inputRequests"]["title"];
    let shows = offered(which);
    for show in ["tmdb:2316", "tmdb:2996"] {
        assert!(shows.contains(&show.to_string()), "{shows:?}");
    }
    assert!(first["inputRequests"].get("seasons").is_none(), "{first}");

    // The show answered, the seasons are asked next; the first answer rides in requestState.
    let second = modern_call(
        &s,
        &ana,
        args.clone(),
        json!({"inputResponses": {"title": choice("tmdb:2996")}}),
    )
    .await;
    assert_eq!(second["resultType"], "input_required", "{second}");
    assert!(second["inputRequests"]["seasons"].is_object(), "{second}");
    let state = second["requestState"].clone();
    assert!(state.is_string() || state.is_object(), "{second}");
    assert!(requests(&s).await.is_empty(), "asking created nothing");

    let done = modern_call(
        &s,
        &ana,
        args,
        json!({"requestState": state, "inputResponses": {"seasons": choice("2")}}),
    )
    .await;
    assert_eq!(done["resultType"], "complete", "{done}");
    let (err, summary, _) = outcome(&done);
    assert!(!err && summary.contains("season 2"), "{summary}");
    let made = requests(&s).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].media.media_id, "2996", "the show chosen: {made:?}");
    assert_eq!(made[0].year, Some(2001));
    assert_eq!(made[0].seasons, [2]);
}

#[tokio::test]
async fn a_modern_client_without_elicitation_gets_the_choices() {
    let (s, _fake) = server().await;
    let ana = s.key_for("ana", Role::User, "requester").await;
    let (body, headers) = modern(
        "tools/call",
        3,
        json!({"name": "request_media", "arguments": show()}),
    );
    let mut req = post("/mcp").header(header::AUTHORIZATION, format!("Bearer {ana}"));
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let (_, bytes) = s
        .send(req.body(Body::from(body.to_string())).unwrap())
        .await;
    let result = support::parse(&bytes)["result"].clone();
    assert_eq!(result["resultType"], "complete");
    let (err, _, data) = outcome(&result);
    assert!(err);
    assert_eq!(data["code"], "choice_needed");
}

#[tokio::test]
async fn a_kid_is_offered_only_what_their_limits_allow_and_an_answer_is_no_approval() {
    let (s, _fake) = server().await;
    let limits = |block_unrated| ContentLimits {
        max_movie_cert: Some("PG".into()),
        block_unrated,
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", limits(false))
        .await;
    // PG-13 (2014) is never offered; an answer naming it anyway is refused.
    let asked = modern_call(&s, &kid, beauty(), json!({})).await;
    let form = &asked["inputRequests"]["title"]["params"]["requestedSchema"];
    let values: Vec<&str> = form["properties"]["choice"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["const"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["builtin:tt0101414", "builtin:tt0038348"]);
    let sneaky = modern_call(
        &s,
        &kid,
        beauty(),
        json!({"inputResponses": {"title": choice("builtin:tt2316801")}}),
    )
    .await;
    let (err, _, data) = outcome(&sneaky);
    assert!(err);
    assert_eq!(data["code"], "invalid_argument");
    let done = modern_call(
        &s,
        &kid,
        beauty(),
        json!({"inputResponses": {"title": choice("builtin:tt0101414")}}),
    )
    .await;
    let (err, _, data) = outcome(&done);
    assert!(!err, "{data}");
    assert_eq!(
        data["request"]["status"], "pending",
        "an answer approves nothing"
    );

    // With unrated titles blocked, one title is left: it is requested without a question.
    let strict = s
        .key_with_limits("kid2", Role::Kid, "requester", limits(true))
        .await;
    let r = modern_call(&s, &strict, beauty(), json!({})).await;
    assert_eq!(r["resultType"], "complete", "{r}");
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{data}");
    assert!(summary.contains("already requested"), "{summary}");
}
