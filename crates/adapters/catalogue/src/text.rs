//! Text folding for matching people's typing against titles and names: lowercase, accents removed
//! (é -> e, ß -> ss), apostrophes dropped ("Schindler's" -> "schindlers"), everything else a separator.

/// Folds `s` into lowercase ASCII-ish words separated by single spaces.
pub(crate) fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2019}' | '\u{02bc}') || ('\u{0300}'..='\u{036f}').contains(&c) {
            continue; // apostrophes and combining accents join their word
        }
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                push(&mut out, &mut pending_space, c.to_ascii_lowercase());
            } else {
                pending_space = !out.is_empty();
            }
            continue;
        }
        for lower in c.to_lowercase() {
            if let Some(ascii) = fold_char(lower) {
                for a in ascii.chars() {
                    push(&mut out, &mut pending_space, a);
                }
            } else if lower.is_alphanumeric() {
                push(&mut out, &mut pending_space, lower);
            } else {
                pending_space = !out.is_empty();
            }
        }
    }
    out
}

fn push(out: &mut String, pending_space: &mut bool, c: char) {
    if *pending_space {
        out.push(' ');
        *pending_space = false;
    }
    out.push(c);
}

/// The words of `s`, folded.
pub(crate) fn tokens(s: &str) -> Vec<String> {
    fold(s)
        .split(' ')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The options close to `given` (folded: one contains the other, or they share a three-letter start),
/// at most `max` of them, for "unknown name" messages.
pub(crate) fn close_matches<'a>(
    given: &str,
    options: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<String> {
    let g = fold(given);
    let start: String = g.chars().take(3).collect();
    options
        .into_iter()
        .filter(|o| {
            let f = fold(o);
            !g.is_empty()
                && (f.contains(&g) || g.contains(&f) || (start.len() == 3 && f.starts_with(&start)))
        })
        .take(max)
        .map(str::to_string)
        .collect()
}

/// Latin letters with diacritics (Latin-1 Supplement and Latin Extended-A) to their plain letters.
fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'ĥ' | 'ħ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'ĳ' => "ij",
        'ĵ' => "j",
        'ķ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' | 'ŉ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'ś' | 'ŝ' | 'ş' | 'š' | 'ſ' => "s",
        'ß' => "ss",
        'ţ' | 'ť' | 'ŧ' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_and_punctuation() {
        assert_eq!(fold("Quai des Orfèvres"), "quai des orfevres");
        assert_eq!(fold("  Léon Morin, Priest "), "leon morin priest");
        assert_eq!(fold("Schindler’s List"), "schindlers list");
        assert_eq!(fold("Straße – Ærø"), "strasse aero");
        assert_eq!(fold("Cle\u{0301}o from 5 to 7"), "cleo from 5 to 7");
        assert_eq!(fold("8½"), "8½");
        assert_eq!(tokens("Spider-Man 2"), ["spider", "man", "2"]);
        assert!(tokens(" - ").is_empty());
    }

    #[test]
    fn finds_close_matches() {
        let opts = ["Science Fiction", "Sci-Fi & Fantasy", "Drama"];
        assert_eq!(
            close_matches("sci", opts, 5),
            ["Science Fiction", "Sci-Fi & Fantasy"]
        );
        assert_eq!(close_matches("dramas", opts, 5), ["Drama"]);
        assert!(close_matches("western", opts, 5).is_empty());
    }
}
