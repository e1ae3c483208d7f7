//! Languages as the subtitle tools take and show them: ISO 639-1, with a region where meant
//! (`pt-BR`); names and three-letter codes accepted on input.

use governance::ToolError;

/// The asked languages, normalised and deduplicated; an unknown one is refused by name.
pub(crate) fn parse(asked: &[String]) -> Result<Vec<String>, ToolError> {
    let mut out: Vec<String> = Vec::new();
    for a in asked {
        let code = one(a).ok_or_else(|| {
            ToolError::invalid(format!(
                "unknown language \"{a}\"; give an ISO 639-1 code (en, fr, pt-BR) or a language name"
            ))
        })?;
        if !out.contains(&code) {
            out.push(code);
        }
    }
    if out.is_empty() {
        return Err(ToolError::invalid(
            "languages is empty; name at least one (en, fr, pt-BR)",
        ));
    }
    Ok(out)
}

/// One language, normalised; `None` when it names none.
pub(crate) fn one(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("und") {
        return None;
    }
    recognize::normalize_language(t)
}

/// Does `have` (a file's or stream's language) satisfy `want`? `pt` satisfies neither `pt-BR`
/// nor the reverse being assumed: a region asked is a region wanted; a base asked takes any
/// region of it.
pub(crate) fn satisfies(have: &str, want: &str) -> bool {
    if have.eq_ignore_ascii_case(want) {
        return true;
    }
    !want.contains('-')
        && have
            .split_once('-')
            .is_some_and(|(base, _)| base.eq_ignore_ascii_case(want))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_are_taken() {
        assert_eq!(
            parse(&["English".into(), "pt_br".into(), "eng".into(), "fre".into()]).unwrap(),
            ["en", "pt-BR", "fr"]
        );
        assert!(parse(&["Klingonese".into()]).is_err());
        assert!(satisfies("pt-BR", "pt") && !satisfies("pt", "pt-BR") && satisfies("en", "en"));
    }
}
