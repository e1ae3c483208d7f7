//! The household at a glance: people and their content limits, grants with their
//! capabilities, instances and allowances, keys (never their secrets), tool switches and
//! the configured instances and who is whom on the media servers, with forms for a new key, a
//! tool switch and a media-server link (`household_forms`).

use askama::Template;
use axum::{
    http::HeaderMap,
    response::{IntoResponse, Response},
};

use super::{PageState, host, owner, render, when};

#[derive(Template)]
#[template(path = "household.html")]
struct HouseholdPage {
    signed_in: bool,
    csrf: String,
    /// Every tool this build has, for the switch form.
    tools: Vec<&'static str>,
    people: Vec<[String; 3]>,
    grants: Vec<[String; 5]>,
    keys: Vec<[String; 5]>,
    switches: Vec<[String; 2]>,
    instances: Vec<[String; 3]>,
    /// Person, media server, user there.
    links: Vec<[String; 3]>,
    /// The configured media servers, for the link form.
    servers: Vec<String>,
}

pub(crate) async fn page(super::State(web): PageState, headers: HeaderMap) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let host = host(&web)?;
        let store = host.app.store();
        let everyone = store.people().await?;
        let mut links = Vec::new();
        for p in &everyone {
            for l in store.media_links(p.id).await? {
                links.push([p.name.clone(), l.instance_id, l.user_name]);
            }
        }
        let people = everyone
            .into_iter()
            .map(|p| {
                let limits = serde_json::to_string(&p.limits).unwrap_or_default();
                [p.name, p.role.to_string(), limits]
            })
            .collect();
        let grants = store
            .grants()
            .await?
            .into_iter()
            .map(|g| {
                let caps: Vec<String> = g.capabilities.iter().map(|c| c.to_string()).collect();
                [
                    g.name,
                    caps.join(", "),
                    g.instances.map_or("all".into(), |i| i.join(", ")),
                    serde_json::to_string(&g.allowances).unwrap_or_default(),
                    g.revision.to_string(),
                ]
            })
            .collect();
        let keys = store
            .keys()
            .await?
            .into_iter()
            .map(|k| {
                let state = match (k.revoked_at, k.last_used_at) {
                    (Some(at), _) => format!("revoked {}", when(at)),
                    (None, Some(at)) => format!("last used {}", when(at)),
                    (None, None) => "never used".into(),
                };
                [
                    k.key_id,
                    k.person,
                    k.grant,
                    super::shown(&k.label.unwrap_or_default()),
                    state,
                ]
            })
            .collect();
        let mut switches: Vec<[String; 2]> = store
            .tool_switches()
            .await?
            .all
            .iter()
            .map(|(tool, on)| [tool.clone(), if *on { "on" } else { "off" }.into()])
            .collect();
        switches.sort();
        let instances = host
            .app
            .instances()
            .all()
            .iter()
            .map(|i| {
                let place = i
                    .url
                    .as_ref()
                    // Scheme, host and port only: a URL's user part can hold a secret.
                    .map(|u| {
                        let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
                        format!(
                            "{}://{}{port}",
                            u.scheme(),
                            u.host_str().unwrap_or_default()
                        )
                    })
                    .or_else(|| i.path.clone())
                    .unwrap_or_default();
                [i.id.clone(), i.kind.to_string(), place]
            })
            .collect();
        render(&HouseholdPage {
            signed_in: true,
            csrf: session.csrf.clone(),
            tools: host.app.all_tools().iter().map(|t| t.meta.name).collect(),
            people,
            grants,
            keys,
            switches,
            instances,
            links,
            servers: host
                .app
                .instances()
                .ids_of(domain::KindFamily::MediaServers)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
