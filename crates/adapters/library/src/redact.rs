//! The one redaction boundary: every answer of a library service is decoded into a type that
//! implements [`Redact`] and is redacted before anything else reads it, so API keys, passwords,
//! tokens, URL credentials and query strings never leave the adapter, whatever field the service
//! puts them in. A typed answer (a queue page, a movie) is decoded straight from the bytes and
//! then only its text is scrubbed; an answer kept as JSON passes [`value`], the walk over the
//! whole tree. Typed answers are declared with [`redacted!`], which writes the `Redact` impl
//! from the field list itself: a field added later is redacted by its type, or does not compile.

use serde_json::Value;

/// What replaces a removed secret.
pub const MASK: &str = "***";

/// Field names whose values are secrets, compared without case, `_` or `-`.
const SECRET_NAMES: [&str; 12] = [
    "apikey",
    "password",
    "passkey",
    "token",
    "accesstoken",
    "refreshtoken",
    "secret",
    "cookie",
    "cookies",
    "authorization",
    "username",
    "rsskey",
];

/// The `k`th byte of `name` without `_` and `-`, lowercased.
const fn normalized_at(name: &[u8], k: usize) -> u8 {
    let (mut i, mut seen) = (0, 0);
    while i < name.len() {
        if name[i] != b'_' && name[i] != b'-' {
            if seen == k {
                return name[i].to_ascii_lowercase();
            }
            seen += 1;
        }
        i += 1;
    }
    0
}

const fn normalized_len(name: &[u8]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < name.len() {
        if name[i] != b'_' && name[i] != b'-' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Whether `name`, normalized, ends with `tail` (lowercase, no `_` or `-`).
const fn ends_with(name: &[u8], tail: &[u8]) -> bool {
    let n = normalized_len(name);
    if tail.len() > n {
        return false;
    }
    let mut j = 0;
    while j < tail.len() {
        if normalized_at(name, n - tail.len() + j) != tail[j] {
            return false;
        }
        j += 1;
    }
    true
}

/// Whether a field of this name holds a secret. A `const fn`, so [`redacted!`] checks the
/// field names of every typed answer when the crate is compiled.
pub const fn is_secret_name(name: &str) -> bool {
    let name = name.as_bytes();
    let mut i = 0;
    while i < SECRET_NAMES.len() {
        let s = SECRET_NAMES[i].as_bytes();
        if normalized_len(name) == s.len() && ends_with(name, s) {
            return true;
        }
        i += 1;
    }
    ends_with(name, b"apikey")
        || ends_with(name, b"password")
        || ends_with(name, b"token")
        || ends_with(name, b"secret")
}

/// A value decoded from a service's answer, scrubbed in place before anything reads it. Text is
/// scrubbed by [`text`]'s rules, JSON kept as JSON by [`value`]'s; numbers and switches hold
/// no secret. Structs implement it through [`redacted!`], never by hand.
pub trait Redact {
    fn redact(&mut self);
}

impl Redact for String {
    fn redact(&mut self) {
        if needs_text_scrub(self) {
            *self = text(self);
        }
    }
}

impl Redact for Value {
    fn redact(&mut self) {
        value(self);
    }
}

impl<T: Redact> Redact for Option<T> {
    fn redact(&mut self) {
        if let Some(v) = self {
            v.redact();
        }
    }
}

impl<T: Redact> Redact for Vec<T> {
    fn redact(&mut self) {
        self.iter_mut().for_each(Redact::redact);
    }
}

macro_rules! plain {
    ($($t:ty),*) => {
        $(impl Redact for $t {
            fn redact(&mut self) {}
        })*
    };
}
plain!(bool, i32, i64, u32, u64, f64);

/// Declares a struct an answer is decoded into, with its [`Redact`] impl written from the same
/// field list: every field is redacted by its type, and a field named like a secret (`api_key`,
/// `password`) is a compile error, since no typed answer has a reason to read one.
macro_rules! redacted {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$meta])*
        $vis struct $name {
            $($(#[$fmeta])* $fvis $field: $ty),*
        }

        impl $crate::redact::Redact for $name {
            fn redact(&mut self) {
                $(
                    const _: () = assert!(
                        !$crate::redact::is_secret_name(stringify!($field)),
                        concat!("a typed answer reads a secret-named field: ", stringify!($field))
                    );
                    $crate::redact::Redact::redact(&mut self.$field);
                )*
            }
        }
    };
}
pub(crate) use redacted;

/// Scrubs a whole answer in place: secret-named fields (and `{name, value}` setting pairs whose
/// name is a secret's) are masked, and every string loses URL credentials and query strings.
pub fn value(v: &mut Value) {
    match v {
        Value::String(s) if needs_text_scrub(s) => *s = text(s),
        Value::String(_) => {}
        Value::Array(items) => items.iter_mut().for_each(value),
        Value::Object(map) => {
            let setting_is_secret = map
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(is_secret_name)
                && map.contains_key("value");
            for (k, field) in map.iter_mut() {
                if is_secret_name(k) || (setting_is_secret && k == "value") {
                    if !field.is_null() {
                        *field = Value::String(MASK.into());
                    }
                } else {
                    value(field);
                }
            }
        }
        _ => {}
    }
}

fn needs_text_scrub(s: &str) -> bool {
    s.contains("://") || s.contains('=')
}

/// Scrubs one text: known key parameters and URL userinfo (httpx's rules), then the query
/// string of every URL in it.
pub fn text(s: &str) -> String {
    let once = httpx::redact(s);
    strip_url_queries(&once)
}

fn strip_url_queries(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>'))
            .unwrap_or(tail.len());
        let url = &tail[..end];
        match url.find(['?', '#']) {
            Some(q) => out.push_str(&url[..q]),
            None => out.push_str(url),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::*;

    fn check(mut input: Value, expected: expect_test::Expect) {
        value(&mut input);
        expected.assert_eq(&input.to_string());
    }

    #[test]
    fn secret_fields_are_masked() {
        check(
            json!({"apiKey": "k1", "Password": "p", "api_key": null, "title": "Heat"}),
            expect![[r#"{"Password":"***","apiKey":"***","api_key":null,"title":"Heat"}"#]],
        );
    }

    #[test]
    fn setting_pairs_named_like_secrets_are_masked() {
        check(
            json!({"fields": [{"name": "apiKey", "value": "k2"}, {"name": "baseUrl", "value": "http://idx/api"}]}),
            expect![[
                r#"{"fields":[{"name":"apiKey","value":"***"},{"name":"baseUrl","value":"http://idx/api"}]}"#
            ]],
        );
    }

    #[test]
    fn urls_lose_credentials_and_query_strings() {
        check(
            json!({"message": "GET http://bob:pw@idx:9696/api?t=search&apikey=zz failed", "link": "https://x/y#frag"}),
            expect![[r#"{"link":"https://x/y","message":"GET http://***@idx:9696/api failed"}"#]],
        );
    }

    #[test]
    fn secret_names_are_recognised_without_case_or_separators() {
        let names = [
            "apiKey",
            "api_key",
            "indexerApiKey",
            "Pass-Word",
            "rssKey",
            "refresh_token",
        ];
        assert!(names.iter().all(|n| is_secret_name(n)), "{names:?}");
        let plain = [
            "title",
            "tokenizer",
            "keyword",
            "pass",
            "path",
            "downloadId",
        ];
        assert!(plain.iter().all(|n| !is_secret_name(n)), "{plain:?}");
    }

    redacted! {
        /// A typed answer as the service modules declare them.
        struct Typed {
            title: String,
            messages: Vec<String>,
            link: Option<String>,
            size: i64,
            extra: Value,
        }
    }

    #[test]
    fn typed_answers_are_scrubbed_field_by_field() {
        let mut t = Typed {
            title: "Heat http://u:p@host/x?apikey=k".into(),
            messages: vec!["see https://idx/api?t=1&apikey=k".into(), "plain".into()],
            link: Some("magnet:?xt=urn:btih:abc&tr=http://t/announce?passkey=k".into()),
            size: 7,
            extra: json!({"password": "p", "note": "ok"}),
        };
        t.redact();
        expect![[r#"Heat http://***@host/x | see https://idx/api, plain | magnet:?xt=urn:btih:abc&tr=http://t/announce | 7 | {"note":"ok","password":"***"}"#]]
            .assert_eq(&format!(
                "{} | {} | {} | {} | {}",
                t.title,
                t.messages.join(", "),
                t.link.unwrap_or_default(),
                t.size,
                t.extra
            ));
    }

    #[test]
    fn plain_text_stays() {
        assert_eq!(text("Heat (1995) 1080p"), "Heat (1995) 1080p");
    }
}
