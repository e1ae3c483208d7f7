//! Each tool declares its own `outputSchema`: the answer envelope, with `data` generated from
//! the type the tool writes its answer from (any JSON value for a tool whose answer is not
//! typed yet), and a planned answer beside it for a tool that can store a plan. Every
//! successful answer the tests get through `Server::call` is checked against its tool's
//! schema (`support::Server::conforms`); here, the declarations themselves, a few answers, and
//! that a check catches an answer that does not conform.

use serde_json::{Value, json};

use crate::support;

/// The tools whose answers are not typed yet, each with its reason. Every other tool's `data`
/// schema must be generated from the type its answer is written from.
const UNTYPED: &[(&str, &str)] = &[];

/// The files family's tools are typed by the change that builds the family out.
fn files_family() -> Vec<&'static str> {
    use governance::Family;
    tools::files::FilesFamily
        .tools()
        .iter()
        .map(|t| t.meta().name)
        .collect()
}

fn schema(s: &support::Server, tool: &str) -> Value {
    serde_json::to_value(s.host.definition(tool).unwrap()).unwrap()["outputSchema"].clone()
}

#[tokio::test]
async fn every_tool_declares_the_envelope_and_typed_tools_their_data() {
    let s = support::server_with(true).await;
    let mut untyped = Vec::new();
    for view in s.host.app.all_tools() {
        let name = view.meta.name;
        let out = schema(&s, name);
        assert_eq!(
            out["required"],
            json!(["summary", "data", "warnings", "next_action", "observed_at"]),
            "{name}"
        );
        let data = &out["properties"]["data"];
        let planned = view.meta.plan.is_some();
        let own = if planned {
            let options = data["anyOf"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {data}"));
            assert_eq!(options.len(), 2, "{name}: its data or a planned answer");
            assert_eq!(options[1]["$ref"], "#/$defs/PlannedData", "{name}");
            options[0].clone()
        } else {
            data.clone()
        };
        if own == json!({}) {
            untyped.push(name);
        }
    }
    let files = files_family();
    untyped.retain(|name| !files.contains(name));
    let mut exempt: Vec<&str> = UNTYPED.iter().map(|(name, _)| *name).collect();
    exempt.sort_unstable();
    untyped.sort_unstable();
    assert_eq!(
        untyped, exempt,
        "every tool outside the files family and the named exemptions declares typed data"
    );
}

#[tokio::test]
async fn answers_conform_and_a_check_catches_one_that_does_not() {
    let s = support::server().await;
    // `call` checks each answer against its tool's schema.
    let who = s.call(&s.owner_key, "whoami", json!({})).await;
    assert_eq!(who["isError"], false, "{who}");
    let activity = s
        .call(&s.owner_key, "get_activity", json!({"limit": 5}))
        .await;
    assert_eq!(activity["isError"], false, "{activity}");
    let requests = s.call(&s.owner_key, "list_requests", json!({})).await;
    assert_eq!(requests["isError"], false, "{requests}");

    let check = |tool: &str, content: &Value| {
        tools::contract::conform::conforms(&schema(&s, tool), content)
    };
    assert_eq!(check("whoami", &who["structuredContent"]), Ok(()));
    let mut wrong = who["structuredContent"].clone();
    wrong["data"]["person"]["role"] = json!("emperor");
    let e = check("whoami", &wrong).unwrap_err();
    assert!(e.contains("$.data.person.role"), "{e}");
    let mut wrong = activity["structuredContent"].clone();
    wrong["data"]["entries"] = json!("none");
    assert!(check("get_activity", &wrong).is_err());
    let mut wrong = requests["structuredContent"].clone();
    wrong.as_object_mut().unwrap().remove("observed_at");
    assert!(
        check("list_requests", &wrong)
            .unwrap_err()
            .contains("observed_at")
    );
}
