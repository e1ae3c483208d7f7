//! The throttle's shared count of failed authentications: the store's, so every replica on it
//! refuses a source after the same number of failures.

use std::{future::Future, pin::Pin, time::Duration};

use mcp::throttle::SharedFailures;

pub(crate) struct StoreFailures(pub store::Store);

impl SharedFailures for StoreFailures {
    fn record<'a>(
        &'a self,
        source: &'a str,
        window: Duration,
    ) -> Pin<Box<dyn Future<Output = Option<u32>> + Send + 'a>> {
        Box::pin(async move {
            let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
            match self.0.record_auth_failure(source, window_ms).await {
                Ok(n) => Some(n),
                Err(e) => {
                    tracing::warn!(error = %e, "a failed authentication could not be counted in the store; this replica's own count still applies");
                    None
                }
            }
        })
    }
}
