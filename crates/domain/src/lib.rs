//! Marquee's vocabulary: the nouns every other crate shares. No IO, no async, no policy.

mod allowance;
mod capability;
mod instance;
mod media;
mod person;
mod secret;
mod torrent;

pub use allowance::{AllowanceError, AllowanceKind, AllowanceRule, MAX_ALLOWANCE_DAYS};
pub use capability::{CORE_GROUP, Capability, CapabilityError, Preset, TOOL_GROUPS};
pub use instance::{FolderMedia, FolderRole, InstanceError, InstanceId, InstanceKind, KindFamily};
pub use media::{MediaError, MediaId, MediaSource, MediaType};
pub use person::{PersonError, PersonId, Role};
pub use secret::Secret;
pub use torrent::{InfoHash, InfoHashError};

#[cfg(test)]
mod tests {
    use std::{fmt::Debug, str::FromStr};

    use serde::{Serialize, de::DeserializeOwned};

    use super::*;

    /// The names of `all`, in order, after checking that serde, `Display`, `as_str` (through
    /// `Into<&str>`) and `FromStr` spell and read each one the same.
    fn names<T>(all: &[T]) -> String
    where
        T: Copy + Debug + PartialEq + Serialize + DeserializeOwned + FromStr + std::fmt::Display,
        T: Into<&'static str>,
        T::Err: Debug,
    {
        let mut out = Vec::new();
        for &v in all {
            let name: &'static str = v.into();
            assert_eq!(serde_json::to_value(v).unwrap(), name, "{v:?}");
            assert_eq!(serde_json::from_value::<T>(name.into()).unwrap(), v);
            assert_eq!(v.to_string(), name);
            assert_eq!(name.parse::<T>().unwrap(), v);
            out.push(name);
        }
        out.join(", ")
    }

    #[test]
    fn closed_sets_are_spelled_alike_everywhere_and_listed_in_order() {
        assert_eq!(
            names(&Capability::ALL),
            "discover, request, requests.manage, library.read, library.write, downloads.read, \
             downloads.write, files.read, files.write, settings.read, settings.write, destructive, \
             destructive.direct, automation, federated, audit.read, indexers.search, media.read, \
             media.sessions, subtitles.read, subtitles.write, shortlists"
        );
        assert_eq!(
            names(&AllowanceKind::ALL),
            "adds, grabs, searches, destructive, federated_writes"
        );
        assert_eq!(
            names(&InstanceKind::ALL),
            "builtin, tmdb, musicbrainz, radarr, sonarr, lidarr, readarr, qbittorrent, \
             transmission, folder, mcp, prowlarr, torznab, jellyfin, emby, plex, opensubtitles, bazarr, \
             tvdb, anilist, lrclib"
        );
        assert_eq!(
            names(&MediaSource::ALL),
            "builtin, tmdb, imdb, tvdb, musicbrainz, goodreads, anilist, myanimelist, lrclib"
        );
        assert_eq!(names(&MediaType::ALL), "movie, tv, music, book");
        assert_eq!(names(&Role::ALL), "owner, admin, user, kid");
        let presets: Vec<&str> = Preset::ALL.map(Preset::name).to_vec();
        assert_eq!(presets, ["reader", "requester", "operator", "admin"]);
        assert_eq!(Preset::from_name("operator"), Some(Preset::Operator));
        assert_eq!(Preset::from_name("Operator"), None);
    }

    #[test]
    fn unknown_names_are_refused_with_the_valid_ones() {
        let refusals = [
            "Discover".parse::<Capability>().unwrap_err().to_string(),
            "hugs".parse::<AllowanceKind>().unwrap_err().to_string(),
            "kodi".parse::<InstanceKind>().unwrap_err().to_string(),
            "trakt".parse::<MediaSource>().unwrap_err().to_string(),
            "film".parse::<MediaType>().unwrap_err().to_string(),
            "guest".parse::<Role>().unwrap_err().to_string(),
        ];
        assert_eq!(
            refusals,
            [
                "unknown capability \"Discover\"; valid capabilities: discover, request, \
                 requests.manage, library.read, library.write, downloads.read, downloads.write, \
                 files.read, files.write, settings.read, settings.write, destructive, destructive.direct, automation, \
                 federated, audit.read, indexers.search, media.read, media.sessions, subtitles.read, \
                 subtitles.write, shortlists",
                "unknown allowance kind \"hugs\"; valid kinds: adds, grabs, searches, destructive, federated_writes",
                "unknown instance kind \"kodi\"; valid kinds: builtin, tmdb, musicbrainz, radarr, \
                 sonarr, lidarr, readarr, qbittorrent, transmission, folder, mcp, prowlarr, torznab, jellyfin, emby, plex, opensubtitles, bazarr, \
             tvdb, anilist, lrclib",
                "unknown media_source \"trakt\"; valid sources: builtin, tmdb, imdb, tvdb, \
                 musicbrainz, goodreads, anilist, myanimelist, lrclib",
                "unknown media_type \"film\"; valid types: movie, tv, music, book",
                "unknown role \"guest\"; valid roles: owner, admin, user, kid",
            ]
        );
    }
}
