//! The owner pages in a real headless Chromium (Debian's chromium and chromium-driver) over
//! real HTTP, with a real qbittorrent-nox behind the change being approved; and the refusals
//! (no session, wrong password, forged forms) over the router.

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::ChangeStatus;
use tools::InstanceSpec;

use crate::peers::{self, Daemon, Fixture, QbRaw, poll};
use crate::support::{self, Server, server_for};
use crate::webdriver;
use crate::webdriver::Browser;

const PASSWORD: &str = "correct horse battery staple";

struct World {
    _qb: Daemon,
    qraw: QbRaw,
    s: Server,
    operator: String,
    fix: std::path::PathBuf,
    /// `http://127.0.0.1:PORT`, where the router listens for the browser.
    base: String,
}

async fn world() -> World {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"))
        .join()
        .unwrap();
    let qraw = QbRaw::login(&qb).await;
    let spec = InstanceSpec {
        id: "qb".into(),
        kind: InstanceKind::Qbittorrent,
        url: Some(qb.cred("QBITTORRENT_URL").parse().unwrap()),
        path: None,
        username: Some(qb.cred("QBITTORRENT_USER")),
        password: Some(Secret::new(qb.cred("QBITTORRENT_PASS"))),
        api_key: None,
        default: true,
    };
    let s = server_for(vec![spec], true).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    s.host.app.settings().set_public_url(&base);
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let operator = s.key_for("ops", Role::Admin, "operator").await;
    let fix = qb.dir.path().join("fixtures");
    World {
        _qb: qb,
        qraw,
        s,
        operator,
        fix,
        base,
    }
}

impl World {
    /// A torrent added by the owner, then the operator's plan to delete it: the plan's data.
    async fn planned_deletion(&self, name: &str, size: usize) -> (Fixture, Value) {
        let f = Fixture::new(&self.fix, name, size, None);
        let url = peers::serve_file(std::fs::read(&f.torrent).unwrap()).await;
        let r = self
            .s
            .call(
                &self.s.owner_key,
                "add_torrent",
                json!({"source": url, "paused": true}),
            )
            .await;
        assert_eq!(r["isError"], false, "{r}");
        poll(10, "the torrent on qbittorrent", async || {
            self.qraw.one(&f.hash).await.map(|_| ())
        })
        .await;
        // Marquee's catalogue learns of it on a refresh.
        poll(10, "the torrent in marquee's catalogue", async || {
            let r = self
                .s
                .call(
                    &self.s.owner_key,
                    "torrent_detail",
                    json!({"info_hash": f.hash}),
                )
                .await;
            (r["isError"] == false).then_some(())
        })
        .await;
        let r = self
            .s
            .call(
                &self.operator,
                "delete_torrents",
                json!({"info_hashes": [f.hash], "delete_data": true}),
            )
            .await;
        assert_eq!(r["isError"], false, "{r}");
        (f, r["structuredContent"]["data"].clone())
    }

    async fn status(&self, change_id: &str) -> ChangeStatus {
        let store = self.s.host.app.store();
        store.change(change_id).await.unwrap().unwrap().status
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_approves_in_the_browser_and_sees_the_change_applied() {
    let w = world().await;
    let (f, plan) = w.planned_deletion("browser-plan.mkv", 150_000).await;
    let review = plan["review_url"].as_str().unwrap().to_string();
    let id = plan["change_id"].as_str().unwrap().to_string();
    assert_eq!(review, format!("{}/changes/{id}", w.base));

    let b = Browser::start("owner-pages").await;
    b.goto(&review).await;
    assert!(b.url().await.ends_with("/sign-in"), "{}", b.url().await);
    b.screenshot("1-sign-in").await;
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    let url = b.wait_url("/changes").await;
    assert!(url.ends_with("/changes"), "{url}");
    assert!(b.text("#pending").await.contains("delete 1 torrent"));
    b.screenshot("2-changes").await;

    b.goto(&review).await;
    let diff = b.text("#diff").await;
    assert!(
        diff.contains("browser-plan.mkv") && diff.contains("150.0 KB"),
        "{diff}"
    );
    assert!(b.text("#effect").await.contains("cannot be undone"));
    assert_eq!(b.text("#status").await, "pending");
    b.screenshot("3-change-pending").await;
    b.click("#approve").await;
    assert_eq!(b.wait_text("#status", "approved").await, "approved");
    assert_eq!(w.status(&id).await, ChangeStatus::Approved);
    assert!(
        w.qraw.one(&f.hash).await.is_some(),
        "approval alone acts on nothing"
    );

    let r =
        w.s.call(
            &w.operator,
            "apply_change",
            json!({"change_id": id, "idempotency_key": "browser-apply-1"}),
        )
        .await;
    assert_eq!(r["structuredContent"]["data"]["status"], "succeeded", "{r}");
    assert!(w.qraw.one(&f.hash).await.is_none());
    b.goto(&review).await;
    assert_eq!(b.wait_text("#status", "applied").await, "applied");
    assert!(b.text("#operation").await.contains("succeeded"));
    b.screenshot("4-change-applied").await;
    b.goto(&format!("{}/activity", w.base)).await;
    let log = b.text("#activity").await;
    assert!(
        log.contains("delete_torrents") && log.contains("applied"),
        "{log}"
    );
    b.screenshot("5-activity").await;
    b.goto(&format!("{}/household", w.base)).await;
    assert!(b.text("#grants").await.contains("operator"));
    b.screenshot("6-household").await;

    // A forged form with the owner's own cookie but no (or a wrong) CSRF token changes nothing.
    let (_, other) = w.planned_deletion("forged.mkv", 40_000).await;
    let other_id = other["change_id"].as_str().unwrap();
    let cookie = b.cookie("marquee_session").await;
    assert_eq!(cookie["httpOnly"], true, "{cookie}");
    assert_eq!(cookie["sameSite"], "Strict", "{cookie}");
    let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
    for csrf in ["", "&csrf=not-the-token"] {
        let body = format!(
            "content_hash={}&decision=approve{csrf}",
            other["content_hash"].as_str().unwrap().replace(':', "%3A")
        );
        let r = http
            .post(format!("{}/changes/{other_id}/decide", w.base))
            .header(
                header::COOKIE,
                format!("marquee_session={}", cookie["value"].as_str().unwrap()),
            )
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 403);
        assert!(r.text().await.unwrap().contains("CSRF"));
    }
    assert_eq!(w.status(other_id).await, ChangeStatus::Pending);
    let shot = b.screenshot("7-end").await;
    b.quit().await;
    println!("screenshots in {}", shot.parent().unwrap().display());
}

#[tokio::test]
async fn a_page_without_a_session_sends_to_sign_in() {
    let s = support::server().await;
    let (resp, _) = s
        .send(
            Request::get("/changes")
                .header(header::HOST, "127.0.0.1:8765")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(resp.headers()[header::LOCATION], "/sign-in");
}

#[tokio::test]
async fn a_next_that_is_not_a_local_path_is_refused_and_no_error_page_can_be_framed() {
    let s = support::server().await;
    s.host
        .app
        .store()
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    // A tab browsers drop (`/\t/evil.example/` reads as `//evil.example/`), and a next that
    // cannot be a header.
    for next in [
        "%2F%09%2Fevil.example%2F",
        "%2Fchanges%0D%0ASet-Cookie%3A+x%3D1",
    ] {
        let (resp, _) = s
            .send(
                Request::get(format!("/sign-in?next={next}"))
                    .header(header::HOST, "127.0.0.1:8765")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(resp.status().as_u16(), 400, "{next}");
        assert_eq!(resp.headers()[header::X_FRAME_OPTIONS], "DENY", "{next}");
        let csp = resp.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        let (resp, _) = s
            .send(
                Request::post("/sign-in")
                    .header(header::HOST, "127.0.0.1:8765")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(format!(
                        "name=owner&password={}&next={next}",
                        PASSWORD.replace(' ', "+")
                    )))
                    .unwrap(),
            )
            .await;
        assert_eq!(resp.status().as_u16(), 400, "signing in with {next}");
        assert!(resp.headers().get(header::SET_COOKIE).is_none());
    }
}

#[tokio::test]
async fn a_wrong_password_makes_no_session() {
    let s = support::server().await;
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let (resp, body) = s
        .send(
            Request::post("/sign-in")
                .header(header::HOST, "127.0.0.1:8765")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from("name=owner&password=wrong+password+here"))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 401);
    assert!(resp.headers().get(header::SET_COOKIE).is_none());
    assert!(String::from_utf8_lossy(&body).contains("wrong name or password"));
}

#[tokio::test]
async fn a_page_for_another_host_is_refused() {
    let s = support::server().await;
    let (resp, _) = s
        .send(
            Request::get("/sign-in")
                .header(header::HOST, "evil.example:8765")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 403);
}

#[tokio::test]
async fn repeated_wrong_passwords_from_one_address_are_throttled() {
    let s = support::server().await;
    s.host
        .app
        .store()
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
    let sign_in = |password: &'static str| {
        http.post(format!("{base}/sign-in"))
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(format!("name=owner&password={password}"))
            .send()
    };
    let mut statuses = Vec::new();
    for _ in 0..10 {
        statuses.push(sign_in("not+it+at+all").await.unwrap().status().as_u16());
    }
    assert_eq!(statuses[..9], [401; 9]);
    assert_eq!(statuses[9], 429);
    // Blocked: even the right password waits, with Retry-After.
    let r = sign_in("correct+horse+battery+staple").await.unwrap();
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.headers().contains_key(header::RETRY_AFTER));
}

/// A signed-in owner session for requests through the router: (cookie header, CSRF token).
async fn owner_session(s: &Server) -> (String, String) {
    let store = s.host.app.store();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let token = store.create_session(owner.id).await.unwrap();
    let csrf = store.session(token.expose()).await.unwrap().unwrap().csrf;
    (format!("marquee_session={}", token.expose()), csrf)
}

fn form_post(path: &str, cookie: &str, body: String) -> Request<Body> {
    Request::post(path)
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap()
}

#[tokio::test]
async fn a_key_made_on_the_household_page_is_shown_once_and_works() {
    let s = support::server().await;
    s.host
        .app
        .store()
        .add_person("kim", Role::User)
        .await
        .unwrap();
    let (cookie, csrf) = owner_session(&s).await;
    let body = format!("csrf={csrf}&person=kim&grant=reader&label=phone");
    let (resp, page) = s.send(form_post("/household/keys", &cookie, body)).await;
    assert_eq!(resp.status().as_u16(), 200);
    let page = String::from_utf8_lossy(&page).into_owned();
    let key = page
        .split(|c: char| c.is_whitespace() || c == '<' || c == '>')
        .find(|w| w.starts_with("mq_"))
        .expect("the new key is on the answer page")
        .to_string();
    let me = s.call(&key, "whoami", json!({})).await;
    assert_eq!(me["isError"], false, "{me}");
    assert!(
        me["content"][0]["text"].as_str().unwrap().contains("kim"),
        "{me}"
    );
    let req = Request::get("/household")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let (_, household) = s.send(req).await;
    let household = String::from_utf8_lossy(&household);
    assert!(household.contains("phone") && !household.contains(&key));
    // The page says what it offers: keys are made right here, not only on the command line.
    assert!(
        household.contains("when it is made (with the form below, or"),
        "{household}"
    );
}

#[tokio::test]
async fn a_media_server_link_made_on_the_household_page_serves_continue_watching() {
    let jellyfin = test_support::FakeMedia::start(test_support::MediaKind::Jellyfin).await;
    let s = support::server_with_instances(vec![
        support::builtin(),
        support::instance(
            "tv",
            InstanceKind::Jellyfin,
            Some(&jellyfin.url()),
            Some(test_support::media::MEDIA_TOKEN),
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s.call(&alice, "get_continue_watching", json!({})).await;
    assert_eq!(r["structuredContent"]["data"]["linked"], false, "{r}");
    let (cookie, csrf) = owner_session(&s).await;
    let link = |body: String| form_post("/household/links", &cookie, body);
    let (resp, _) = s
        .send(link(format!(
            "csrf={csrf}&person=alice&instance=tv&user=alice-jf&action=link"
        )))
        .await;
    assert_eq!(resp.status().as_u16(), 303);
    let r = s.call(&alice, "get_continue_watching", json!({})).await;
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(
        r["structuredContent"]["data"]["items"][0]["series_title"], "Bluey",
        "{r}"
    );
    let req = Request::get("/household")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let (_, page) = s.send(req).await;
    let page = String::from_utf8_lossy(&page);
    assert!(
        page.contains("<td>alice</td><td>tv</td><td class=\"wide\">alice-jf</td>"),
        "{page}"
    );
    // Only a configured media server, a known person and a real action are taken.
    for (body, says) in [
        (
            "person=alice&instance=builtin&user=a&action=link",
            "no media server here",
        ),
        (
            "person=nobody&instance=tv&user=a&action=link",
            "no person named",
        ),
        (
            "person=alice&instance=tv&user=a&action=drop",
            "unknown action",
        ),
        (
            "person=alice&instance=tv&user=&action=link",
            "user name must be",
        ),
    ] {
        let (resp, page) = s.send(link(format!("csrf={csrf}&{body}"))).await;
        assert_eq!(resp.status().as_u16(), 400, "{body}");
        assert!(String::from_utf8_lossy(&page).contains(says), "{body}");
    }
    let (resp, _) = s
        .send(link(
            "csrf=wrong&person=alice&instance=tv&user=x&action=link".to_string(),
        ))
        .await;
    assert_ne!(
        resp.status().as_u16(),
        303,
        "a wrong CSRF token changes nothing"
    );
    let (resp, _) = s
        .send(link(format!(
            "csrf={csrf}&person=alice&instance=tv&action=unlink"
        )))
        .await;
    assert_eq!(resp.status().as_u16(), 303);
    let r = s.call(&alice, "get_continue_watching", json!({})).await;
    assert_eq!(r["structuredContent"]["data"]["linked"], false, "{r}");
}

#[tokio::test]
async fn a_tool_switched_off_on_the_household_page_cannot_be_called() {
    let s = support::server().await;
    let (cookie, csrf) = owner_session(&s).await;
    let (resp, _) = s
        .send(form_post(
            "/household/switches",
            &cookie,
            format!("csrf={csrf}&tool=get_guide&enabled=off"),
        ))
        .await;
    assert_eq!(resp.status().as_u16(), 303);
    let r = s
        .call(&s.owner_key, "get_guide", json!({"topic": "setup"}))
        .await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("switched off"),
        "{r}"
    );
    let (resp, _) = s
        .send(form_post(
            "/household/switches",
            &cookie,
            format!("csrf={csrf}&tool=no_such_tool&enabled=off"),
        ))
        .await;
    assert_eq!(resp.status().as_u16(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_that_panics_leaves_no_browser_process_behind() {
    let b = Browser::start("panicking").await;
    b.goto("about:blank").await;
    let group = b.group();
    assert!(
        webdriver::processes_in_group(group).len() > 1,
        "chromedriver and Chromium share the group"
    );
    // The panic unwinds through the browser without quit, as a failing assertion would.
    let panicked = tokio::spawn(async move {
        let _held = b;
        panic!("a failing test");
    })
    .await;
    assert!(panicked.unwrap_err().is_panic());
    // SIGKILL is delivered at once; a process takes a moment to be gone from /proc.
    let mut left = webdriver::processes_in_group(group);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = webdriver::processes_in_group(group);
    }
    assert!(left.is_empty(), "processes left in group {group}: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_reads_a_settings_diff_in_the_browser_and_approves_it() {
    use test_support::arr::{ArrKind, FakeArr, Resource};
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let quality = |id: i64, name: &str| json!({"quality": {"id": id, "name": name, "source": "bluray", "resolution": 1080, "modifier": "none"}, "items": [], "allowed": true});
    fake.insert(
        Resource::QualityProfile,
        json!({"name": "Movies", "upgradeAllowed": true, "cutoff": 7,
            "items": [quality(3, "WEBDL-1080p"), quality(7, "Bluray-1080p")],
            "minFormatScore": 0, "cutoffFormatScore": 0, "minUpgradeFormatScore": 1,
            "formatItems": [{"format": 1, "name": "x265", "score": 0}],
            "language": {"id": 1, "name": "English"}}),
    );
    let mut spec = support::instance(
        "radarr",
        InstanceKind::Radarr,
        Some(&fake.url()),
        Some(fake.api_key()),
    );
    spec.default = true;
    let s = support::server_with_instances(vec![spec]).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    s.host.app.settings().set_public_url(&base);
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let admin = s.key_for("ana", Role::Admin, "admin").await;
    let r = s
        .call(
            &admin,
            "plan_profile_change",
            json!({"profile": "Movies", "cutoff": "WEBDL-1080p", "upgrade_allowed": false, "format_scores": {"x265": -50}}),
        )
        .await;
    assert_eq!(r["isError"], false, "{r}");
    let data = &r["structuredContent"]["data"];
    let (id, review) = (
        data["change_id"].as_str().unwrap().to_string(),
        data["review_url"].as_str().unwrap().to_string(),
    );

    let b = Browser::start("settings-change").await;
    b.goto(&review).await;
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    // The click returns before the redirect that signs in is followed.
    let url = b.wait_url("/changes").await;
    assert!(url.contains("/changes"), "not signed in: {url}");
    b.goto(&review).await;
    let diff = b.text("#settings-diff").await;
    for line in [
        "cutoff Bluray-1080p WEBDL-1080p",
        "upgrade_allowed true false",
        "score: x265 0 -50",
    ] {
        assert!(diff.contains(line), "{line:?} not in {diff}");
    }
    assert!(
        b.text("#effect")
            .await
            .contains("Writes quality profile \"Movies\" on radarr (3 fields below)")
    );
    b.screenshot("1-settings-change-pending").await;
    b.click("#approve").await;
    assert_eq!(b.wait_text("#status", "approved").await, "approved");
    let profile_writes = fake.requests_to("PUT", "/qualityprofile/3").len();
    assert_eq!(profile_writes, 0, "approval alone writes nothing");
    let r = s
        .call(
            &admin,
            "apply_change",
            json!({"change_id": id, "idempotency_key": "browser-settings-1"}),
        )
        .await;
    assert_eq!(r["structuredContent"]["data"]["status"], "succeeded", "{r}");
    b.goto(&review).await;
    assert_eq!(b.wait_text("#status", "applied").await, "applied");
    b.screenshot("2-settings-change-applied").await;
    b.quit().await;
}
