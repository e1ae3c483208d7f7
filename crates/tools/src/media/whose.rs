//! Whose watch state a call reads: the caller's own, or (admins only) a person named; and which
//! media-server user that person is on each server (`marquee people link`). An unlinked person
//! is told how to link.

use governance::{Ctx, ToolError};
use store::MediaLink;

/// The person whose state is read, and their links to media-server users.
pub(crate) struct Whose {
    pub name: String,
    pub links: Vec<MediaLink>,
}

/// Resolves `person` (default: the caller). Anyone but oneself needs admin rights.
pub(crate) async fn whose(ctx: &Ctx, person: Option<&str>, what: &str) -> Result<Whose, ToolError> {
    let me = &ctx.caller.authority.person;
    let person = match person {
        None => me.clone(),
        Some(name) if name == me.name => me.clone(),
        Some(_) if !ctx.caller.scope.household => {
            return Err(ToolError::denied(format!(
                "only an admin may read someone else's {what}; leave person out for your own"
            )));
        }
        Some(name) => match ctx.store().person_by_name(name).await? {
            Some(p) => p,
            None => {
                let names: Vec<String> = ctx
                    .store()
                    .people()
                    .await?
                    .into_iter()
                    .map(|p| p.name)
                    .collect();
                return Err(ToolError::invalid(format!(
                    "unknown person \"{name}\"; people: {}",
                    names.join(", ")
                )));
            }
        },
    };
    let links = ctx.store().media_links(person.id).await?;
    Ok(Whose {
        name: person.name,
        links,
    })
}

/// The sentence an unlinked person gets.
pub(crate) fn how_to_link(name: &str, servers: &[String]) -> String {
    let example = servers.first().map_or("jellyfin", String::as_str);
    format!(
        "{name} is not linked to a user on any media server, so there is nothing to show. The owner links them with `marquee people link {name} --instance {example} --user <their user on that server>`{}",
        if servers.is_empty() {
            " once a media server (jellyfin, emby or plex) is configured.".to_string()
        } else {
            format!(" (media servers: {}).", servers.join(", "))
        }
    )
}
