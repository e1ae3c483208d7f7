//! `plan_people`: plans linking the household's people to their users on the media servers
//! (what rows show whom, and whose watch history "because you watched" and continue-watching
//! read), or removing a link. Each user is checked on the server now. Nothing is saved on this
//! call: the owner approves the plan and `apply_change` saves the links, all of them.

use domain::{Capability, KindFamily, PersonId};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::Change;

use crate::media::servers;
use crate::saving::{self, Saves, Saving};
use governance::{
    Ctx, ErrorCode, Meta, Output, Tool, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

pub struct PlanPeople;

/// One link to make or remove.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkInput {
    /// The person, by name (list_people names them).
    #[schemars(length(min = 1, max = 64))]
    pub person: String,
    /// The media server.
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
    /// Their user on that server; omit to remove the link.
    #[schemars(length(min = 1, max = 128))]
    pub user: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// 1 to 20 links.
    #[schemars(length(min = 1, max = 20))]
    pub links: Vec<LinkInput>,
}

/// What an approved plan saves: (person id, name, instance, user or none, the link it found).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PeoplePlan {
    links: Vec<Link>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Link {
    person_id: i64,
    person: String,
    instance_id: String,
    user: Option<String>,
    /// The user it was linked to when planned.
    was: Option<String>,
}

/// What an applied plan answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Linked {
    /// How many links were made or changed, and removed.
    pub linked: usize,
    pub unlinked: usize,
}

pub(crate) const PEOPLE: Saving<PeopleSaves> = Saving::new();

#[derive(Debug)]
pub(crate) struct PeopleSaves;

async fn link_of(ctx: &Ctx, person: PersonId, instance: &str) -> Result<Option<String>, ToolError> {
    Ok(ctx
        .store()
        .media_links(person)
        .await?
        .into_iter()
        .find(|l| l.instance_id == instance)
        .map(|l| l.user_name))
}

impl Saves for PeopleSaves {
    type Plan = PeoplePlan;
    const WHAT: &'static str = "media links";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a PeoplePlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let mut deps = Dependencies::new();
            for l in &plan.links {
                let now = match ctx.store().person(PersonId(l.person_id)).await? {
                    Some(p) if p.name == l.person => link_of(ctx, p.id, &l.instance_id)
                        .await?
                        .unwrap_or_else(|| "unlinked".into()),
                    _ => "gone".into(),
                };
                deps.insert(format!("link:{}:{}", l.person_id, l.instance_id), now);
            }
            Ok(deps)
        })
    }

    fn save<'a>(
        ctx: &'a Ctx,
        _change: &'a Change,
        plan: PeoplePlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let (mut linked, mut unlinked) = (0, 0);
            for l in &plan.links {
                let person = PersonId(l.person_id);
                match &l.user {
                    Some(user) => {
                        ctx.store()
                            .link_media_user(person, &l.instance_id, user)
                            .await?;
                        linked += 1;
                    }
                    None => {
                        ctx.store()
                            .unlink_media_user(person, &l.instance_id)
                            .await?;
                        unlinked += 1;
                    }
                }
            }
            Output::typed(
                format!("{linked} link(s) saved, {unlinked} removed."),
                &Linked { linked, unlinked },
            )
        })
    }

    fn describe(plan: &PeoplePlan) -> PlanView {
        let column = |header, look, wide| PlanColumn { header, look, wide };
        PlanView {
            effect: format!(
                "Links {} of the household's people to their users on the media servers (what rows show them, whose watch history is read).",
                plan.links.len()
            ),
            tables: vec![PlanTable {
                id: "links",
                title: "Media-server users",
                columns: vec![
                    column("Person", Look::Text, false),
                    column("Media server", Look::Text, false),
                    column("Now", Look::Old, false),
                    column("After", Look::New, false),
                ],
                rows: plan
                    .links
                    .iter()
                    .map(|l| {
                        vec![
                            l.person.clone(),
                            l.instance_id.clone(),
                            l.was.clone().unwrap_or_else(|| "not linked".into()),
                            l.user.clone().unwrap_or_else(|| "not linked".into()),
                        ]
                    })
                    .collect(),
            }],
        }
    }
}

impl Tool for PlanPeople {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Linked>);
    const META: Meta = Meta {
        name: "plan_people",
        title: "Plan the household's media-server users",
        description: "Plans linking people (by name) to their user on a media server, or removing a link (user omitted): 1 to 20 links. Each user is checked on the server now; a person or server named twice is refused. Nothing is saved on this call: the answer is a change_id for the owner to review, then apply_change saves every link.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&PEOPLE),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if !ctx.caller.scope.household {
            return Err(ToolError::denied(
                "only an admin may link the household's people",
            ));
        }
        let all = servers(ctx);
        let mut links: Vec<Link> = Vec::with_capacity(input.links.len());
        for (i, l) in input.links.iter().enumerate() {
            let n = i + 1;
            let person = ctx
                .store()
                .person_by_name(&l.person)
                .await?
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "link {n}: no person named \"{}\"; list_people names them",
                        l.person
                    ))
                })?;
            if links
                .iter()
                .any(|x| x.person_id == person.id.0 && x.instance_id == l.instance_id)
            {
                return Err(ToolError::invalid(format!(
                    "link {n}: {} on {} is named twice",
                    l.person, l.instance_id
                )));
            }
            let server = all.by_id(&l.instance_id).ok_or_else(|| {
                ToolError::invalid(format!(
                    "link {n}: {} is not a media server; list_instances names them",
                    l.instance_id
                ))
            })?;
            ctx.authorize(&l.instance_id)?;
            if let Some(user) = &l.user {
                let client = server
                    .client()
                    .map_err(|why| ToolError::new(ErrorCode::BackendUnavailable, why))?;
                let users = client.users().await.map_err(|e| {
                    ToolError::new(ErrorCode::BackendUnavailable, server.failure(&e))
                })?;
                if !users.iter().any(|u| u == user) {
                    return Err(ToolError::invalid(format!(
                        "link {n}: {} has no user \"{user}\"; its users: {}",
                        l.instance_id,
                        users.join(", ")
                    )));
                }
            }
            let was = link_of(ctx, person.id, &l.instance_id).await?;
            links.push(Link {
                person_id: person.id.0,
                person: person.name,
                instance_id: l.instance_id.clone(),
                user: l.user.clone(),
                was,
            });
        }
        let summary = format!(
            "link {} media-server user{}",
            links.len(),
            if links.len() == 1 { "" } else { "s" }
        );
        saving::propose::<PeopleSaves>(ctx, Self::META, summary, &PeoplePlan { links }).await
    }
}
