//! The one redaction boundary: every JSON answer of a library service passes [`value`] before
//! anything else reads it, so API keys, passwords, tokens, URL credentials and query strings
//! never leave the adapter, whatever field the service puts them in.

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

fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a field of this name holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let n = normalized(name);
    SECRET_NAMES.iter().any(|s| n == *s)
        || n.ends_with("apikey")
        || n.ends_with("password")
        || n.ends_with("token")
        || n.ends_with("secret")
}

/// Scrubs a whole answer in place: secret-named fields (and `{name, value}` setting pairs whose
/// name is a secret's) are masked, and every string loses URL credentials and query strings.
pub fn value(v: &mut Value) {
    match v {
        Value::String(s) if needs_text_scrub(s) => *s = text(s),
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
    fn plain_text_stays() {
        assert_eq!(text("Heat (1995) 1080p"), "Heat (1995) 1080p");
    }
}
