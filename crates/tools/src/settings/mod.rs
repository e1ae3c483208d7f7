//! Settings as a catalogue: every setting Marquee has, declared once with its type, default,
//! accepted values, effect and how it changes (`describe_settings`); the values in force and
//! where each comes from (`get_configuration`); and changes to the store-backed layer as plans
//! the owner approves (`plan_configuration`). The config file stays the bootstrap and wins
//! wherever it (or the environment) sets a key. Needs `settings.read` / `settings.write`.

pub mod catalogue;
pub mod describe_settings;
pub mod get_configuration;
pub mod plan_configuration;

use governance::DynTool;

pub use catalogue::apply_stored;

/// The settings catalogue.
pub struct SettingsFamily;

impl governance::Family for SettingsFamily {
    fn name(&self) -> &'static str {
        "settings"
    }

    fn group(&self) -> &'static str {
        "admin"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(describe_settings::DescribeSettings),
            Box::new(get_configuration::GetConfiguration),
            Box::new(plan_configuration::PlanConfiguration),
        ]
    }
}
