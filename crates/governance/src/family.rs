//! The sockets a tool family plugs into the core with. A family is a value implementing
//! [`Family`]: it hands over its tools, puts its state into a typed slot every call reaches
//! (`Ctx::family::<T>()`, like `http::Extensions`), declares the error codes it adds to the
//! core's, names its background jobs and checks its own instances for `diagnose`. Adding a
//! family touches no file of this crate.

use std::{
    any::{Any, TypeId},
    collections::{HashMap, HashSet},
    future::Future,
    pin::Pin,
    sync::{Arc, OnceLock},
    time::Duration,
};

use domain::InstanceKind;
use parking_lot::Mutex;

use crate::{
    Ctx, ErrorCode, InstanceSpec, Instances, ToolError,
    contract::{BoxFuture, DynTool},
};

/// A boxed future that outlives the call that made it.
pub type JobFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A check's answer: `None` when the family has no check of its own for the instance, else
/// what was found or a sentence saying what to fix.
pub type CheckFuture<'a> =
    Pin<Box<dyn Future<Output = Option<Result<String, String>>> + Send + 'a>>;

/// One tool family.
pub trait Family: Send + Sync + 'static {
    /// Its name, for logs, job names and `diagnose`.
    fn name(&self) -> &'static str;

    /// The tool group its tools are listed under (`domain::TOOL_GROUPS`, or `core` for the
    /// tools every `tools/list` shows); its own name by default.
    fn group(&self) -> &'static str {
        self.name()
    }

    /// The instance kinds it has an adapter for: what `list_instances` and `diagnose` call
    /// supported.
    fn kinds(&self) -> &'static [InstanceKind] {
        &[]
    }

    /// Its tools, each declared once in its own file.
    fn tools(&self) -> Vec<Box<dyn DynTool>>;

    /// Builds its state from the configured instances and puts it into `slots`.
    fn install(&self, _instances: &Arc<Instances>, _slots: &mut Slots) {}

    /// The error codes its tools answer with beyond the core's (the kinds stay closed).
    fn error_codes(&self) -> &'static [ErrorCode] {
        &[]
    }

    /// Its named background jobs, made from its installed state (the slots hold the
    /// `store::Store` too).
    fn jobs(&self, _slots: &Slots) -> Vec<Job> {
        Vec::new()
    }

    /// What `diagnose` should say about the family as a whole (requests waiting for a
    /// backend, a source this build lacks): sentences, none when all is well.
    fn health<'a>(&'a self, _ctx: &'a Ctx) -> BoxFuture<'a, Result<Vec<String>, ToolError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Tools it serves beside its declared ones, changing while the server runs (an external
    /// server's, while it is up), read from its installed state.
    fn live(&self, _slots: &Slots) -> Option<Arc<dyn LiveTools>> {
        None
    }

    /// Its own check of `spec` (for `diagnose`), asked of the instance's adapter: `None` when
    /// the instance is none of its own, or it has no check beyond being configured.
    fn check<'a>(&'a self, _slots: &'a Slots, _spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async { None })
    }
}

/// Tools that come and go while the server runs (a federated server's): asked on every
/// listing and every call, so what is served is what is there now.
pub trait LiveTools: Send + Sync {
    /// Every tool there now.
    fn tools(&self) -> Vec<Arc<dyn DynTool>>;
    /// The tool `name`, when it is there now.
    fn get(&self, name: &str) -> Option<Arc<dyn DynTool>>;
}

/// Each family's state, one value per type.
#[derive(Default)]
pub struct Slots {
    by_type: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl Slots {
    /// Puts `value` in its slot, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.by_type.insert(TypeId::of::<T>(), Box::new(value));
    }

    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.by_type.get(&TypeId::of::<T>())?.downcast_ref()
    }
}

/// A named piece of background work: one pass of it, run every `every` while the server runs
/// (`App::start_jobs`), or once on demand (`App::run_job`).
pub struct Job {
    /// `family.what[:instance]`, unique in the process.
    pub name: String,
    pub every: Duration,
    /// A job that keeps this process's own memory fresh (a cache, an index, a connection)
    /// runs on every replica; one that acts on what replicas share (the store, a backend,
    /// notices) only on the holder of the jobs' lease.
    pub on_every_replica: bool,
    pub pass: Arc<dyn Fn() -> JobFuture + Send + Sync>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("name", &self.name)
            .field("every", &self.every)
            .finish_non_exhaustive()
    }
}

/// A name made at run time (a tool a federated server offers), as the `&'static str` a
/// [`crate::Meta`] holds: each distinct name is kept once for the life of the process.
pub fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock();
    if let Some(kept) = names.get(name) {
        return kept;
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(kept);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_holds_one_value_per_type() {
        let mut slots = Slots::default();
        assert!(slots.get::<u32>().is_none());
        slots.insert(7u32);
        slots.insert(String::from("x"));
        slots.insert(8u32);
        assert_eq!(slots.get::<u32>(), Some(&8));
        assert_eq!(slots.get::<String>().map(String::as_str), Some("x"));
    }

    #[test]
    fn a_name_is_kept_once() {
        let a = intern("home__turn_on");
        let b = intern(&String::from("home__turn_on"));
        assert!(std::ptr::eq(a, b));
    }
}
