//! The MCP Apps views of this build's tools (the `View` type is the core's). Each page carries its own CSP, loads nothing remote but the image origins it declares, and
//! renders the data the client posts to it with DOM text, never as markup.

pub use governance::View;

/// The poster carousel `display_media` answers are shown in.
pub const CAROUSEL: View = View {
    uri: "ui://marquee/carousel",
    name: "carousel",
    title: "Title carousel",
    description: "A poster carousel of verified titles: poster, title, year, rating, and whether each is in the library or requested.",
    html: include_str!("views/carousel.html"),
    image_origins: &["https://image.tmdb.org"],
};

/// Every view this build has.
pub const ALL: &[&View] = &[&CAROUSEL];

/// The view served at `uri`.
pub fn by_uri(uri: &str) -> Option<&'static View> {
    ALL.iter().copied().find(|v| v.uri == uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_loads_nothing_remote_but_its_declared_image_origins() {
        for view in ALL {
            assert!(view.uri.starts_with("ui://"), "{}", view.uri);
            let html = view.html.to_ascii_lowercase();
            assert!(html.starts_with("<!doctype html>"), "{}", view.uri);
            assert!(
                !html.contains("<script src"),
                "{}: a remote script",
                view.uri
            );
            assert!(!html.contains("<link"), "{}: a linked stylesheet", view.uri);
            assert!(
                !html.contains("innerhtml"),
                "{}: markup from data",
                view.uri
            );
            let csp = html
                .split("http-equiv=\"content-security-policy\" content=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("{}: no CSP meta", view.uri));
            assert!(csp.contains("default-src 'none'"), "{csp}");
            assert!(csp.contains("connect-src 'none'"), "{csp}");
            for origin in view.image_origins {
                assert!(csp.contains(&format!("img-src {origin} data:")), "{csp}");
            }
        }
    }

    #[test]
    fn a_view_is_found_by_its_uri_only() {
        assert_eq!(
            by_uri("ui://marquee/carousel").map(|v| v.name),
            Some("carousel")
        );
        assert!(by_uri("ui://marquee/carousel/").is_none());
        assert!(by_uri("marquee://guides/setup").is_none());
    }
}
