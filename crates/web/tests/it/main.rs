//! Integration tests of the web crate: the real router over a real in-memory SQLite, with
//! contract fakes of the backends, real torrent daemons and a real browser where a test needs
//! them. One test binary (modules below) keeps linking cheap.

#![allow(clippy::unwrap_used)]

mod peers;
mod support;
mod webdriver;

mod annotations;
mod asking;
mod call_rate;
mod cancel_steps;
mod changes;
mod completions;
mod discover;
mod display_media;
mod display_media_view;
mod downloads;
mod dropped_caller;
mod edge;
mod every_tool;
mod federated;
mod files_end_to_end;
mod import_doctor;
mod import_doctor_clients;
mod library;
mod library_reads;
mod library_repair;
mod library_repair_music_books;
mod library_requests;
mod library_sonarr_v5;
mod list_changed;
mod listen;
mod media;
mod media_playable;
mod oauth;
mod oauth_consent;
mod organize_page;
mod outbound;
mod output_schemas;
mod pages;
mod protocol_tasks;
mod requests;
mod settings_catalogue;
mod settings_changes;
mod settings_connections;
mod shortlist_acquisitions;
mod shortlist_display;
mod shortlist_household;
mod shortlist_pages;
mod shortlist_rows;
mod shortlist_schedules;
mod shortlists;
mod sources;
mod tasks;
mod tool_groups;
mod tools;
mod true_answers;
mod trust;
