//! A secret's hand-over as the connection tools answer it.

use schemars::JsonSchema;
use serde::Serialize;
use store::Connection;

use governance::{Ctx, InstanceSpec, ToolError};

/// The configured instance `id`, decided for the caller's grant.
pub(crate) fn configured<'c>(ctx: &'c Ctx, id: &str) -> Result<&'c InstanceSpec, ToolError> {
    let spec = ctx
        .instances()
        .all()
        .iter()
        .find(|s| s.id == id)
        .ok_or_else(|| {
            ToolError::invalid(format!("no instance \"{id}\"; list_instances names them"))
        })?;
    ctx.authorize(&spec.id)?;
    Ok(spec)
}

/// A hand-over, never with its secret.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ConnectionView {
    pub connection_id: String,
    pub instance_id: String,
    /// waiting (for the owner's page), saved (checked and kept: in use from the next start),
    /// failed (the check refused it: nothing was kept) or expired.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// RFC 3339.
    pub expires_at: String,
}

pub(crate) fn view(c: &Connection) -> ConnectionView {
    ConnectionView {
        connection_id: c.id.clone(),
        instance_id: c.instance_id.clone(),
        status: c.status.clone(),
        message: c.message.clone(),
        expires_at: crate::tasks::rfc3339(c.expires_at),
    }
}
