//! The *arr fakes' settings writes (quality profile PUT, custom format schema, POST and PUT)
//! answer as the vendor documents say, and refuse what the services refuse.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource};

async fn call(fake: &FakeArr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let url = format!("{}{}{path}", fake.url(), fake.kind().api_prefix());
    let mut request = reqwest::Client::new()
        .request(method.parse().unwrap(), url)
        .header("X-Api-Key", fake.api_key());
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn settings_writes_answer_as_documented_on_all_four_services() {
    for kind in [
        ArrKind::Radarr,
        ArrKind::Sonarr,
        ArrKind::Lidarr,
        ArrKind::Readarr,
    ] {
        let fake = FakeArr::start(kind).await;
        let (_, mut profile) = call(&fake, "GET", "/qualityprofile/1", None).await;
        profile["upgradeAllowed"] = json!(false);
        // A fresh fake's profiles name a cutoff outside their one item; point it at the item.
        profile["cutoff"] = profile["items"][0]["quality"]["id"].clone();
        let (status, _) = call(&fake, "PUT", "/qualityprofile/1", Some(profile)).await;
        assert_eq!(status, 200, "{kind:?}");
        let (status, schema) = call(&fake, "GET", "/customformat/schema", None).await;
        assert_eq!(status, 200, "{kind:?}");
        assert!(schema.as_array().is_some_and(|s| s.len() >= 3), "{schema}");
        let format = json!({ "name": "HEVC", "includeCustomFormatWhenRenaming": false,
            "specifications": [{ "name": "title", "implementation": "ReleaseTitleSpecification",
                "negate": false, "required": false, "fields": [{ "name": "value", "value": "hevc" }] }] });
        let (status, made) = call(&fake, "POST", "/customformat", Some(format)).await;
        assert_eq!(status, 201, "{kind:?}: {made}");
        let mut update = made.clone();
        update["includeCustomFormatWhenRenaming"] = json!(true);
        let id = made["id"].as_i64().unwrap();
        let (status, _) = call(&fake, "PUT", &format!("/customformat/{id}"), Some(update)).await;
        assert_eq!(status, 200, "{kind:?}");
        let report = fake.check_answers();
        assert!(report.errors.is_empty(), "{kind:?}: {:#?}", report.errors);
        assert!(
            report.undocumented.is_empty(),
            "{kind:?}: {:#?}",
            report.undocumented
        );
        // A new format entered every profile at score 0.
        for p in fake.all(Resource::QualityProfile) {
            let scored = p["formatItems"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["format"] == id && i["score"] == 0);
            assert!(scored, "{kind:?}: {p}");
        }
    }
}

#[tokio::test]
async fn a_profile_whose_cutoff_is_not_allowed_or_a_duplicate_format_name_is_refused() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let (_, mut profile) = call(&fake, "GET", "/qualityprofile/1", None).await;
    profile["cutoff"] = json!(9999);
    let (status, body) = call(&fake, "PUT", "/qualityprofile/1", Some(profile)).await;
    assert_eq!(
        (status, &body[0]["propertyName"]),
        (400, &json!("Cutoff")),
        "{body}"
    );
    let format =
        json!({ "name": "x265", "includeCustomFormatWhenRenaming": false, "specifications": [] });
    let (status, body) = call(&fake, "POST", "/customformat", Some(format)).await;
    assert_eq!(
        (status, &body[0]["propertyName"]),
        (400, &json!("Name")),
        "{body}"
    );
}
