//! Rating ladders of several countries, for media-server items: a server's metadata rates a
//! title in the country its agent read (`PG-13`, `GB-12A`, `gb/12A`, `DE-16`, `FSK-16`), while
//! a household's cap is written on its own region's ladder. On the same ladder a rating is
//! compared by rank; across ladders by the youngest age each rating admits (BBFC 12A and FSK 12
//! are both 12), so a German-rated film is measured against a British or American cap. A label
//! no ladder here knows is `None`, and the caller fails closed.

use domain::MediaType;

/// One ladder: (label, youngest age admitted), mildest first.
type Steps = &'static [(&'static str, u8)];

/// US films (MPA).
const US_MOVIE: Steps = &[("G", 0), ("PG", 8), ("PG-13", 13), ("R", 17), ("NC-17", 18)];
/// US television (TV Parental Guidelines), in the order the discover limits rank them.
const US_TV: Steps = &[
    ("TV-Y", 0),
    ("TV-Y7", 7),
    ("TV-G", 0),
    ("TV-PG", 10),
    ("TV-14", 14),
    ("TV-MA", 17),
];
/// Great Britain (BBFC), films and video alike.
const GB: Steps = &[
    ("U", 0),
    ("PG", 8),
    ("12A", 12),
    ("12", 12),
    ("15", 15),
    ("18", 18),
    ("R18", 18),
];
/// Germany (FSK), also written `FSK 12`, `FSK-12`, `ab 12`.
const DE: Steps = &[("0", 0), ("6", 6), ("12", 12), ("16", 16), ("18", 18)];
/// France (CNC): tous publics, then -10, -12, -16, -18.
const FR: Steps = &[("U", 0), ("10", 10), ("12", 12), ("16", 16), ("18", 18)];
/// The Netherlands (Kijkwijzer).
const NL: Steps = &[
    ("AL", 0),
    ("6", 6),
    ("9", 9),
    ("12", 12),
    ("14", 14),
    ("16", 16),
    ("18", 18),
];
/// Australia (ACB).
const AU: Steps = &[
    ("G", 0),
    ("PG", 8),
    ("M", 15),
    ("MA15+", 15),
    ("R18+", 18),
    ("X18+", 18),
];

/// The regions with a ladder here.
pub(crate) const REGIONS: [&str; 6] = ["US", "GB", "DE", "FR", "NL", "AU"];

fn steps(region: &str, media_type: MediaType) -> Option<Steps> {
    Some(match (region, media_type) {
        ("US", MediaType::Tv) => US_TV,
        ("US", _) => US_MOVIE,
        ("GB" | "UK", _) => GB,
        ("DE", _) => DE,
        ("FR", _) => FR,
        ("NL", _) => NL,
        ("AU", _) => AU,
        _ => return None,
    })
}

/// One rating placed on a ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub region: &'static str,
    /// Its place on its ladder, from 0 (mildest).
    pub rank: usize,
    /// The youngest age it admits.
    pub age: u8,
}

/// A label as the ladder writes it: upper case, without spaces, and the local spellings of the
/// same rating (`FSK 12`, `ab 12`, `-12`, `Tous publics`) folded onto the ladder's.
fn fold(region: &str, label: &str) -> String {
    let l: String = label
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    match region {
        "DE" => l
            .trim_start_matches("FSK")
            .trim_start_matches("AB")
            .trim_start_matches(['-', ':'])
            .to_string(),
        "FR" if l == "TP" || l == "TOUSPUBLICS" => "U".into(),
        "FR" => l.trim_start_matches('-').to_string(),
        "AU" if l == "MA15" => "MA15+".into(),
        "AU" if l == "R18" => "R18+".into(),
        _ => l,
    }
}

fn find(region: &'static str, media_type: MediaType, label: &str) -> Option<Step> {
    let ladder = steps(region, media_type)?;
    let want = fold(region, label);
    ladder
        .iter()
        .position(|(name, _)| *name == want)
        .map(|rank| Step {
            region,
            rank,
            age: ladder[rank].1,
        })
}

fn region_of(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_uppercase();
    let code = if code == "UK" { "GB".into() } else { code };
    REGIONS.iter().copied().find(|r| *r == code)
}

/// Places a rating as a media server writes it. A region prefix (`GB-12A`, `gb/12A`, `DE-16`)
/// or the FSK mark names its ladder; a bare label is read on `home` (the household's region)
/// first, then on the US ladders most metadata agents write.
pub(crate) fn place(label: &str, media_type: MediaType, home: &str) -> Option<Step> {
    let label = label.trim();
    if label.to_ascii_uppercase().starts_with("FSK") {
        return find("DE", media_type, label);
    }
    if let Some((prefix, rest)) = label.split_once(['/', '-'])
        && prefix.len() == 2
        && prefix.chars().all(|c| c.is_ascii_alphabetic())
        && let Some(region) = region_of(prefix)
        && let Some(step) = find(region, media_type, rest)
    {
        return Some(step);
    }
    if let Some(region) = region_of(home)
        && let Some(step) = find(region, media_type, label)
    {
        return Some(step);
    }
    find("US", media_type, label)
}

/// Places the household's cap, written on its own region's ladder (or with a region prefix).
pub(crate) fn place_cap(cap: &str, media_type: MediaType, home: &str) -> Option<Step> {
    let region = region_of(home)?;
    find(region, media_type, cap).or_else(|| place(cap, media_type, home))
}

/// Whether `rating` is within `cap`: by rank on the same ladder, by age across ladders.
pub(crate) fn within(rating: Step, cap: Step) -> bool {
    if rating.region == cap.region {
        rating.rank <= cap.rank
    } else {
        rating.age <= cap.age
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(rating: &str, cap: &str, media_type: MediaType, home: &str) -> bool {
        match (
            place(rating, media_type, home),
            place_cap(cap, media_type, home),
        ) {
            (Some(r), Some(c)) => within(r, c),
            _ => false,
        }
    }

    #[test]
    fn a_british_cap_measures_ratings_from_every_ladder() {
        let m = MediaType::Movie;
        // The household's own ladder, by rank: 12A is within 12A, 15 is not.
        assert!(allowed("12A", "12A", m, "GB"));
        assert!(allowed("GB-PG", "12A", m, "GB"));
        assert!(!allowed("gb/15", "12A", m, "GB"));
        // Other ladders, by age: FSK 12 and PG-13's 13 against 12A's 12.
        assert!(allowed("DE-12", "12A", m, "GB"));
        assert!(allowed("FSK 6", "12A", m, "GB"));
        assert!(!allowed("FSK-16", "12A", m, "GB"));
        assert!(!allowed("PG-13", "12A", m, "GB"));
        assert!(allowed("FR-10", "12A", m, "GB"));
        assert!(!allowed("fr/16", "12A", m, "GB"));
        // A bare "PG" is read on the household's ladder first.
        assert_eq!(place("PG", m, "GB").map(|s| s.region), Some("GB"));
        assert_eq!(place("PG-13", m, "GB").map(|s| s.region), Some("US"));
    }

    #[test]
    fn german_and_french_caps_and_us_tv() {
        let m = MediaType::Movie;
        assert!(allowed("12", "12", m, "DE"));
        assert!(allowed("GB-12A", "FSK 12", m, "DE"));
        assert!(!allowed("R", "12", m, "DE"));
        assert!(allowed("PG", "12", m, "DE"));
        assert!(allowed("Tous publics", "10", m, "FR"));
        assert!(!allowed("GB-15", "12", m, "FR"));
        let tv = MediaType::Tv;
        // Same ladder: US TV ranks (TV-G sits above TV-Y7 there).
        assert!(!allowed("TV-G", "TV-Y7", tv, "US"));
        assert!(allowed("TV-Y", "TV-Y7", tv, "US"));
        // Across: a British U is for all ages.
        assert!(allowed("GB-U", "TV-Y7", tv, "US"));
        assert!(!allowed("GB-12", "TV-Y7", tv, "US"));
    }

    #[test]
    fn unknown_labels_and_regions_are_not_placed() {
        assert_eq!(place("X-99", MediaType::Movie, "GB"), None);
        assert_eq!(place("ZZ-12", MediaType::Movie, "ZZ"), None);
        assert_eq!(place_cap("12", MediaType::Movie, "JP"), None);
    }
}
