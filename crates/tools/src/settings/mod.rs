//! Settings as a catalogue: every setting Marquee has, declared once with its type, default,
//! accepted values, effect and how it changes (`describe_settings`); the values in force and
//! where each comes from (`get_configuration`); and changes to the store-backed layer as plans
//! the owner approves (`plan_configuration`). The config file stays the bootstrap and wins
//! wherever it (or the environment) sets a key. Secrets are handed over in the owner's browser
//! (`start_connection`, `get_connection_status`), and an instance's own probe runs on demand
//! (`check_connection`). Needs `settings.read` / `settings.write`.

pub mod catalogue;
pub mod check_connection;
mod connection;
pub mod describe_settings;
pub mod get_configuration;
pub mod get_connection_status;
pub mod plan_configuration;
pub mod start_connection;

use governance::DynTool;

pub use catalogue::apply_stored;

/// The settings catalogue.
pub struct SettingsFamily;

impl governance::Family for SettingsFamily {
    fn name(&self) -> &'static str {
        "settings"
    }

    fn group(&self) -> &'static str {
        "settings"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(describe_settings::DescribeSettings),
            Box::new(get_configuration::GetConfiguration),
            Box::new(plan_configuration::PlanConfiguration),
            Box::new(start_connection::StartConnection),
            Box::new(get_connection_status::GetConnectionStatus),
            Box::new(check_connection::CheckConnection),
        ]
    }
}
