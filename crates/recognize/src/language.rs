//! Languages: names, native names, release-scene words and ISO 639 codes to ISO 639-1 codes,
//! with a region tag where one is meant (`pt-BR`, `zh-Hans`); `mul` for several and `und` for
//! unknown, as in BCP 47.

use std::{collections::HashMap, sync::OnceLock};

/// (code, names and spellings that mean it, lowercase).
const LANGUAGES: &[(&str, &[&str])] = &[
    (
        "en",
        &["english", "eng", "anglais", "ingles", "inglés", "englisch"],
    ),
    (
        "fr",
        &[
            "french",
            "français",
            "francais",
            "fre",
            "fra",
            "truefrench",
            "vff",
            "vf",
            "vfi",
            "frances",
            "francés",
            "französisch",
        ],
    ),
    ("fr-CA", &["vfq", "quebecois", "québécois"]),
    (
        "de",
        &[
            "german", "deutsch", "ger", "deu", "allemand", "aleman", "alemán",
        ],
    ),
    ("de-CH", &["swissgerman"]),
    (
        "es",
        &[
            "spanish",
            "español",
            "espanol",
            "spa",
            "esp",
            "castellano",
            "castilian",
            "espagnol",
        ],
    ),
    ("es-MX", &["latino"]),
    ("it", &["italian", "italiano", "ita", "italien"]),
    ("pt", &["portuguese", "português", "portugues", "por"]),
    ("pt-BR", &["brazilian", "ptbr", "brasileiro"]),
    ("ru", &["russian", "русский", "rus"]),
    ("uk", &["ukrainian", "ukr"]),
    ("ja", &["japanese", "jpn", "jap"]),
    ("zh", &["chinese", "chi", "zho", "mandarin"]),
    ("zh-Hans", &["chs", "simplified"]),
    ("zh-Hant", &["cht", "traditional"]),
    ("ko", &["korean", "kor"]),
    ("hi", &["hindi", "hin"]),
    ("nl", &["dutch", "nederlands", "nld", "dut"]),
    ("nl-BE", &["flemish", "vlaams"]),
    ("sv", &["swedish", "svenska", "swe"]),
    ("no", &["norwegian", "norsk", "nor"]),
    ("da", &["danish", "dansk", "dan"]),
    ("fi", &["finnish", "suomi", "fin"]),
    ("pl", &["polish", "polski", "pol"]),
    ("cs", &["czech", "cesky", "česky", "cze", "ces"]),
    ("sk", &["slovak", "slk"]),
    ("hu", &["hungarian", "magyar", "hun"]),
    ("el", &["greek", "gre", "ell"]),
    ("tr", &["turkish", "turkce", "türkçe", "tur"]),
    ("ar", &["arabic", "ara"]),
    ("he", &["hebrew", "heb"]),
    ("ca", &["catalan", "català", "catala", "cat"]),
    ("ro", &["romanian", "romana", "română", "rum", "ron"]),
    ("th", &["thai", "tha"]),
    ("vi", &["vietnamese", "vie"]),
    ("id", &["indonesian"]),
    ("fa", &["persian", "farsi", "fas"]),
    ("bg", &["bulgarian", "bul"]),
    ("hr", &["croatian", "hrv"]),
    ("sr", &["serbian", "srp"]),
    ("sl", &["slovenian", "slv"]),
    ("et", &["estonian", "est"]),
    ("lv", &["latvian", "lav"]),
    ("lt", &["lithuanian"]),
    ("is", &["icelandic", "isl"]),
    ("ta", &["tamil", "tam"]),
    ("te", &["telugu", "tel"]),
    (
        "mul",
        &[
            "multi",
            "multiple",
            "multilanguage",
            "multiplelanguages",
            "multilang",
            "mul",
        ],
    ),
    ("und", &["und", "undetermined"]),
];

/// Two-letter codes (ISO 639-1, and the country-like spellings releases use) taken as
/// languages only where the rules allow: they are also ordinary words.
const SHORT: &[(&str, &str)] = &[
    ("en", "en"),
    ("fr", "fr"),
    ("de", "de"),
    ("es", "es"),
    ("it", "it"),
    ("pt", "pt"),
    ("ru", "ru"),
    ("uk", "uk"),
    ("ja", "ja"),
    ("jp", "ja"),
    ("zh", "zh"),
    ("ko", "ko"),
    ("hi", "hi"),
    ("nl", "nl"),
    ("sv", "sv"),
    ("no", "no"),
    ("da", "da"),
    ("fi", "fi"),
    ("pl", "pl"),
    ("cs", "cs"),
    ("cz", "cs"),
    ("hu", "hu"),
    ("el", "el"),
    ("gr", "el"),
    ("tr", "tr"),
    ("ar", "ar"),
    ("he", "he"),
    ("ca", "ca"),
    ("ro", "ro"),
    ("br", "pt-BR"),
    ("se", "sv"),
    ("dk", "da"),
];

/// The code a word names: a language name or three-letter code; with `short`, also the
/// two-letter codes that are ordinary words too.
pub fn code(word: &str, short: bool) -> Option<&'static str> {
    static NAMES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        LANGUAGES
            .iter()
            .flat_map(|(code, names)| names.iter().map(move |n| (*n, *code)))
            .collect()
    });
    let trimmed = word.trim();
    let lower;
    let key = if trimmed.bytes().any(|b| b.is_ascii_uppercase()) || !trimmed.is_ascii() {
        lower = trimmed.to_lowercase();
        lower.as_str()
    } else {
        trimmed
    };
    if let Some(code) = names.get(key) {
        return Some(code);
    }
    if !short {
        return None;
    }
    SHORT.iter().find(|(w, _)| *w == key).map(|(_, c)| *c)
}

/// Any language spelling: a name, a code with or without a region (`pt-BR`, `pt_br`,
/// `zh-Hans`), normalised to this crate's codes.
pub fn normalize(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(c) = code(t, true).or_else(|| code(&t.replace(' ', ""), true)) {
        return Some(c.to_owned());
    }
    let (base, region) = t.split_once(['-', '_'])?;
    let base = code(base, true)?;
    let base = base.split('-').next().unwrap_or(base);
    let region = if region.len() == 4 {
        let mut r = region.to_lowercase();
        r[..1].make_ascii_uppercase();
        r
    } else {
        region.to_uppercase()
    };
    Some(format!("{base}-{region}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_codes_and_regions_normalise() {
        assert_eq!(normalize("French").as_deref(), Some("fr"));
        assert_eq!(normalize("pt-BR").as_deref(), Some("pt-BR"));
        assert_eq!(normalize("zh_hans").as_deref(), Some("zh-Hans"));
        assert_eq!(normalize("spa").as_deref(), Some("es"));
        assert_eq!(normalize("Multiple languages").as_deref(), Some("mul"));
        assert_eq!(normalize("de-CH").as_deref(), Some("de-CH"));
        assert_eq!(normalize("Klingon"), None);
    }
}
