//! Settings changes as plans through the real MCP endpoint against the Radarr fake:
//! `plan_profile_change` and `upsert_custom_format` store a change with its diff and write
//! nothing; `apply_change` writes it once allowed and reads it back; a stale plan is refused;
//! an applied change offers one guarded revert.

use domain::{Capability, InstanceKind, Role};
use expect_test::{Expect, expect};
use serde_json::{Value, json};
use store::{AuditQuery, AuditStatus, ChangeStatus};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{Server, instance, outcome, server_with_instances};

struct World {
    fake: FakeArr,
    s: Server,
    /// An admin on the admin preset: may plan settings changes, not apply them unapproved.
    admin: String,
    /// The seeded profile's id.
    profile: i64,
}

fn quality(id: i64, name: &str, allowed: bool) -> Value {
    json!({ "quality": { "id": id, "name": name, "source": "bluray", "resolution": 1080, "modifier": "none" },
        "items": [], "allowed": allowed })
}

async fn world() -> World {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    // The fresh fake's custom format "x265" has id 1.
    let profile = fake.insert(
        Resource::QualityProfile,
        json!({
            "name": "Movies", "upgradeAllowed": true, "cutoff": 7,
            "items": [
                quality(4, "HDTV-720p", false),
                quality(3, "WEBDL-1080p", true),
                { "id": 1001, "name": "WEB 720p", "allowed": true,
                  "items": [quality(5, "WEBDL-720p", true), quality(14, "WEBRip-720p", true)] },
                quality(7, "Bluray-1080p", true)
            ],
            "minFormatScore": 0, "cutoffFormatScore": 0, "minUpgradeFormatScore": 1,
            "formatItems": [{ "format": 1, "name": "x265", "score": 0 }],
            "language": { "id": 1, "name": "English" }
        }),
    );
    let mut spec = instance(
        "radarr",
        InstanceKind::Radarr,
        Some(&fake.url()),
        Some(fake.api_key()),
    );
    spec.default = true;
    let s = server_with_instances(vec![spec]).await;
    let admin = s.key_for("ana", Role::Admin, "admin").await;
    World {
        fake,
        s,
        admin,
        profile,
    }
}

impl World {
    async fn call(&self, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
        outcome(&self.s.call(key, tool, args).await)
    }

    /// A plan that must be stored; its change id.
    async fn plan(&self, key: &str, tool: &str, args: Value) -> String {
        let (error, summary, data) = self.call(key, tool, args).await;
        assert!(!error, "{summary}");
        data["change_id"].as_str().unwrap().to_string()
    }

    async fn approve(&self, change_id: &str) {
        let store = self.s.host.app.store();
        let owner = store.person_by_name("owner").await.unwrap().unwrap();
        let change = store.change(change_id).await.unwrap().unwrap();
        store
            .decide_change(change_id, owner.id, true, &change.content_hash)
            .await
            .unwrap();
    }

    async fn apply(&self, key: &str, change_id: &str, idempotency: &str) -> (bool, String, Value) {
        self.call(
            key,
            "apply_change",
            json!({"change_id": change_id, "idempotency_key": idempotency}),
        )
        .await
    }

    fn writes(&self) -> usize {
        self.fake
            .requests()
            .iter()
            .filter(|r| r.method != "GET")
            .count()
    }

    fn profile(&self) -> Value {
        self.fake
            .get(Resource::QualityProfile, self.profile)
            .unwrap()
    }

    async fn status(&self, change_id: &str) -> ChangeStatus {
        let store = self.s.host.app.store();
        store.change(change_id).await.unwrap().unwrap().status
    }
}

fn check_diff(data: &Value, expected: Expect) {
    let lines: Vec<String> = data["plan"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}: {} -> {}", c["field"], c["from"], c["to"]))
        .collect();
    expected.assert_eq(&lines.join("\n"));
}

fn edit() -> Value {
    json!({"profile": "Movies", "cutoff": "WEB 720p", "upgrade_allowed": false,
        "disallow": ["WEBDL-1080p"], "format_scores": {"x265": -50}})
}

#[tokio::test]
async fn a_profile_change_is_a_plan_with_its_diff_and_writes_nothing() {
    let w = world().await;
    let (error, summary, data) = w.call(&w.admin, "plan_profile_change", edit()).await;
    assert!(!error, "{summary}");
    assert_eq!(data["missing_authority"], "destructive.direct", "{data}");
    assert!(
        data["review_url"]
            .as_str()
            .unwrap()
            .contains("/changes/chg_")
    );
    check_diff(
        &data,
        expect![[r#"
            "allowed: WEBDL-1080p": "true" -> "false"
            "cutoff": "Bluray-1080p" -> "WEB 720p"
            "upgrade_allowed": "true" -> "false"
            "score: x265": "0" -> "-50""#]],
    );
    assert_eq!(w.writes(), 0, "{:?}", w.fake.requests());
    let change = data["change_id"].as_str().unwrap();
    assert_eq!(w.status(change).await, ChangeStatus::Pending);
    // Before the owner approves, apply is refused naming what is missing.
    let (error, summary, _) = w.apply(&w.admin, change, "settings-key-0001").await;
    assert!(error && summary.contains("destructive.direct"), "{summary}");
    assert_eq!(w.writes(), 0);
}

#[tokio::test]
async fn profile_edits_outside_the_profile_are_refused_naming_the_valid_values() {
    let w = world().await;
    let cases = [
        (
            json!({"profile": "Films", "upgrade_allowed": false}),
            "no quality profile \"Films\"; this instance has: HD-1080p, Ultra-HD, Movies",
        ),
        (
            json!({"profile": "Movies", "cutoff": "HDTV-720p"}),
            "the cutoff must be an allowed quality or group of the profile; allowed: WEBDL-1080p, WEB 720p, Bluray-1080p",
        ),
        (
            json!({"profile": "Movies", "allow": ["Remux-2160p"]}),
            "the profile has no quality or group \"Remux-2160p\"; it has: HDTV-720p, WEBDL-1080p, WEB 720p, Bluray-1080p",
        ),
        (
            json!({"profile": "Movies", "disallow": ["Bluray-1080p"]}),
            "the cutoff (Bluray-1080p) would no longer be allowed; give a new cutoff among: WEBDL-1080p, WEB 720p",
        ),
        (
            json!({"profile": "Movies", "format_scores": {"HDR": 10}}),
            "the profile lists no custom format \"HDR\"; it lists: x265",
        ),
        (
            json!({"profile": "Movies", "min_upgrade_format_score": 0}),
            "min_upgrade_format_score must be at least 1",
        ),
        (
            json!({"profile": "Movies", "upgrade_allowed": true}),
            "quality profile \"Movies\" already has these values; nothing to change",
        ),
        (
            json!({"profile": "Movies", "min_format_score": 5_000_000}),
            "scores lie between -100000 and 100000",
        ),
    ];
    for (args, wanted) in cases {
        let (error, summary, _) = w.call(&w.admin, "plan_profile_change", args.clone()).await;
        assert!(error && summary.contains(wanted), "{args}: {summary}");
    }
    let store = w.s.host.app.store();
    assert!(store.changes_page(None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_owner_applies_a_profile_change_at_once_and_it_reads_back() {
    let w = world().await;
    let owner = w.s.owner_key.clone();
    let change = w.plan(&owner, "plan_profile_change", edit()).await;
    // The stored change reads back (its answer checked against get_change's schema).
    let (error, summary, stored) = w
        .call(&owner, "get_change", json!({"change_id": change}))
        .await;
    assert!(!error, "{summary}");
    assert_eq!(
        (stored["tool"].clone(), stored["status"].clone()),
        (json!("plan_profile_change"), json!("pending"))
    );
    let (error, summary, op) = w.apply(&owner, &change, "owner-apply-0001").await;
    assert!(!error, "{summary}");
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(op["result"]["verified"], true, "{op}");
    let p = w.profile();
    assert_eq!(
        (&p["cutoff"], &p["upgradeAllowed"]),
        (&json!(1001), &json!(false))
    );
    assert_eq!(p["formatItems"][0]["score"], -50);
    assert_eq!(p["items"][1]["allowed"], false);
    assert_eq!(
        w.fake
            .requests_to("PUT", &format!("/qualityprofile/{}", w.profile))
            .len(),
        1
    );
    assert_eq!(w.status(&change).await, ChangeStatus::Applied);
    let audit =
        w.s.host
            .app
            .store()
            .audit_page(&AuditQuery::default())
            .await
            .unwrap();
    // The apply_change call and the operation it ran; planning itself is not audited.
    let entries: Vec<(&str, AuditStatus)> =
        audit.iter().map(|e| (e.tool.as_str(), e.status)).collect();
    assert_eq!(
        entries,
        [
            ("plan_profile_change", AuditStatus::Applied),
            ("apply_change", AuditStatus::Applied)
        ]
    );
}

#[tokio::test]
async fn a_profile_changed_in_the_service_after_approval_refuses_apply() {
    let w = world().await;
    let change = w.plan(&w.admin, "plan_profile_change", edit()).await;
    w.approve(&change).await;
    w.fake.update(
        Resource::QualityProfile,
        w.profile,
        json!({"minFormatScore": 10}),
    );
    let (error, summary, data) = w.apply(&w.admin, &change, "stale-apply-0001").await;
    assert!(error, "{summary}");
    assert_eq!(data["code"], "stale_plan", "{data}");
    assert!(
        summary.contains(&format!("radarr/qualityprofile/{}", w.profile)),
        "{summary}"
    );
    assert_eq!(w.writes(), 0);
    assert_eq!(w.status(&change).await, ChangeStatus::Approved);
}

#[tokio::test]
async fn an_approved_profile_change_is_applied_by_its_planner() {
    let w = world().await;
    let change = w.plan(&w.admin, "plan_profile_change", edit()).await;
    w.approve(&change).await;
    let (error, summary, op) = w.apply(&w.admin, &change, "approved-apply-01").await;
    assert!(!error, "{summary}");
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(w.profile()["cutoff"], 1001);
}

fn x264_format() -> Value {
    json!({"name": "x264", "specifications": [
        {"name": "x264 in title", "implementation": "ReleaseTitleSpecification", "fields": {"value": "\\bx264\\b"}},
        {"name": "not tiny", "implementation": "SizeSpecification", "negate": true, "fields": {"min": 0, "max": 1}}
    ]})
}

#[tokio::test]
async fn a_new_custom_format_is_planned_with_its_specifications_and_enters_profiles_at_zero() {
    let w = world().await;
    let owner = w.s.owner_key.clone();
    let (error, summary, data) = w.call(&owner, "upsert_custom_format", x264_format()).await;
    assert!(!error, "{summary}");
    assert_eq!(data["missing_authority"], Value::Null);
    check_diff(
        &data,
        expect![[r#"
            "custom format": "none" -> "new \"x264\" (enters every profile at score 0)"
            "specification: not tiny": "none" -> "not SizeSpecification (min=0, max=1)"
            "specification: x264 in title": "none" -> "ReleaseTitleSpecification (value=\\bx264\\b)""#]],
    );
    assert_eq!(w.writes(), 0);
    let change = data["change_id"].as_str().unwrap();
    let (error, summary, op) = w.apply(&owner, change, "format-apply-01").await;
    assert!(!error, "{summary}");
    assert_eq!(op["result"]["verified"], true, "{op}");
    let made = w.fake.all(Resource::CustomFormat);
    let x264 = made.iter().find(|f| f["name"] == "x264").expect("created");
    assert_eq!(
        x264["specifications"][0]["fields"][0]["value"],
        "\\bx264\\b"
    );
    for p in w.fake.all(Resource::QualityProfile) {
        let item = p["formatItems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["format"] == x264["id"])
            .cloned();
        assert_eq!(item.map(|i| i["score"].clone()), Some(json!(0)), "{p}");
    }
}

#[tokio::test]
async fn custom_format_specifications_are_checked_against_the_schema() {
    let w = world().await;
    let spec = |s: Value| json!({"name": "bad", "specifications": [s]});
    let cases = [
        (
            spec(json!({"name": "a", "implementation": "TitleSpec"})),
            "unknown implementation \"TitleSpec\" in specification \"a\"; this instance has: ReleaseTitleSpecification, ReleaseGroupSpecification, SizeSpecification, SourceSpecification",
        ),
        (
            spec(
                json!({"name": "a", "implementation": "SizeSpecification", "fields": {"minimum": 1}}),
            ),
            "SizeSpecification has no field \"minimum\"; its fields: min, max",
        ),
        (
            spec(
                json!({"name": "a", "implementation": "SizeSpecification", "fields": {"min": "big"}}),
            ),
            "field \"min\" of specification \"a\" must be a whole number",
        ),
        (
            spec(
                json!({"name": "a", "implementation": "SourceSpecification", "fields": {"value": 4}}),
            ),
            "field \"value\" of specification \"a\" must be one of 0, 6, 9",
        ),
        (
            spec(
                json!({"name": "a", "implementation": "ReleaseTitleSpecification", "fields": {"value": " "}}),
            ),
            "must be a non-empty text",
        ),
        (
            json!({"name": "bad", "specifications": []}),
            "\"specifications\": 0 items; give at least 1",
        ),
    ];
    for (args, wanted) in cases {
        let (error, summary, _) = w.call(&w.admin, "upsert_custom_format", args.clone()).await;
        assert!(error && summary.contains(wanted), "{args}: {summary}");
    }
    assert_eq!(w.writes(), 0);
}

#[tokio::test]
async fn an_applied_change_offers_one_revert_which_is_not_revertible() {
    let w = world().await;
    let owner = w.s.owner_key.clone();
    let original = w.profile();
    let change = w.plan(&owner, "plan_profile_change", edit()).await;
    let (error, summary, _) = w.apply(&owner, &change, "revert-test-0001").await;
    assert!(!error, "{summary}");
    let (error, summary, data) = w
        .call(&owner, "revert_change", json!({"change_id": change}))
        .await;
    assert!(!error, "{summary}");
    check_diff(
        &data,
        expect![[r#"
            "allowed: WEBDL-1080p": "false" -> "true"
            "cutoff": "WEB 720p" -> "Bluray-1080p"
            "upgrade_allowed": "false" -> "true"
            "score: x265": "-50" -> "0""#]],
    );
    let revert = data["change_id"].as_str().unwrap().to_string();
    let (error, summary, again) = w
        .call(&owner, "revert_change", json!({"change_id": change}))
        .await;
    assert!(
        error && summary.contains("already has its revert"),
        "{summary}: {again}"
    );
    let (error, summary, _) = w.apply(&owner, &revert, "revert-test-0002").await;
    assert!(!error, "{summary}");
    assert_eq!(w.profile(), original);
    let (error, summary, _) = w
        .call(&owner, "revert_change", json!({"change_id": revert}))
        .await;
    assert!(
        error && summary.contains("a revert cannot be reverted"),
        "{summary}"
    );
    let (error, summary, _) = w
        .call(&owner, "revert_change", json!({"change_id": change}))
        .await;
    assert!(error && summary.contains("reverted once"), "{summary}");
    let audit =
        w.s.host
            .app
            .store()
            .audit_page(&AuditQuery::default())
            .await
            .unwrap();
    let tools: Vec<&str> = audit
        .iter()
        .map(|e| e.tool.as_str())
        .filter(|t| *t != "apply_change")
        .collect();
    assert_eq!(tools, ["revert_change", "plan_profile_change"]);
}

#[tokio::test]
async fn a_revert_is_refused_once_the_service_changed_the_profile() {
    let w = world().await;
    let owner = w.s.owner_key.clone();
    let change = w.plan(&owner, "plan_profile_change", edit()).await;
    let (error, summary, _) = w.apply(&owner, &change, "changed-since-01").await;
    assert!(!error, "{summary}");
    w.fake.update(
        Resource::QualityProfile,
        w.profile,
        json!({"cutoffFormatScore": 25}),
    );
    let (error, summary, data) = w
        .call(&owner, "revert_change", json!({"change_id": change}))
        .await;
    assert!(error, "{summary}");
    assert_eq!(data["code"], "stale_plan", "{data}");
    assert!(summary.contains("no longer what it applied"), "{summary}");
}

#[tokio::test]
async fn settings_changes_need_settings_write_and_it_is_enough_to_apply() {
    let w = world().await;
    let operator = w.s.key_for("op", Role::Admin, "operator").await;
    let (error, summary, _) = w.call(&operator, "plan_profile_change", edit()).await;
    assert!(error && summary.contains("settings.write"), "{summary}");
    // A grant with settings.write and library.read alone plans, and applies once approved.
    let spec = store::GrantSpec {
        capabilities: [Capability::LibraryRead, Capability::SettingsWrite].into(),
        ..store::GrantSpec::default()
    };
    w.s.host
        .app
        .store()
        .create_grant("tuner", &spec)
        .await
        .unwrap();
    let tuner = w.s.key_for("tina", Role::Admin, "tuner").await;
    let change = w.plan(&tuner, "plan_profile_change", edit()).await;
    w.approve(&change).await;
    let (error, summary, op) = w.apply(&tuner, &change, "tuner-apply-0001").await;
    assert!(!error, "{summary}");
    assert_eq!(op["status"], "succeeded", "{op}");
}
