//! The secrets Marquee handed a server (`_file` values of its `env` or `headers`), scrubbed
//! from what the server says back: its answers and its stderr lines.

use domain::Secret;

/// `text` with every secret (and the usual credential shapes `httpx::redact` knows) as `***`.
pub(crate) fn line(text: &str, secrets: &[Secret]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if s.expose().len() >= 4 {
            out = out.replace(s.expose(), "***");
        }
    }
    httpx::redact(&out)
}

/// JSON bytes with every secret scrubbed, in its plain and JSON-escaped forms.
pub(crate) fn json(mut bytes: Vec<u8>, secrets: &[Secret]) -> Vec<u8> {
    for s in secrets {
        if let Some(scrubbed) = httpx::scrub_secret(&bytes, s.expose()) {
            bytes = scrubbed;
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_leaves_lines_and_answers() {
        let secrets = [Secret::new("hunter22-token")];
        assert_eq!(
            line("auth with hunter22-token failed", &secrets),
            "auth with *** failed"
        );
        let answer = br#"{"text":"token=hunter22-token"}"#.to_vec();
        let out = String::from_utf8(json(answer, &secrets)).unwrap();
        assert!(!out.contains("hunter22"), "{out}");
    }
}
