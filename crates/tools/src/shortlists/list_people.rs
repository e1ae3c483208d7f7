//! `list_people`: the household's people as rows see them: each one's role, whether content
//! limits bound what rows show them (and which), the media-server user they are on each server
//! the caller's grant reaches, and the rows they are in the audience of. Someone who may not
//! see the household sees only themselves.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListPeople;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// One person.
#[derive(Serialize, JsonSchema)]
pub(crate) struct PersonView {
    pub person_id: i64,
    pub name: String,
    /// owner, admin, user or kid.
    pub role: String,
    /// Content limits that bound what rows show them (e.g. "movies up to PG"); empty: none.
    pub limits: Vec<String>,
    /// Their user on each media server (plan_people links them).
    pub media_users: Vec<MediaUser>,
    /// The rows they are in the audience of, by id (a row for the whole household counts too).
    pub row_ids: Vec<i64>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct MediaUser {
    pub instance_id: String,
    pub user: String,
}

#[derive(Serialize, JsonSchema)]
struct People {
    people: Vec<PersonView>,
}

fn limits_of(l: &store::ContentLimits) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = &l.max_movie_cert {
        out.push(format!("movies up to {c}"));
    }
    if let Some(r) = &l.max_tv_rating {
        out.push(format!("shows up to {r}"));
    }
    if l.block_unrated {
        out.push("no unrated titles".into());
    }
    if !l.blocked_genres.is_empty() {
        out.push(format!("no {}", l.blocked_genres.join(", ")));
    }
    out
}

impl Tool for ListPeople {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<People>);
    const META: Meta = Meta {
        name: "list_people",
        title: "List the household's people",
        description: "Lists the household's people as shortlist rows see them: each one's person_id, name, role, the content limits that bound what rows show them, their user on each media server your grant reaches (plan_people links them), and the row_ids whose audience they are in. Rows name their audience by these names.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let store = ctx.store();
        let me = &ctx.caller.authority.person;
        let everyone = if ctx.caller.scope.household {
            store.people().await?
        } else {
            vec![me.clone()]
        };
        let rows = store.shortlist_rows().await?;
        let mut people = Vec::with_capacity(everyone.len());
        for p in everyone {
            let media_users = store
                .media_links(p.id)
                .await?
                .into_iter()
                .filter(|l| ctx.covers(&l.instance_id))
                .map(|l| MediaUser {
                    instance_id: l.instance_id,
                    user: l.user_name,
                })
                .collect();
            let row_ids = rows
                .iter()
                .filter(|r| ctx.covers(&r.instance_id))
                .filter(|r| r.audience.is_empty() || r.audience.contains(&p.id))
                .map(|r| r.id)
                .collect();
            people.push(PersonView {
                person_id: p.id.0,
                name: p.name,
                role: p.role.as_str().to_owned(),
                limits: limits_of(&p.limits),
                media_users,
                row_ids,
            });
        }
        let summary = match people.len() {
            1 => "1 person.".to_owned(),
            n => format!("{n} people."),
        };
        Output::typed(summary, &People { people })
    }
}
