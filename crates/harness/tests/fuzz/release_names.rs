//! The release-name parser: release names, file names and paths, broken at the byte level and
//! spliced with the tokens it reads (seasons, episodes, dates, qualities, codecs, groups,
//! brackets, separators). It answers a recognition for any text, never a panic.

use harness::run;

const NAMES: &[&str] = &[
    "Heat.1995.1080p.BluRay.x264-GROUP",
    "The.Expanse.S01E02.720p.WEB-DL.DD5.1.H.264-NTb.mkv",
    "Show.Name.S01-S03.COMPLETE.2160p.AMZN.WEB-DL.DDP5.1.HDR.HEVC-XYZ",
    "[SubGroup] Anime Title - 12 [1080p][ABCD1234].mkv",
    "Movies/Alien (1979)/Alien.1979.Directors.Cut.REMASTERED.2160p.UHD.BluRay.REMUX.HDR.HEVC.Atmos-FGT.mkv",
    "The.Daily.Show.2024.03.14.Guest.Name.1080p.WEB.h264-EDITH",
    "Artist - Album (2020) [FLAC 24-96]/01 - Track.flac",
    "a7f3c2e1b9d8.mkv",
    "Title.S02E05E06.MULTi.FRENCH.1080p.WEB.x265.10bit.AAC5.1-GRP",
];

const TOKENS: &[&[u8]] = &[
    b".",
    b"-",
    b" ",
    b"_",
    b"/",
    b"\\",
    b"[",
    b"]",
    b"(",
    b")",
    b"S01",
    b"E02",
    b"S01E01E02E03",
    b"1x02",
    b"2019",
    b"1995",
    b"2024.03.14",
    b"1080p",
    b"2160p",
    b"720p",
    b"x264",
    b"HEVC",
    b"10bit",
    b"DD5.1",
    b"Atmos",
    b"WEB-DL",
    b"BluRay",
    b"REMUX",
    b"MULTi",
    b"FRENCH",
    b"GROUP",
    b".mkv",
    b".nfo",
    b"COMPLETE",
    b"S01-S99",
    b"E999999999999",
    b"99999999999999999999",
    "é".as_bytes(),
    "日本語".as_bytes(),
    "\u{202e}".as_bytes(),
];

#[test]
fn release_names_are_read_or_left_unread() {
    run("release-names", 2000, |g| {
        let seed = g.pick(NAMES).as_bytes().to_vec();
        let bytes = g.mutate_bytes(&seed, TOKENS);
        let name = String::from_utf8_lossy(&bytes);
        let r = recognize::recognize(&name);
        if r.title.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(format!("an empty title for {name:?}"));
        }
        Ok(())
    })
    .assert_clean();
}
