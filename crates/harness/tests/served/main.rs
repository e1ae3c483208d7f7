//! The harness against the real binary: a `marquee serve` process (this build's), SIGKILLed at
//! random moments of `request_media`, `apply_change` and `grab_release` against real torrent
//! daemons and the *arr fakes, and of an organise's apply on real folders, and started again,
//! 50 rounds each in the long run (`HARNESS_CRASH_ROUNDS`; 5 in the short run): nothing
//! doubled, nothing lost, every cut-off write finished as applied (from a stored proof) or
//! `outcome_unknown`, quotas and allowances equal to what the audit says. And its data folder on
//! a full file system: writes refused with a sentence, reads answered, nothing corrupt when
//! space returns.

#![allow(clippy::unwrap_used)]

mod crash_changes;
mod crash_grabs;
mod crash_organize;
mod crash_requests;
mod full_disk;
mod replicas;
mod scale_out;
mod support;
