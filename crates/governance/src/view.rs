//! MCP Apps views: self-contained HTML pages a client that renders MCP Apps shows a tool's
//! result in. A tool names its view once (`Tool::VIEW`); the host links it from the tool's
//! definition and serves the page as a `ui://` resource to callers who can see that tool.

/// One view: where it is served and what it may load.
#[derive(Debug)]
pub struct View {
    /// A `ui://` URI.
    pub uri: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The whole page: one HTML document, inline CSS and JS only.
    pub html: &'static str,
    /// Origins images may come from (the page's CSP names the same ones).
    pub image_origins: &'static [&'static str],
}
