//! An external MCP server's prompts and resources through Marquee's own `prompts/*` and
//! `resources/*` methods: prefixed `<id>__`, merged with Marquee's, and only for callers whose
//! authority reaches the server. Uses the everything server from the client kit
//! (`$MCP_CLIENTS_HOME`, else `../shared-cache/mcp-clients`); skips when it is absent.

use std::{
    collections::BTreeSet,
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use domain::{Capability, InstanceKind, Role};
use serde_json::{Value, json};
use tools::{Instances, Launch, Settings};
use web::{EdgeConfig, Host, Metrics, Web};

use crate::support::{Server, instance};

/// `node` and the everything server's entry point, when both are here.
pub(crate) fn everything() -> Option<(String, String)> {
    let kit = std::env::var_os("MCP_CLIENTS_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| test_support::beside_checkout("shared-cache/mcp-clients"));
    let entry =
        kit.join("everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("node"))
            .find(|p| p.is_file())
    });
    match node {
        Some(node) if entry.is_file() => {
            Some((node.display().to_string(), entry.display().to_string()))
        }
        _ => {
            eprintln!(
                "SKIP: node or {} is not installed (scripts/test.sh installs it)",
                entry.display()
            );
            None
        }
    }
}

/// A Marquee serving the everything server over stdio as the instance `ev`.
pub(crate) async fn serving_everything(node: &str, entry: &str) -> Server {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let launch = Launch {
        command: Some(node.into()),
        args: vec![entry.into(), "stdio".into()],
        env: Vec::new(),
        headers: Vec::new(),
    };
    let instances = Instances::new(vec![instance("ev", InstanceKind::Mcp, None, None)])
        .unwrap()
        .with_launches(vec![("ev".to_string(), launch)]);
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
    );
    app.start_jobs(std::future::pending());
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(EdgeConfig::default(), metrics);
    web.set_ready(host.clone());
    Server {
        router: web::router(web),
        host,
        owner_key: issued.secret.expose().to_string(),
    }
}

/// A key for a new person whose grant has `federated`, naming `instances` when given.
pub(crate) async fn key(
    s: &Server,
    name: &str,
    role: Role,
    instances: Option<Vec<String>>,
) -> String {
    let store = s.host.app.store();
    let person = store.add_person(name, role).await.unwrap();
    let spec = store::GrantSpec {
        capabilities: BTreeSet::from([Capability::Federated]),
        instances,
        ..store::GrantSpec::default()
    };
    store.create_grant(name, &spec).await.unwrap();
    let key = store.create_key(person.id, name, None, None).await.unwrap();
    key.secret.expose().to_string()
}

/// The result of a legacy JSON-RPC call, or its error.
async fn rpc(s: &Server, key: &str, method: &str, params: Value) -> Result<Value, Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (status, answer) = s.rpc(key, body).await;
    assert_eq!(status, 200, "{answer}");
    match answer.get("error") {
        Some(e) => Err(e.clone()),
        None => Ok(answer["result"].clone()),
    }
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect()
}

const DOC: &str = "ev__demo://resource/static/document/features.md";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn federated_prompts_and_resources_reach_the_owner_over_mcp_and_not_a_kid_without_a_grant_naming_the_server()
 {
    let Some((node, entry)) = everything() else {
        return;
    };
    let s = serving_everything(&node, &entry).await;
    let owner = s.owner_key.clone();
    let started = Instant::now();
    loop {
        let tools = rpc(&s, &owner, "tools/list", json!({})).await.unwrap();
        if names(&tools, "tools").iter().any(|n| n == "ev__echo") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "ev never came up"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Prompts: the server's, prefixed, beside Marquee's own.
    let prompts = names(
        &rpc(&s, &owner, "prompts/list", json!({})).await.unwrap(),
        "prompts",
    );
    assert!(
        prompts.iter().any(|n| n == "ev__simple-prompt"),
        "{prompts:?}"
    );
    assert!(prompts.iter().any(|n| !n.contains("__")), "{prompts:?}");
    let got = rpc(
        &s,
        &owner,
        "prompts/get",
        json!({"name": "ev__simple-prompt"}),
    )
    .await
    .unwrap();
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "This is a simple prompt without arguments."
    );

    // Resources: the server's, names and URIs prefixed, beside Marquee's guides.
    let resources = rpc(&s, &owner, "resources/list", json!({})).await.unwrap();
    let listed = resources["resources"].as_array().unwrap();
    let doc = listed
        .iter()
        .find(|r| r["name"] == "ev__features.md")
        .unwrap_or_else(|| panic!("{resources}"));
    assert_eq!(doc["uri"], DOC);
    assert!(
        listed
            .iter()
            .any(|r| r["uri"].as_str().unwrap().starts_with("marquee://guides/"))
    );
    let read = rpc(&s, &owner, "resources/read", json!({"uri": DOC}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["uri"], DOC);
    assert!(!read["contents"][0]["text"].as_str().unwrap().is_empty());

    // The REST mirror lists and describes the server's tools too.
    let get = |path: &str| {
        axum::http::Request::get(path)
            .header("host", "127.0.0.1:8765")
            .header("authorization", format!("Bearer {owner}"))
            .body(axum::body::Body::empty())
            .unwrap()
    };
    let (resp, body) = s.send(get("/api/v1/tools")).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert!(
        String::from_utf8_lossy(&body).contains("\"ev__echo\""),
        "the mirror lists it"
    );
    let (resp, body) = s.send(get("/api/v1/tools/ev__echo")).await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "{}",
        String::from_utf8_lossy(&body)
    );

    // A kid with `federated` but no grant naming the server: none listed, none answered.
    let kid = key(&s, "kid", Role::Kid, None).await;
    let prompts = names(
        &rpc(&s, &kid, "prompts/list", json!({})).await.unwrap(),
        "prompts",
    );
    assert!(
        !prompts.iter().any(|n| n.starts_with("ev__")),
        "{prompts:?}"
    );
    let resources = rpc(&s, &kid, "resources/list", json!({})).await.unwrap();
    assert!(!resources.to_string().contains("ev__"), "{resources}");
    let refused = rpc(
        &s,
        &kid,
        "prompts/get",
        json!({"name": "ev__simple-prompt"}),
    )
    .await
    .unwrap_err();
    assert_eq!(refused["code"], -32602, "{refused}");
    // Refused as an unknown prompt: nothing says the server exists.
    assert!(!refused.to_string().contains("grant"), "{refused}");
    let refused = rpc(&s, &kid, "resources/read", json!({"uri": DOC}))
        .await
        .unwrap_err();
    assert!(!refused.to_string().contains("simple"), "{refused}");
    assert_eq!(refused["data"]["uri"], DOC, "{refused}");

    // A kid whose grant names the server reaches both.
    let named = key(&s, "kid2", Role::Kid, Some(vec!["ev".into()])).await;
    let prompts = names(
        &rpc(&s, &named, "prompts/list", json!({})).await.unwrap(),
        "prompts",
    );
    assert!(
        prompts.iter().any(|n| n == "ev__simple-prompt"),
        "{prompts:?}"
    );
    let read = rpc(&s, &named, "resources/read", json!({"uri": DOC}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["uri"], DOC);

    // Reads and prompts of another server count against the person's call rate.
    s.host.app.settings().call_rate.set_per_minute(1);
    rpc(&s, &named, "resources/read", json!({"uri": DOC}))
        .await
        .unwrap();
    let limited = rpc(&s, &named, "resources/read", json!({"uri": DOC}))
        .await
        .unwrap_err();
    assert!(limited.to_string().contains("too many calls"), "{limited}");
    let limited = rpc(
        &s,
        &named,
        "prompts/get",
        json!({"name": "ev__simple-prompt"}),
    )
    .await
    .unwrap_err();
    assert!(limited.to_string().contains("too many calls"), "{limited}");
}
