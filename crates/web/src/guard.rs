//! The guards in front of the routes beside `/mcp` (the REST mirror, the OAuth endpoints, the
//! owner pages), as layers so that no handler repeats them: readiness, then the MCP edge's own
//! DNS-rebinding rules for Host and Origin. `/mcp` applies the same rules itself.

use axum::{
    Router,
    extract::{Request, State},
    middleware::{self, Next},
    response::Response,
};

use crate::Web;

/// 503 with Retry-After until the store is ready; then the request goes on.
pub(crate) async fn ready(State(web): State<Web>, request: Request, next: Next) -> Response {
    if web.ready.get().is_none() {
        return mcp::edge::not_ready();
    }
    next.run(request).await
}

/// 403 for a Host or an Origin this server does not answer (`allowed_hosts`,
/// `allowed_origins`), with the same answer as `POST /mcp` gives; else the request goes on.
async fn host_and_origin(State(web): State<Web>, request: Request, next: Next) -> Response {
    if let Err(refused) = mcp::edge::check_host_and_origin(&web.edge, request.headers()) {
        return refused;
    }
    next.run(request).await
}

/// `routes` with [`host_and_origin`] in front of each of them (routes added later are not).
pub(crate) fn host_and_origin_checked(routes: Router<Web>, web: &Web) -> Router<Web> {
    routes.route_layer(middleware::from_fn_with_state(web.clone(), host_and_origin))
}
