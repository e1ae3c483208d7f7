//! The known words of release names: each spelling (lowercase, its words joined without
//! separators, so `WEB-DL`, `web.dl` and `WEBDL` are one key) and what it says, with guessit's
//! property names and value spellings.

use std::{collections::HashMap, sync::OnceLock};

/// A property a word can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prop {
    ScreenSize,
    Source,
    VideoCodec,
    AudioCodec,
    AudioChannels,
    AudioProfile,
    VideoProfile,
    ColorDepth,
    Container,
    Edition,
    Other,
    StreamingService,
    EpisodeDetails,
}

impl Prop {
    /// Strong properties end a title wherever they stand; weak ones only where nothing but
    /// other known words follows until a strong one.
    pub fn strong(self) -> bool {
        matches!(
            self,
            Prop::ScreenSize
                | Prop::Source
                | Prop::VideoCodec
                | Prop::AudioCodec
                | Prop::AudioChannels
                | Prop::ColorDepth
                | Prop::Container
        )
    }
}

/// What one spelling says.
pub type Says = &'static [(Prop, &'static str)];

use Prop::*;

const RIP: (Prop, &str) = (Other, "Rip");

/// (spellings, what they say); a spelling is matched against 1 to 3 joined tokens.
const TABLE: &[(&[&str], Says)] = &[
    // Sources.
    (&["vhs"], &[(Source, "VHS")]),
    (&["vhsrip"], &[(Source, "VHS"), RIP]),
    (&["cam", "camrip"], &[(Source, "Camera")]),
    (&["hdcam"], &[(Source, "HD Camera")]),
    (&["ts", "telesync", "pdvd"], &[(Source, "Telesync")]),
    (&["hdts", "hdtelesync"], &[(Source, "HD Telesync")]),
    (&["workprint"], &[(Source, "Workprint")]),
    (&["telecine"], &[(Source, "Telecine")]),
    (&["hdtc", "hdtelecine"], &[(Source, "HD Telecine")]),
    (&["ppv"], &[(Source, "Pay-per-view")]),
    (&["ppvrip"], &[(Source, "Pay-per-view"), RIP]),
    (&["sdtv"], &[(Source, "TV")]),
    (&["tvrip", "sdtvrip", "riptv"], &[(Source, "TV"), RIP]),
    (&["dvb", "pdtv", "dtv"], &[(Source, "Digital TV")]),
    (&["dvbrip", "pdtvrip"], &[(Source, "Digital TV"), RIP]),
    (
        &[
            "dvd", "videots", "dvdr", "dvd9", "dvd5", "ntscdvd", "paldvd",
        ],
        &[(Source, "DVD")],
    ),
    (&["dvdrip", "dvdriphd"], &[(Source, "DVD"), RIP]),
    (
        &["dvdscr", "dvdscreener"],
        &[(Source, "DVD"), (Other, "Screener")],
    ),
    (&["dm"], &[(Source, "Digital Master")]),
    (&["dmrip"], &[(Source, "Digital Master"), RIP]),
    (&["hdtv", "tvhd"], &[(Source, "HDTV")]),
    (&["hdtvmux"], &[(Source, "HDTV"), (Other, "Mux")]),
    (&["bluraymux"], &[(Source, "Blu-ray"), (Other, "Mux")]),
    (&["dlmux", "webdlmux"], &[(Source, "Web"), (Other, "Mux")]),
    (
        &["netflixuhd"],
        &[(StreamingService, "Netflix"), (Other, "Ultra HD")],
    ),
    (
        &["ituneshd", "hditunes"],
        &[(StreamingService, "iTunes"), (Other, "HD")],
    ),
    (&["hdlight"], &[(Other, "Micro HD")]),
    (&["hdtvrip", "tvriphd"], &[(Source, "HDTV"), RIP]),
    (&["ahdtv"], &[(Source, "Analog HDTV")]),
    (&["uhdtv"], &[(Source, "Ultra HDTV")]),
    (&["uhdrip", "uhdtvrip"], &[(Source, "Ultra HDTV"), RIP]),
    (&["vod"], &[(Source, "Video on Demand")]),
    (&["vodrip"], &[(Source, "Video on Demand"), RIP]),
    (&["webdl", "webhd", "webuhd", "dlweb"], &[(Source, "Web")]),
    (&["web"], &[(Source, "Web")]),
    (&["webrip", "webdlrip", "webcap"], &[(Source, "Web"), RIP]),
    (&["hddvd"], &[(Source, "HD-DVD")]),
    (&["hddvdrip"], &[(Source, "HD-DVD"), RIP]),
    (
        &["bluray", "bd", "bd5", "bd9", "bd25", "bd50", "blurayhd"],
        &[(Source, "Blu-ray")],
    ),
    (&["bdrip", "blurayrip"], &[(Source, "Blu-ray"), RIP]),
    (&["bdmux"], &[(Source, "Blu-ray"), (Other, "Mux")]),
    (
        &["brrip"],
        &[(Source, "Blu-ray"), RIP, (Other, "Reencoded")],
    ),
    (
        &["brmux"],
        &[(Source, "Blu-ray"), (Other, "Reencoded"), (Other, "Mux")],
    ),
    (&["bdripmux"], &[(Source, "Blu-ray"), RIP, (Other, "Mux")]),
    (&["laserdisc"], &[(Source, "Laserdisc")]),
    (&["ldrip", "laserdiscrip"], &[(Source, "Laserdisc"), RIP]),
    (
        &["brripmux"],
        &[
            (Source, "Blu-ray"),
            RIP,
            (Other, "Reencoded"),
            (Other, "Mux"),
        ],
    ),
    (
        &["ultrabluray", "blurayultra", "uhdbluray"],
        &[(Source, "Ultra HD Blu-ray")],
    ),
    (&["dsr", "dth", "sat"], &[(Source, "Satellite")]),
    (
        &["dsrip", "dsrrip", "dthrip", "satrip"],
        &[(Source, "Satellite"), RIP],
    ),
    (&["hdrip"], &[(Other, "HD"), RIP]),
    (&["ldtv"], &[(Source, "TV"), (Other, "Low Definition")]),
    // Video codecs.
    (&["xvid"], &[(VideoCodec, "Xvid")]),
    (&["divx", "dvdivx"], &[(VideoCodec, "DivX")]),
    (&["x264", "h264", "avc", "avchd"], &[(VideoCodec, "H.264")]),
    (&["x265", "h265"], &[(VideoCodec, "H.265")]),
    (
        &["hevc"],
        &[
            (VideoCodec, "H.265"),
            (VideoProfile, "High Efficiency Video Coding"),
        ],
    ),
    (&["mpeg2", "mpg2", "h262"], &[(VideoCodec, "MPEG-2")]),
    (&["vc1", "wvc1"], &[(VideoCodec, "VC-1")]),
    (&["h263"], &[(VideoCodec, "H.263")]),
    (&["vp7"], &[(VideoCodec, "VP7")]),
    (&["vp8"], &[(VideoCodec, "VP8")]),
    (&["vp9"], &[(VideoCodec, "VP9")]),
    (&["av1"], &[(VideoCodec, "AV1")]),
    (
        &["hi10p", "hi10"],
        &[(VideoProfile, "High 10"), (ColorDepth, "10-bit")],
    ),
    (&["8bit", "8bits"], &[(ColorDepth, "8-bit")]),
    (&["10bit", "10bits", "yuv420p10"], &[(ColorDepth, "10-bit")]),
    (&["12bit", "12bits"], &[(ColorDepth, "12-bit")]),
    // Audio codecs, with channels when written together.
    (&["mp3", "lame"], &[(AudioCodec, "MP3")]),
    (&["mp2"], &[(AudioCodec, "MP2")]),
    (
        &["dd", "ac3", "ac3d", "dolbydigital"],
        &[(AudioCodec, "Dolby Digital")],
    ),
    (
        &["ddex"],
        &[(AudioCodec, "Dolby Digital"), (AudioProfile, "EX")],
    ),
    (&["flac10"], &[(AudioCodec, "FLAC"), (AudioChannels, "1.0")]),
    (
        &["atmos71"],
        &[(AudioCodec, "Dolby Atmos"), (AudioChannels, "7.1")],
    ),
    (
        &["dtshdhra", "dtshra"],
        &[
            (AudioCodec, "DTS-HD"),
            (AudioProfile, "High Resolution Audio"),
        ],
    ),
    (&["dolby"], &[(AudioCodec, "Dolby Digital")]),
    (
        &["dd51", "ac351", "dd5"],
        &[(AudioCodec, "Dolby Digital"), (AudioChannels, "5.1")],
    ),
    (
        &["dd20", "ac320", "dd2"],
        &[(AudioCodec, "Dolby Digital"), (AudioChannels, "2.0")],
    ),
    (
        &["eac3", "ddp", "ddplus"],
        &[(AudioCodec, "Dolby Digital Plus")],
    ),
    (
        &["ddp51", "eac351", "ddp5"],
        &[(AudioCodec, "Dolby Digital Plus"), (AudioChannels, "5.1")],
    ),
    (
        &["ddp20", "ddp2"],
        &[(AudioCodec, "Dolby Digital Plus"), (AudioChannels, "2.0")],
    ),
    (
        &["ddp71", "ddp7"],
        &[(AudioCodec, "Dolby Digital Plus"), (AudioChannels, "7.1")],
    ),
    (&["truehd", "dolbytruehd"], &[(AudioCodec, "Dolby TrueHD")]),
    (&["atmos", "dolbyatmos"], &[(AudioCodec, "Dolby Atmos")]),
    (&["aac"], &[(AudioCodec, "AAC")]),
    (
        &["aac20", "aac2"],
        &[(AudioCodec, "AAC"), (AudioChannels, "2.0")],
    ),
    (
        &["aac51", "aac5"],
        &[(AudioCodec, "AAC"), (AudioChannels, "5.1")],
    ),
    (
        &["heaac"],
        &[(AudioCodec, "AAC"), (AudioProfile, "High Efficiency")],
    ),
    (
        &["lcaac"],
        &[(AudioCodec, "AAC"), (AudioProfile, "Low Complexity")],
    ),
    (&["flac"], &[(AudioCodec, "FLAC")]),
    (
        &["flac20", "flac2"],
        &[(AudioCodec, "FLAC"), (AudioChannels, "2.0")],
    ),
    (&["dts"], &[(AudioCodec, "DTS")]),
    (
        &["dtshd", "dtsma", "dtshdma"],
        &[(AudioCodec, "DTS-HD"), (AudioProfile, "Master Audio")],
    ),
    (&["dtsx"], &[(AudioCodec, "DTS:X")]),
    (
        &["dtses"],
        &[(AudioCodec, "DTS"), (AudioProfile, "Extended Surround")],
    ),
    (&["opus"], &[(AudioCodec, "Opus")]),
    (&["vorbis"], &[(AudioCodec, "Vorbis")]),
    (&["pcm"], &[(AudioCodec, "PCM")]),
    (&["lpcm"], &[(AudioCodec, "LPCM")]),
    (&["ma"], &[(AudioProfile, "Master Audio")]),
    (
        &["ma51", "ma5"],
        &[(AudioProfile, "Master Audio"), (AudioChannels, "5.1")],
    ),
    (
        &["ma71", "ma7"],
        &[(AudioProfile, "Master Audio"), (AudioChannels, "7.1")],
    ),
    (&["2ch", "stereo"], &[(AudioChannels, "2.0")]),
    (&["6ch", "51ch"], &[(AudioChannels, "5.1")]),
    (&["8ch", "71ch"], &[(AudioChannels, "7.1")]),
    (&["mono"], &[(AudioChannels, "1.0")]),
    // Containers written inside a name.
    (&["mkv"], &[(Container, "mkv")]),
    (&["mp4"], &[(Container, "mp4")]),
    (&["avi"], &[(Container, "avi")]),
    (&["wmv"], &[(Container, "WMV")]),
    // Editions.
    (
        &["directorscut", "director'scut", "dircut", "directorcut"],
        &[(Edition, "Director's Cut")],
    ),
    (
        &["extended", "extendedcut", "extendededition"],
        &[(Edition, "Extended")],
    ),
    (&["limited", "limitededition"], &[(Edition, "Limited")]),
    (&["specialedition"], &[(Edition, "Special")]),
    (
        &["theatrical", "theatricalcut", "theatricaledition"],
        &[(Edition, "Theatrical")],
    ),
    (&["unrated"], &[(Edition, "Unrated")]),
    (&["uncut"], &[(Edition, "Uncut")]),
    (&["uncensored"], &[(Edition, "Uncensored")]),
    (
        &["criterion", "criterionedition", "criterioncollection"],
        &[(Edition, "Criterion")],
    ),
    (
        &[
            "collector",
            "collectors",
            "collectorsedition",
            "collectoredition",
            "collector'sedition",
        ],
        &[(Edition, "Collector")],
    ),
    (&["ultimate", "ultimateedition"], &[(Edition, "Ultimate")]),
    (&["imax", "imaxedition"], &[(Edition, "IMAX")]),
    (&["remastered", "remaster"], &[(Edition, "Remastered")]),
    (&["restored"], &[(Edition, "Restored")]),
    (&["fanedit", "fanedition"], &[(Edition, "Fan")]),
    (&["festival"], &[(Edition, "Festival")]),
    (
        &["alternativecut", "alternatecut"],
        &[(Edition, "Alternative Cut")],
    ),
    (&["deluxe", "deluxeedition"], &[(Edition, "Deluxe")]),
    // Others.
    (&["proper", "repack", "rerip"], &[(Other, "Proper")]),
    (&["internal"], &[(Other, "Internal")]),
    (&["readnfo"], &[(Other, "Read NFO")]),
    (&["dual", "dualaudio"], &[(Other, "Dual Audio")]),
    (
        &[
            "complete",
            "integrale",
            "intégrale",
            "lintegrale",
            "l'integrale",
            "complet",
        ],
        &[(Other, "Complete")],
    ),
    (
        &[
            "fix",
            "dirfix",
            "nfofix",
            "samplefix",
            "prooffix",
            "syncfix",
        ],
        &[(Other, "Fix")],
    ),
    (&["sample"], &[(Other, "Sample")]),
    (&["proof"], &[(Other, "Proof")]),
    (&["hr"], &[(Other, "High Resolution")]),
    (&["hq"], &[(Other, "High Quality")]),
    (&["hd"], &[(Other, "HD")]),
    (&["fullhd", "fhd"], &[(Other, "Full HD")]),
    (&["uhd", "ultrahd"], &[(Other, "Ultra HD")]),
    (&["mhd", "microhd"], &[(Other, "Micro HD")]),
    (&["ld"], &[(Other, "Line Dubbed")]),
    (&["md"], &[(Other, "Mic Dubbed")]),
    (&["ws", "widescreen"], &[(Other, "Widescreen")]),
    (&["ntsc"], &[(Other, "NTSC")]),
    (&["pal"], &[(Other, "PAL")]),
    (&["secam"], &[(Other, "SECAM")]),
    (&["remux"], &[(Other, "Remux")]),
    (&["mux"], &[(Other, "Mux")]),
    (&["r5"], &[(Other, "Region 5")]),
    (&["screener", "scr"], &[(Other, "Screener")]),
    (&["preair"], &[(Other, "Preair")]),
    (&["stv"], &[(Other, "Straight to Video")]),
    (&["hdr", "hdr10", "hdr10plus"], &[(Other, "HDR10")]),
    (&["dv", "dovi", "dolbyvision"], &[(Other, "Dolby Vision")]),
    (&["sdr"], &[(Other, "Standard Dynamic Range")]),
    (&["hfr"], &[(Other, "High Frame Rate")]),
    (&["vfr"], &[(Other, "Variable Frame Rate")]),
    (&["3d"], &[(Other, "3D")]),
    (
        &["hc", "hardsub", "hardsubs"],
        &[(Other, "Hardcoded Subtitles")],
    ),
    (&["oar"], &[(Other, "Original Aspect Ratio")]),
    (&["openmatte"], &[(Other, "Open Matte")]),
    (&["colorized", "colourized"], &[(Other, "Colorized")]),
    (&["converted"], &[(Other, "Converted")]),
    (&["upscaled", "upscale"], &[(Other, "Upscaled")]),
    (&["reenc", "reencoded", "reenc'd"], &[(Other, "Reencoded")]),
    (&["obfuscated", "scrambled"], &[(Other, "Obfuscated")]),
    (
        &["repost", "xpost", "postbot", "asrequested"],
        &[(Other, "Repost")],
    ),
    (&["documentary", "docu", "doku"], &[(Other, "Documentary")]),
    (&["extras"], &[(Other, "Extras")]),
    (&["trailer"], &[(Other, "Trailer")]),
    (&["xxx"], &[(Other, "XXX")]),
    (&["hybrid"], &[(Other, "Hybrid")]),
    (
        &["eastfeed", "eastcoastfeed"],
        &[(Other, "East Coast Feed")],
    ),
    (
        &["westfeed", "westcoastfeed"],
        &[(Other, "West Coast Feed")],
    ),
    (&["fansub", "fansubbed"], &[(Other, "Fan Subtitled")]),
    (&["fastsub", "fastsubbed"], &[(Other, "Fast Subtitled")]),
    (&["ova", "oav"], &[(Other, "Original Video")]),
    (&["oad"], &[(Other, "Original Animation DVD")]),
    (&["ona"], &[(Other, "Original Net Animation")]),
    (&["2in1"], &[(Other, "2in1")]),
    (&["psvita"], &[(Other, "PS Vita")]),
    (&["bt2020"], &[(Other, "BT.2020")]),
    (&["lineaudio"], &[(Other, "Line Audio")]),
    (&["linedubbed"], &[(Other, "Line Dubbed")]),
    (&["micdubbed"], &[(Other, "Mic Dubbed")]),
    (&["lq"], &[(Other, "Low Quality")]),
    // What an episode is.
    (&["pilot"], &[(EpisodeDetails, "Pilot")]),
    (&["unaired"], &[(EpisodeDetails, "Unaired")]),
    // Streaming services.
    (
        &["amzn", "amazon", "amazonhd"],
        &[(StreamingService, "Amazon Prime")],
    ),
    (&["nf", "netflix"], &[(StreamingService, "Netflix")]),
    (&["netflixuhdrip"], &[(StreamingService, "Netflix"), RIP]),
    (&["hulu"], &[(StreamingService, "Hulu")]),
    (&["dsnp", "dsny"], &[(StreamingService, "Disney")]),
    (&["hmax", "hbomax"], &[(StreamingService, "HBO Max")]),
    (&["hbo"], &[(StreamingService, "HBO Go")]),
    (&["atvp"], &[(StreamingService, "Apple TV+")]),
    (&["itunes", "ithd"], &[(StreamingService, "iTunes")]),
    (&["dcu"], &[(StreamingService, "DC Universe")]),
    (&["hidive"], &[(StreamingService, "HIDIVE")]),
    (&["adn"], &[(StreamingService, "Anime Digital Network")]),
    (&["crunchyroll"], &[(StreamingService, "Crunchyroll")]),
    (&["viki"], &[(StreamingService, "Viki")]),
    (&["all4"], &[(StreamingService, "Channel 4")]),
    (&["ae"], &[(StreamingService, "A&E")]),
    (&["bet"], &[(StreamingService, "BET")]),
    (&["pcok"], &[(StreamingService, "Peacock")]),
];

static INDEX: OnceLock<HashMap<&'static str, Says>> = OnceLock::new();

/// What the joined lowercase words `key` say, if they are known.
pub fn lookup(key: &str) -> Option<Says> {
    INDEX
        .get_or_init(|| {
            let mut map = HashMap::new();
            for (spellings, says) in TABLE {
                for s in *spellings {
                    map.insert(*s, *says);
                }
            }
            map
        })
        .get(key)
        .copied()
}

/// Known file extensions, lowercase.
pub const EXTENSIONS: &[&str] = &[
    "3g2", "3gp", "3gp2", "asf", "avi", "divx", "flv", "iso", "m4v", "mk2", "mk3d", "mka", "mkv",
    "mov", "mp4", "mp4a", "mpeg", "mpg", "ogg", "ogm", "ogv", "qt", "ra", "ram", "rm", "ts",
    "m2ts", "vob", "wav", "webm", "wma", "wmv", "srt", "idx", "sub", "ssa", "ass", "vtt", "nfo",
    "torrent", "nzb", "mp3", "flac", "m4a", "aac", "opus",
];
