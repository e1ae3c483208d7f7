//! The settings catalogue through the real MCP endpoint: every setting described (a secret
//! with no value), the values in force with their sources, and a change planned, approved and
//! in force at once, kept in the store and applied again over what the file leaves alone; a
//! key the config file fixes, one only the file changes, a secret, a wrong type and an unknown
//! key refused by name; the owner's groups hidden from an admin.

use std::collections::BTreeMap;

use domain::Role;
use serde_json::{Value, json};
use tools::{ConfigSource, ConfigValue};

use crate::support::{Server, outcome, server};

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

fn setting<'a>(list: &'a Value, key: &str) -> &'a Value {
    list["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == key)
        .unwrap_or_else(|| panic!("no {key} in {list}"))
}

/// Whether a caller's URL may reach the LAN address 10.0.0.5.
fn lan_allowed(settings: &tools::Settings) -> bool {
    let url = "http://10.0.0.5/announce".parse().unwrap();
    settings.outbound().check_url(&url).is_ok()
}

async fn planned(s: &Server, args: Value) -> Value {
    let (err, summary, data) = call(s, &s.owner_key, "plan_configuration", args).await;
    assert!(!err, "{summary}");
    let change = data["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = call(s, &s.owner_key, "apply_change", apply).await;
    assert!(!err, "{summary}");
    data
}

#[tokio::test]
async fn settings_are_described_shown_and_changed_by_approved_plans() {
    let s = server().await;
    let settings = s.host.app.settings();
    // As the binary tells it: the config file sets calls_per_minute.
    let mut config = BTreeMap::new();
    config.insert(
        "limits.calls_per_minute".to_owned(),
        ConfigValue {
            value: json!(120),
            source: ConfigSource::File,
        },
    );
    settings.set_config_values(config);

    let (err, _, described) = call(&s, &s.owner_key, "describe_settings", json!({})).await;
    assert!(!err);
    let destructive = setting(&described, "mcp.allow_destructive");
    assert_eq!(destructive["changed_by"], "plan_configuration");
    assert_eq!(destructive["default"], false);
    let secret = setting(&described, "instances[].api_key");
    assert_eq!(secret["secret"], true);
    assert!(secret.get("default").is_none(), "{secret}");
    let (err, summary, _) = call(
        &s,
        &s.owner_key,
        "describe_settings",
        json!({"group": "nope"}),
    )
    .await;
    assert!(err && summary.contains("groups: server"), "{summary}");

    let (_, _, shown) = call(&s, &s.owner_key, "get_configuration", json!({})).await;
    let fixed = setting(&shown, "limits.calls_per_minute");
    assert_eq!(
        (
            fixed["value"].clone(),
            fixed["source"].clone(),
            fixed["plannable"].clone()
        ),
        (json!(120), json!("file"), json!(false))
    );
    assert_eq!(
        setting(&shown, "mcp.allow_destructive")["source"],
        "default"
    );
    assert!(
        setting(&shown, "instances[].api_key")
            .get("value")
            .is_none()
    );

    for (args, says) in [
        (
            json!({"settings": [{"key": "limits.calls_per_minute", "value": 5}]}),
            "fixed by the config file (120)",
        ),
        (
            json!({"settings": [{"key": "listen", "value": "0.0.0.0:1"}]}),
            "changes in the config file (applied at restart)",
        ),
        (
            json!({"settings": [{"key": "instances[].api_key", "value": "hunter2"}]}),
            "is a secret",
        ),
        (
            json!({"settings": [{"key": "outbound.allowed_hosts", "value": "tracker.lan"}]}),
            "takes host names",
        ),
        (
            json!({"settings": [{"key": "mcp.nope", "value": true}]}),
            "no setting \"mcp.nope\"",
        ),
        (
            json!({"settings": [{"key": "mcp.allow_destructive", "value": true},
                {"key": "mcp.allow_destructive", "value": false}]}),
            "named twice",
        ),
    ] {
        let (err, summary, _) = call(&s, &s.owner_key, "plan_configuration", args).await;
        assert!(err && summary.contains(says), "{says}: {summary}");
    }

    // Planned, nothing changes; applied, both are in force at once and kept in the store.
    assert!(!settings.allow_destructive());
    let both = json!({"settings": [{"key": "mcp.allow_destructive", "value": true},
        {"key": "outbound.allowed_hosts", "value": ["10.0.0.5"]}]});
    let done = planned(&s, both).await;
    assert_eq!(
        done["result"]["changed"],
        json!(["mcp.allow_destructive", "outbound.allowed_hosts"])
    );
    assert!(settings.allow_destructive());
    assert!(lan_allowed(settings));
    let (_, _, shown) = call(&s, &s.owner_key, "get_configuration", json!({})).await;
    assert_eq!(setting(&shown, "mcp.allow_destructive")["source"], "store");

    // A reload of the file puts the file's values back; the store's are applied again over
    // what the file leaves alone, never over what it sets.
    settings.set_allow_destructive(false);
    settings.set_outbound_hosts(Vec::new());
    let mut config = settings.config_values();
    config.insert(
        "outbound.allowed_hosts".to_owned(),
        ConfigValue {
            value: json!([]),
            source: ConfigSource::File,
        },
    );
    settings.set_config_values(config);
    let applied = tools::settings::apply_stored(settings, s.host.app.store())
        .await
        .unwrap();
    assert_eq!(applied, ["mcp.allow_destructive"]);
    assert!(settings.allow_destructive());
    assert!(!lan_allowed(settings));

    // Back to the default.
    planned(
        &s,
        json!({"settings": [{"key": "mcp.allow_destructive", "value": null}]}),
    )
    .await;
    assert!(!settings.allow_destructive());

    // An admin reads the settings but not the owner's groups.
    let admin = s.key_for("ada", Role::Admin, "admin").await;
    let (err, _, shown) = call(&s, &admin, "get_configuration", json!({})).await;
    assert!(!err, "{shown}");
    assert_eq!(shown["owner_only"], json!(["auth", "oauth", "instances"]));
    let (err, summary, _) = call(&s, &admin, "get_configuration", json!({"group": "auth"})).await;
    assert!(err && summary.contains("the owner's"), "{summary}");
    let reader = s.key_for("rita", Role::User, "reader").await;
    let (err, _, _) = call(&s, &reader, "describe_settings", json!({})).await;
    assert!(err);
}
