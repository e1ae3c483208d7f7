//! Media servers: Jellyfin, Emby and Plex behind one client. A shared core does what the three
//! have in common (the token header, timeouts, no redirects, tokens scrubbed from answers,
//! errors without query strings or bodies); `jellyfin.rs` (Jellyfin and Emby) and `plex.rs` do
//! what differs in reading; `collections.rs` and `playlists.rs` are the writes: collections and
//! playlists, their items, order and poster.
//! Knows nothing of MCP, SQL or permissions.

mod collections;
mod core;
mod error;
mod jellyfin;
mod model;
mod playlists;
mod plex;

use domain::Secret;

use crate::core::Core;
pub use crate::{
    collections::{Library, Order},
    error::Error,
    model::{ItemKind, ItemPage, MediaItem, Progress, ProviderIds, ServerUser, Session},
    playlists::Entry,
};

/// Items asked for per page while reading a whole library.
pub const PAGE_SIZE: u64 = 1000;
/// The most items a whole-library read collects before it gives up.
const MAX_ITEMS: u64 = 2_000_000;

/// Which server software an instance runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    Jellyfin,
    Emby,
    Plex,
}

/// One media server instance's client: reads, and the collection writes of `collections.rs`.
pub struct MediaClient {
    server: Server,
    core: Core,
    /// Plex: managed users' own tokens, by the user name the config gives them.
    users: Vec<(String, Secret)>,
}

impl MediaClient {
    /// A client with the instance's token; `users` are Plex managed users' tokens (ignored by
    /// Jellyfin and Emby, which answer any user's state to the admin token).
    pub fn new(
        server: Server,
        base: url::Url,
        token: Secret,
        users: Vec<(String, Secret)>,
        timeouts: httpx::Timeouts,
    ) -> Result<MediaClient, Error> {
        let others: Vec<Secret> = users.iter().map(|(_, s)| s.clone()).collect();
        Ok(MediaClient {
            server,
            core: Core::new(server, base, token, &others, timeouts)?,
            users,
        })
    }

    pub fn server(&self) -> Server {
        self.server
    }

    /// Whether the server answers and accepts the token: a sentence naming its version.
    pub async fn status(&self) -> Result<String, Error> {
        match self.server {
            Server::Plex => plex::status(&self.core).await,
            _ => jellyfin::status(&self.core).await,
        }
    }

    /// Every movie, show and episode, read page by page. A page that comes back short of what
    /// the server promised is [`Error::Incomplete`], never a shorter list.
    pub async fn all_items(&self) -> Result<Vec<MediaItem>, Error> {
        match self.server {
            Server::Plex => {
                let mut out = Vec::new();
                for (section, kind) in plex::sections(&self.core).await? {
                    let mut start = 0;
                    loop {
                        let page =
                            plex::section_items(&self.core, &section, kind, start, PAGE_SIZE)
                                .await?;
                        if !take(&mut out, &mut start, page)? {
                            break;
                        }
                    }
                }
                Ok(out)
            }
            _ => {
                let mut out = Vec::new();
                let mut start = 0;
                loop {
                    let page = jellyfin::items(&self.core, self.server, start, PAGE_SIZE).await?;
                    if !take(&mut out, &mut start, page)? {
                        return Ok(out);
                    }
                }
            }
        }
    }

    /// The user's items under way (a movie or episode started and not finished), most recent
    /// first. `user` is the server's user name.
    pub async fn continue_watching(&self, user: &str, limit: u32) -> Result<Vec<Progress>, Error> {
        match self.server {
            Server::Plex => plex::resume(&self.core, self.plex_token(user)?, limit).await,
            server => {
                let id = self.user_id(user).await?;
                jellyfin::resume(&self.core, server, &id, limit).await
            }
        }
    }

    /// What the user watched, most recent first.
    pub async fn history(&self, user: &str, limit: u32) -> Result<Vec<Progress>, Error> {
        match self.server {
            Server::Plex => plex::history(&self.core, self.plex_token(user)?, limit).await,
            server => {
                let id = self.user_id(user).await?;
                jellyfin::history(&self.core, server, &id, limit).await
            }
        }
    }

    /// Playbacks under way: who watches what, on which device, transcoded or not.
    pub async fn sessions(&self) -> Result<Vec<Session>, Error> {
        match self.server {
            Server::Plex => plex::sessions(&self.core).await,
            _ => jellyfin::sessions(&self.core).await,
        }
    }

    /// The server's user names (Plex: the managed users the config gives tokens for).
    pub async fn users(&self) -> Result<Vec<String>, Error> {
        match self.server {
            Server::Plex => Ok(self.users.iter().map(|(n, _)| n.clone()).collect()),
            _ => Ok(jellyfin::users(&self.core)
                .await?
                .into_iter()
                .map(|u| u.name)
                .collect()),
        }
    }

    /// A Jellyfin or Emby user's id, by name (names compare case-insensitively, as the servers
    /// do at sign-in).
    pub(crate) async fn user_id(&self, name: &str) -> Result<String, Error> {
        let users = jellyfin::users(&self.core).await?;
        match users.iter().find(|u| u.name.eq_ignore_ascii_case(name)) {
            Some(u) => Ok(u.id.clone()),
            None => Err(Error::UnknownUser(format!(
                "the server has no user \"{name}\"; its users: {}",
                users
                    .iter()
                    .map(|u| u.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    pub(crate) fn plex_token(&self, name: &str) -> Result<&Secret, Error> {
        self.users
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, t)| t)
            .ok_or_else(|| {
                Error::UnknownUser(format!(
                    "no token is configured for the Plex user \"{name}\"; add it under the instance's user_tokens (its users: {})",
                    self.users
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }
}

/// Adds a page to `out`; whether another page is to be read.
fn take(out: &mut Vec<MediaItem>, start: &mut u64, page: ItemPage) -> Result<bool, Error> {
    let n = page.read;
    *start += n;
    out.extend(page.items);
    if *start >= page.total {
        return Ok(false);
    }
    if n == 0 || *start >= MAX_ITEMS {
        return Err(Error::Incomplete {
            what: "the library",
            total: page.total,
            read: *start,
        });
    }
    Ok(true)
}
