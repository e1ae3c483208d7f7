//! Word lists and the seeded generator that `fake-qbittorrent`'s synthetic torrents are made of:
//! release names, sizes, tags and trackers by kind of media.

use super::{GB, MB};

/// splitmix64: small, fast, good enough for test data, identical on every platform.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn new(seed: u64, index: u64, salt: u64) -> Rng {
        let mut r = Rng(seed ^ salt ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next();
        r
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in [lo, hi): many small, few large, like real sizes.
    pub(crate) fn log_between(&mut self, lo: f64, hi: f64) -> f64 {
        lo * (hi / lo).powf(self.unit())
    }

    pub(crate) fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    pub(crate) fn weighted<'a, T>(&mut self, xs: &'a [(u64, T)]) -> &'a T {
        let total: u64 = xs.iter().map(|(w, _)| w).sum();
        let mut n = self.below(total);
        for (w, x) in xs {
            if n < *w {
                return x;
            }
            n -= w;
        }
        &xs[xs.len() - 1].1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Movie,
    Movie4k,
    Tv,
    Music,
    Book,
    Other,
}

/// (weight, kind, category); "" is no category.
pub(crate) const KINDS: [(u64, (Kind, &str)); 6] = [
    (30, (Kind::Movie, "movies")),
    (5, (Kind::Movie4k, "radarr-4k")),
    (40, (Kind::Tv, "tv")),
    (10, (Kind::Music, "music")),
    (5, (Kind::Book, "books")),
    (10, (Kind::Other, "")),
];

/// Every tag some torrent carries.
pub const TAGS: [&str; 9] = [
    "radarr",
    "sonarr",
    "lidarr",
    "readarr",
    "cross-seed",
    "4k",
    "keep",
    "flac",
    "linux",
];

/// qBittorrent 4.x state strings, weighted like a seedbox's list: mostly seeding.
pub(crate) const STATES: [(u64, &str); 16] = [
    (40, "stalledUP"),
    (12, "uploading"),
    (12, "pausedUP"),
    (2, "forcedUP"),
    (3, "queuedUP"),
    (1, "checkingUP"),
    (7, "downloading"),
    (5, "stalledDL"),
    (6, "pausedDL"),
    (4, "queuedDL"),
    (1, "metaDL"),
    (1, "forcedDL"),
    (1, "checkingDL"),
    (1, "error"),
    (1, "missingFiles"),
    (1, "moving"),
];

pub(crate) const FILMS: [&str; 32] = [
    "Heat",
    "The.Matrix",
    "Blade.Runner",
    "Alien",
    "Casablanca",
    "Vertigo",
    "The.Godfather",
    "Chinatown",
    "Seven.Samurai",
    "Arrival",
    "Dune.Part.Two",
    "Oppenheimer",
    "Past.Lives",
    "Parasite",
    "Spirited.Away",
    "No.Country.for.Old.Men",
    "Mad.Max.Fury.Road",
    "The.Thing",
    "Paris.Texas",
    "Amelie",
    "Rear.Window",
    "Jaws",
    "Heat.and.Dust",
    "The.Third.Man",
    "Stalker",
    "Moonlight",
    "Whiplash",
    "Drive",
    "Prisoners",
    "Sicario",
    "Zodiac",
    "Le.Samourai",
];
pub(crate) const SHOWS: [&str; 24] = [
    "The.Expanse",
    "Severance",
    "Arcane",
    "Andor",
    "Fallout",
    "Shogun",
    "The.Bear",
    "Slow.Horses",
    "Foundation",
    "Silo",
    "Succession",
    "Better.Call.Saul",
    "Dark",
    "Fargo",
    "Chernobyl",
    "The.Wire",
    "Mr.Robot",
    "Mindhunter",
    "Station.Eleven",
    "Reservation.Dogs",
    "Detectorists",
    "Mare.of.Easttown",
    "The.Leftovers",
    "Halt.and.Catch.Fire",
];
pub(crate) const GROUPS: [&str; 12] = [
    "NTb",
    "FLUX",
    "CMRG",
    "SMURF",
    "EDITH",
    "TOMMY",
    "HONE",
    "FraMeSToR",
    "W4NK3R",
    "playWEB",
    "EPSiLON",
    "KOGi",
];
pub(crate) const ARTISTS: [&str; 16] = [
    "Radiohead",
    "Bjork",
    "Miles Davis",
    "Aphex Twin",
    "Kate Bush",
    "Nina Simone",
    "Daft Punk",
    "Portishead",
    "Talk Talk",
    "Boards of Canada",
    "Joni Mitchell",
    "Massive Attack",
    "Sufjan Stevens",
    "Fleetwood Mac",
    "Kraftwerk",
    "Cocteau Twins",
];
pub(crate) const ALBUMS: [&str; 12] = [
    "Live at the BBC",
    "Remastered Collection",
    "Greatest Hits",
    "Sessions",
    "Deluxe Edition",
    "Early Works",
    "Rarities",
    "Anthology",
    "Demos",
    "Live in Montreux",
    "B-Sides",
    "The Album",
];
pub(crate) const AUTHORS: [&str; 10] = [
    "Ursula K. Le Guin",
    "Terry Pratchett",
    "Octavia E. Butler",
    "Iain M. Banks",
    "N. K. Jemisin",
    "Ted Chiang",
    "Jane Austen",
    "Haruki Murakami",
    "Kazuo Ishiguro",
    "Agatha Christie",
];
pub(crate) const BOOKS: [&str; 10] = [
    "Collected Stories",
    "The Complete Novels",
    "Omnibus",
    "Selected Essays",
    "The Early Years",
    "Box Set",
    "Short Fiction",
    "Letters",
    "The Annotated Edition",
    "Notebooks",
];
pub(crate) const ISOS: [&str; 8] = [
    "ubuntu-24.04.1-desktop-amd64.iso",
    "ubuntu-22.04.5-live-server-amd64.iso",
    "debian-12.7.0-amd64-netinst.iso",
    "debian-live-12.7.0-amd64-kde.iso",
    "archlinux-2024.09.01-x86_64.iso",
    "Fedora-Workstation-Live-x86_64-40-1.14.iso",
    "linuxmint-22-cinnamon-64bit.iso",
    "FreeBSD-14.1-RELEASE-amd64-dvd1.iso",
];
/// Private trackers by kind, and the public ones of the "other" torrents (hosts are fictional).
pub(crate) const VIDEO_TRACKERS: [&str; 5] = [
    "tracker.cinephile.example",
    "tracker.hdbits.example",
    "tracker.episodes.example",
    "tracker.leech.example",
    "tracker.ipt.example",
];
pub(crate) const MUSIC_TRACKERS: [&str; 2] =
    ["tracker.lossless.example", "tracker.orpheus.example"];
pub(crate) const BOOK_TRACKERS: [&str; 1] = ["tracker.library.example"];
pub(crate) const PUBLIC_TRACKERS: [&str; 4] = [
    "udp://tracker.opentrackr.org:1337/announce",
    "udp://open.stealth.si:80/announce",
    "https://torrent.ubuntu.com/announce",
    "udp://tracker.torrent.eu.org:451/announce",
];
/// What a tracker that does not work says, by class: unregistered, auth, unreachable, rate limit.
pub(crate) const TRACKER_MESSAGES: [&str; 6] = [
    "Unregistered torrent",
    "Torrent not registered with this tracker",
    "Passkey not found",
    "Connection timed out",
    "Host not found (authoritative)",
    "You are announcing too fast, slow down",
];

/// A release name, its total size and its files, by kind.
pub(crate) fn release(r: &mut Rng, kind: Kind) -> (String, u64, Vec<(String, u64)>) {
    let group = *r.pick(&GROUPS);
    match kind {
        Kind::Movie | Kind::Movie4k => {
            let title = *r.pick(&FILMS);
            let year = 1950 + r.below(75);
            let (res, lo, hi) = if kind == Kind::Movie4k {
                ("2160p.UHD.BluRay.DV.HDR.TrueHD.Atmos.7.1.HEVC", 15.0, 80.0)
            } else {
                *r.pick(&[
                    ("1080p.BluRay.DTS-HD.MA.5.1.x264", 6.0, 18.0),
                    ("1080p.WEB-DL.DDP5.1.H.264", 3.0, 9.0),
                    ("720p.BluRay.DD5.1.x264", 1.0, 6.0),
                    ("2160p.WEB-DL.DDP5.1.DV.HDR.H.265", 10.0, 25.0),
                ])
            };
            let name = format!("{title}.{year}.{res}-{group}");
            let size = (r.log_between(lo, hi) * GB) as u64;
            let files = vec![
                (format!("{name}/{name}.mkv"), size - 4096),
                (format!("{name}/{name}.nfo"), 4096),
            ];
            (name, size, files)
        }
        Kind::Tv => {
            let show = *r.pick(&SHOWS);
            let season = 1 + r.below(8);
            let res = *r.pick(&["1080p", "2160p", "720p"]);
            if r.below(100) < 15 {
                let episodes = 6 + r.below(7);
                let name = format!("{show}.S{season:02}.{res}.WEB-DL.DDP5.1.H.264-{group}");
                let each = (r.log_between(0.5, 4.0) * GB) as u64;
                let files = (1..=episodes)
                    .map(|e| {
                        (
                            format!("{name}/{show}.S{season:02}E{e:02}.{res}.WEB-DL.DDP5.1.H.264-{group}.mkv"),
                            each,
                        )
                    })
                    .collect();
                (name, each * episodes, files)
            } else {
                let episode = 1 + r.below(16);
                let name =
                    format!("{show}.S{season:02}E{episode:02}.{res}.WEB-DL.DDP5.1.H.264-{group}");
                let size = (r.log_between(0.3, 5.0) * GB) as u64;
                (name.clone(), size, vec![(format!("{name}.mkv"), size)])
            }
        }
        Kind::Music => {
            let artist = *r.pick(&ARTISTS);
            let album = *r.pick(&ALBUMS);
            let year = 1965 + r.below(60);
            let (format, per_track) = *r.pick(&[
                ("FLAC 24-96", 120.0),
                ("FLAC", 35.0),
                ("MP3 320", 12.0),
                ("FLAC 24-192", 250.0),
            ]);
            let name = format!("{artist} - {album} ({year}) [{format}]");
            let tracks = 8 + r.below(9);
            let ext = if format.starts_with("MP3") {
                "mp3"
            } else {
                "flac"
            };
            let mut files: Vec<(String, u64)> = (1..=tracks)
                .map(|t| {
                    (
                        format!("{name}/{t:02} - Track {t}.{ext}"),
                        (per_track * MB * (0.6 + r.unit())) as u64,
                    )
                })
                .collect();
            files.push((format!("{name}/cover.jpg"), 2_400_000));
            let size = files.iter().map(|(_, s)| s).sum();
            (name, size, files)
        }
        Kind::Book => {
            let author = *r.pick(&AUTHORS);
            let title = *r.pick(&BOOKS);
            let ext = *r.pick(&["epub", "azw3", "pdf", "m4b"]);
            let name = format!("{author} - {title} (retail) ({ext})");
            let size = if ext == "m4b" {
                r.log_between(150.0 * MB, 1.5 * GB)
            } else {
                r.log_between(0.5 * MB, 80.0 * MB)
            } as u64;
            let files = vec![(format!("{name}/{title}.{ext}"), size)];
            (name, size, files)
        }
        Kind::Other => {
            let iso = *r.pick(&ISOS);
            let size = (r.log_between(0.4, 6.0) * GB) as u64;
            (iso.to_string(), size, vec![(iso.to_string(), size)])
        }
    }
}

/// qBittorrent's tag list: names joined by ", ".
pub(crate) fn tags(r: &mut Rng, kind: Kind) -> String {
    let choices: &[&str] = match kind {
        Kind::Movie => &["radarr", "radarr", "radarr, cross-seed", "", "keep"],
        Kind::Movie4k => &["radarr, 4k", "4k", "4k, keep"],
        Kind::Tv => &["sonarr", "sonarr", "sonarr, cross-seed", "sonarr, 4k", ""],
        Kind::Music => &["lidarr, flac", "flac", "lidarr", ""],
        Kind::Book => &["readarr", "", "keep"],
        Kind::Other => &["linux", "", "keep, linux"],
    };
    r.pick(choices).to_string()
}

/// Whether the torrent is private, and its announce URLs (private: one, with a passkey).
pub(crate) fn trackers(r: &mut Rng, kind: Kind) -> (bool, Vec<String>) {
    let private_hosts: &[&str] = match kind {
        Kind::Movie | Kind::Movie4k | Kind::Tv => &VIDEO_TRACKERS,
        Kind::Music => &MUSIC_TRACKERS,
        Kind::Book => &BOOK_TRACKERS,
        Kind::Other => &[],
    };
    if private_hosts.is_empty() || r.below(100) < 8 {
        let n = 2 + r.below(3) as usize;
        let first = r.below(PUBLIC_TRACKERS.len() as u64) as usize;
        let urls = (0..n)
            .map(|k| PUBLIC_TRACKERS[(first + k) % PUBLIC_TRACKERS.len()].to_string())
            .collect();
        return (false, urls);
    }
    let host = *r.pick(private_hosts);
    // One account per tracker: the passkey depends on the host only.
    let passkey: String = host
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        })
        .to_le_bytes()
        .iter()
        .chain(host.len().to_le_bytes().iter())
        .map(|b| format!("{b:02x}"))
        .collect();
    (true, vec![format!("https://{host}/announce/{passkey}")])
}
