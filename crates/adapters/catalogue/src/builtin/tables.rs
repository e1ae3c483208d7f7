//! Fixed vocabularies of the builtin catalogue: US film certifications with their ranks, and the ISO codes
//! accepted for the data's language and country names.

use crate::CertificationInfo;

/// US (MPA) film certifications, mildest first. The data also holds the retired ratings M, M/PG and GP
/// (1968-1972, all became PG) and X (became NC-17); they rank with their successors.
const US: [(&str, &str, u32); 9] = [
    ("G", "All ages admitted.", 1),
    ("PG", "Some material may not be suitable for children.", 2),
    (
        "PG-13",
        "Some material may be inappropriate for children under 13.",
        3,
    ),
    (
        "R",
        "Under 17 requires accompanying parent or adult guardian.",
        4,
    ),
    ("NC-17", "No one 17 and under admitted.", 5),
    (
        "M",
        "Retired (1968-1970): suggested for mature audiences; ranks as PG.",
        2,
    ),
    (
        "M/PG",
        "Retired (1970): mature audiences, parental guidance; ranks as PG.",
        2,
    ),
    (
        "GP",
        "Retired (1970-1972): general audiences, parental guidance; ranks as PG.",
        2,
    ),
    (
        "X",
        "Retired (until 1990): no one under 17 admitted; ranks as NC-17.",
        5,
    ),
];

/// The rank of a US certification (1 = G ... 5 = NC-17), case-insensitive.
pub(crate) fn us_order(cert: &str) -> Option<u32> {
    US.iter()
        .find(|(c, _, _)| c.eq_ignore_ascii_case(cert))
        .map(|(_, _, o)| *o)
}

/// The current US certifications, for messages.
pub(crate) fn us_current() -> Vec<String> {
    US[..5].iter().map(|(c, _, _)| c.to_string()).collect()
}

/// Every US certification the data uses, mildest first.
pub(crate) fn us_list() -> Vec<CertificationInfo> {
    let mut list: Vec<CertificationInfo> = US
        .iter()
        .map(|(c, m, o)| CertificationInfo {
            region: "US".into(),
            certification: c.to_string(),
            meaning: m.to_string(),
            order: *o,
        })
        .collect();
    list.sort_by_key(|c| c.order);
    list
}

/// ISO 639-1 codes to the language names the data uses (TMDB's "cn" is Cantonese).
const LANGUAGES: &[(&str, &[&str])] = &[
    ("en", &["English"]),
    ("fr", &["French"]),
    ("es", &["Spanish"]),
    ("de", &["German"]),
    ("it", &["Italian"]),
    ("ja", &["Japanese"]),
    ("hi", &["Hindi"]),
    ("ru", &["Russian"]),
    ("ar", &["Arabic"]),
    ("he", &["Hebrew"]),
    ("cn", &["Cantonese"]),
    ("ko", &["Korean"]),
    ("zh", &["Mandarin", "Standard Chinese", "Chinese"]),
    ("sv", &["Swedish"]),
    ("pt", &["Portuguese"]),
    ("fa", &["Persian"]),
    ("da", &["Danish"]),
    ("nl", &["Dutch"]),
    ("pl", &["Polish"]),
    ("no", &["Norwegian"]),
    ("th", &["Thai"]),
    ("ro", &["Romanian"]),
    ("hu", &["Hungarian"]),
    ("el", &["Greek", "Modern Greek"]),
    ("tr", &["Turkish"]),
    ("fi", &["Finnish"]),
    ("cs", &["Czech"]),
    ("ta", &["Tamil"]),
    ("te", &["Telugu"]),
    ("bn", &["Bengali"]),
    ("ur", &["Urdu"]),
    ("id", &["Indonesian"]),
    ("la", &["Latin"]),
];

/// ISO 3166-1 codes to the country names the data uses.
const COUNTRIES: &[(&str, &[&str])] = &[
    ("US", &["United States"]),
    ("GB", &["United Kingdom"]),
    ("UK", &["United Kingdom"]),
    ("FR", &["France"]),
    ("DE", &["Germany", "West Germany", "East Germany"]),
    ("CA", &["Canada"]),
    ("IT", &["Italy"]),
    ("AU", &["Australia"]),
    ("JP", &["Japan"]),
    ("ES", &["Spain"]),
    ("IN", &["India"]),
    ("BE", &["Belgium"]),
    ("MX", &["Mexico"]),
    ("HK", &["Hong Kong"]),
    ("SE", &["Sweden"]),
    ("CN", &["People's Republic of China"]),
    ("DK", &["Denmark"]),
    ("IE", &["Ireland"]),
    ("CH", &["Switzerland"]),
    ("NL", &["Netherlands", "Kingdom of the Netherlands"]),
    ("KR", &["South Korea"]),
    ("IL", &["Israel"]),
    ("AT", &["Austria"]),
    ("AR", &["Argentina"]),
    ("RU", &["Russia"]),
    ("NO", &["Norway"]),
    ("BR", &["Brazil"]),
    ("NZ", &["New Zealand"]),
    ("PL", &["Poland"]),
    ("FI", &["Finland"]),
    ("TW", &["Taiwan"]),
    ("ZA", &["South Africa"]),
    ("CZ", &["Czech Republic"]),
    ("GR", &["Greece"]),
    ("HU", &["Hungary"]),
    ("IR", &["Iran"]),
    ("TR", &["Turkey"]),
    ("PT", &["Portugal"]),
];

/// The data's language names for an ISO 639-1 code.
pub(crate) fn language_names(code: &str) -> Option<&'static [&'static str]> {
    LANGUAGES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(code))
        .map(|(_, n)| *n)
}

/// The data's country names for an ISO 3166-1 code.
pub(crate) fn country_names(code: &str) -> Option<&'static [&'static str]> {
    COUNTRIES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(code))
        .map(|(_, n)| *n)
}
