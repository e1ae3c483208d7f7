//! Music files' own tags (ID3, Vorbis comments, MP4 atoms, APE...), read with `lofty` from a
//! file already opened beneath its root: artist, album, album artist, track, disc, title, year
//! and the duration. Cover art is not read. Blocking: call it where blocking is fine (a
//! blocking task of the scan).

use std::io::{Read, Seek};

use lofty::{
    config::ParseOptions,
    file::{AudioFile, TaggedFileExt},
    probe::Probe,
    tag::{Accessor, ItemKey},
};

/// What a music file's tags say.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MusicTags {
    pub artist: Option<String>,
    pub album: Option<String>,
    pub album_artist: Option<String>,
    pub track: Option<u32>,
    pub disc: Option<u32>,
    pub title: Option<String>,
    pub year: Option<u32>,
    /// The audio's length, from its properties (not a tag).
    pub duration_seconds: Option<f64>,
}

impl MusicTags {
    /// Nothing a person would recognise the file by.
    pub fn is_empty(&self) -> bool {
        self.artist.is_none() && self.album.is_none() && self.title.is_none()
    }
}

/// The tags of the opened `file`, or `None` when it is not an audio file lofty reads, or it
/// has no artist, album or title. The file is read from its start.
pub fn music_tags<R: Read + Seek>(file: R) -> Option<MusicTags> {
    let mut options = ParseOptions::new();
    options = options.read_cover_art(false);
    let tagged = Probe::new(std::io::BufReader::new(file))
        .options(options)
        .guess_file_type()
        .ok()?
        .read()
        .ok()?;
    let duration = tagged.properties().duration().as_secs_f64();
    let tag = tagged.primary_tag().or_else(|| tagged.first_tag())?;
    let text = |s: Option<std::borrow::Cow<'_, str>>| {
        s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
    };
    let tags = MusicTags {
        artist: text(tag.artist()),
        album: text(tag.album()),
        album_artist: text(tag.get_string(&ItemKey::AlbumArtist).map(Into::into)),
        // "3/9" (number and total in one item) is read as 3.
        track: tag
            .track()
            .or_else(|| leading(tag.get_string(&ItemKey::TrackNumber))),
        disc: tag
            .disk()
            .or_else(|| leading(tag.get_string(&ItemKey::DiscNumber))),
        title: text(tag.title()),
        year: tag.year(),
        duration_seconds: (duration > 0.0).then_some(duration),
    };
    (!tags.is_empty()).then_some(tags)
}

/// The number before a `/` in "1/2".
fn leading(text: Option<&str>) -> Option<u32> {
    text?.split('/').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// Makes a 1.5 s tagged audio file with Debian's ffmpeg; `None` (with the reason
    /// printed) where ffmpeg is missing: scripts/test.sh installs it.
    fn tagged(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
        let out = dir.join(name);
        let made = Command::new("ffmpeg")
            .args(["-y", "-hide_banner", "-loglevel", "error", "-f", "lavfi"])
            .args(["-i", "sine=frequency=440:duration=1.5:sample_rate=44100"])
            .args([
                "-metadata",
                "artist=Nina Simone",
                "-metadata",
                "album=Pastel Blues",
            ])
            .args(["-metadata", "album_artist=Nina Simone & Co"])
            .args(["-metadata", "title=Sinnerman", "-metadata", "track=3/9"])
            .args(["-metadata", "disc=1/2", "-metadata", "date=1965"])
            .arg(&out)
            .status();
        match made {
            Ok(s) if s.success() => Some(out),
            Ok(s) => panic!("ffmpeg failed ({s}) making {name}"),
            Err(e) => {
                println!("skipped: ffmpeg (Debian package ffmpeg) cannot run here: {e}");
                None
            }
        }
    }

    #[test]
    fn mp3_and_flac_tags_are_read() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["song.mp3", "song.flac"] {
            let Some(path) = tagged(dir.path(), name) else {
                return;
            };
            let tags = music_tags(std::fs::File::open(&path).unwrap()).unwrap();
            let duration = tags.duration_seconds.unwrap();
            assert!((1.3..1.7).contains(&duration), "{name}: {duration}");
            assert_eq!(
                tags,
                MusicTags {
                    artist: Some("Nina Simone".into()),
                    album: Some("Pastel Blues".into()),
                    album_artist: Some("Nina Simone & Co".into()),
                    track: Some(3),
                    disc: Some(1),
                    title: Some("Sinnerman".into()),
                    year: Some(1965),
                    duration_seconds: Some(duration),
                },
                "{name}"
            );
        }
    }

    #[test]
    fn a_file_that_is_not_audio_has_no_tags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.mp3");
        std::fs::write(&path, b"just some text, not an mp3 at all").unwrap();
        assert_eq!(music_tags(std::fs::File::open(&path).unwrap()), None);
    }
}
