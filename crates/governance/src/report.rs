//! A running call's narrow line back to its client: progress and log messages, sent only when
//! the client asked for them (a progress token, a log level). The protocol edge implements
//! [`Report`]; tools never see the wire. Text is redacted before it leaves, and tools put in it
//! only what their answers may show (instance ids, counts), never credentials.

/// How much a log message matters, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

/// Where a call's progress and log messages go while it runs.
pub trait Report: Send + Sync {
    /// `done` grows with every call; `total` when it is known.
    fn progress(&self, done: f64, total: Option<f64>, message: &str);
    fn log(&self, level: Level, logger: &str, message: &str);
}
