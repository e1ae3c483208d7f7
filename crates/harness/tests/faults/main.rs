//! Faults injected between Marquee and its backends (test-support's `FaultProxy`), and canary
//! secrets: each tool answers within its timeout with an error naming the instance, another
//! instance of the same kind answers meanwhile, nothing is kept from a bad answer, a write is
//! sent once, and no planted secret reaches an answer, an error, a log line, /metrics or a page.

#![allow(clippy::unwrap_used)]

mod canary;
mod catalogue;
mod downloads;
mod library;
mod support;
