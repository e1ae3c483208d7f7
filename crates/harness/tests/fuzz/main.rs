//! Fuzz targets: every decoder of outside input and the HTTP edge, driven by the harness's
//! generator (`harness::run`). Short by default (a few hundred inputs each, for CI);
//! `HARNESS_CASES=1000000` (scripts/harness.sh --long) for the long run.
//! Property everywhere: no panic, on any thread; plus each target's own answer rule.

#![allow(clippy::unwrap_used)]

mod decoders;
mod edge;
mod parsers;
mod release_names;
mod socket;
mod support;
mod tool_answers;
mod tool_inputs;
