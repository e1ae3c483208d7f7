//! Listing every regular file beneath a root, never leaving it: folders are opened beneath the
//! root's handle (not followed through symlinks), a symlink counts only when it resolves to a
//! regular file beneath the root, and devices, FIFOs and sockets are skipped unopened.

use std::ops::ControlFlow;

use crate::confine::{FileFacts, FolderError, Root};

/// Folders deeper than this are not entered (a guard against a symlink race building a loop).
const MAX_DEPTH: usize = 64;
/// How many per-folder failures a summary keeps word for word.
const MAX_ERRORS: usize = 10;

/// One regular file beneath the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// Relative to the root, `/`-separated, valid UTF-8 (names that are not are skipped).
    pub path: String,
    pub facts: FileFacts,
}

/// What a walk saw besides the files it listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkSummary {
    pub files: u64,
    pub folders: u64,
    /// Entries left out: names that are not UTF-8, symlinks leading outside the root or to
    /// something other than a regular file, devices, FIFOs and sockets.
    pub skipped: u64,
    /// Why folders beneath the root could not be read, the first few (the walk goes on
    /// without them).
    pub errors: Vec<String>,
    /// Every folder beneath the root that could not be read (or read whole), relative: what
    /// is indexed beneath it is not known to be gone.
    pub unreadable: Vec<String>,
    /// The visitor asked to stop before the walk was complete.
    pub stopped: bool,
}

impl Root {
    /// Every regular file beneath the root, folders in name order.
    pub fn walk(&self) -> Result<(Vec<WalkEntry>, WalkSummary), FolderError> {
        let mut out = Vec::new();
        let summary = self.walk_with(|e| {
            out.push(e);
            ControlFlow::Continue(())
        })?;
        Ok((out, summary))
    }

    /// Hands each regular file beneath the root to `visit` as it is found (depth first, names
    /// in order within a folder); `ControlFlow::Break` stops the walk. Fails only when the
    /// root itself cannot be read.
    pub fn walk_with(
        &self,
        mut visit: impl FnMut(WalkEntry) -> ControlFlow<()>,
    ) -> Result<WalkSummary, FolderError> {
        let mut summary = WalkSummary::default();
        // Pending folders by relative path (not open handles: a wide tree would run out of
        // descriptors), opened beneath the root when their turn comes.
        let mut stack: Vec<(String, usize)> = vec![(String::new(), 0)];
        while let Some((rel, depth)) = stack.pop() {
            let opened = if rel.is_empty() {
                self.dir().try_clone()
            } else {
                self.dir().open_dir(&rel)
            };
            let dir = match opened {
                Ok(d) => d,
                Err(e) if rel.is_empty() => {
                    return Err(FolderError::Io {
                        path: ".".into(),
                        reason: e.to_string(),
                    });
                }
                Err(e) => {
                    note(&mut summary, &rel, &e);
                    continue;
                }
            };
            let entries = match dir.entries() {
                Ok(it) => it,
                Err(e) if rel.is_empty() => {
                    return Err(FolderError::Io {
                        path: ".".into(),
                        reason: e.to_string(),
                    });
                }
                Err(e) => {
                    note(&mut summary, &rel, &e);
                    continue;
                }
            };
            summary.folders += 1;
            let mut names = Vec::new();
            for entry in entries {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        note(&mut summary, &rel, &e);
                        continue;
                    }
                };
                let Ok(name) = entry.file_name().into_string() else {
                    summary.skipped += 1;
                    continue;
                };
                names.push((name, entry));
            }
            names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let mut subdirs = Vec::new();
            for (name, entry) in names {
                let path = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                let Ok(ft) = entry.file_type() else {
                    summary.skipped += 1;
                    continue;
                };
                let facts = if ft.is_dir() {
                    if depth + 1 < MAX_DEPTH {
                        subdirs.push(path);
                    } else {
                        summary.skipped += 1;
                    }
                    continue;
                } else if ft.is_file() {
                    match entry.metadata() {
                        Ok(m) => FileFacts::of(&m),
                        Err(_) => {
                            summary.skipped += 1;
                            continue;
                        }
                    }
                } else if ft.is_symlink() {
                    // Resolved beneath the root (not beneath this folder), so a link to a
                    // sibling folder's file counts and one leading outside does not.
                    match self.dir().metadata(&path) {
                        Ok(m) if m.is_file() => FileFacts::of(&m),
                        _ => {
                            summary.skipped += 1;
                            continue;
                        }
                    }
                } else {
                    summary.skipped += 1;
                    continue;
                };
                summary.files += 1;
                if visit(WalkEntry { path, facts }).is_break() {
                    summary.stopped = true;
                    return Ok(summary);
                }
            }
            // Reversed so the first name is popped first.
            stack.extend(subdirs.into_iter().rev().map(|p| (p, depth + 1)));
        }
        Ok(summary)
    }
}

fn note(summary: &mut WalkSummary, rel: &str, e: &std::io::Error) {
    if summary.unreadable.last().map(String::as_str) != Some(rel) {
        summary.unreadable.push(rel.to_string());
    }
    if summary.errors.len() < MAX_ERRORS {
        summary.errors.push(format!("{rel}: {e}"));
    }
}
