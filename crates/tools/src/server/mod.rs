//! Server tools: who am I, how does this work, is everything healthy, what is configured,
//! what happened.

pub mod diagnose;
pub mod get_activity;
pub mod get_guide;
pub mod list_instances;
pub mod whoami;
