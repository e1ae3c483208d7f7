//! Listing every regular file beneath a root, never leaving it: each folder is opened beneath
//! the root's handle in one step (not followed through symlinks) and read through that one
//! descriptor, a symlink counts only when it resolves to a regular file beneath the root, and
//! devices, FIFOs and sockets are skipped unopened. A file's size and modification time are read
//! (one `fstatat` beside the folder's handle) only when the visitor asks for them, so names a
//! caller does not want cost no system call.

use std::ops::ControlFlow;

use cap_std::fs::{OpenOptions, OpenOptionsExt};
use rustix::fs::{AtFlags, FileType, OFlags};

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

/// A name in a folder that may be a regular file (a regular file, or a symlink that may lead
/// to one), handed to [`Root::walk_names`]'s visitor before anything is read about it.
pub struct Candidate<'a> {
    /// Relative to the root, `/`-separated.
    pub path: &'a str,
    name: &'a str,
    symlink: bool,
    dir: &'a rustix::fs::Dir,
    root: &'a Root,
}

impl Candidate<'_> {
    /// The file's size and modification time; `None` when it is no regular file beneath the
    /// root (a symlink leading outside or to something else) or vanished meanwhile.
    pub fn facts(&self) -> Option<FileFacts> {
        if self.symlink {
            // Resolved beneath the root (not beneath this folder), so a link to a sibling
            // folder's file counts and one leading outside does not.
            return match self.root.dir().metadata(self.path) {
                Ok(m) if m.is_file() => Some(FileFacts::of(&m)),
                _ => None,
            };
        }
        let fd = self.dir.fd().ok()?;
        let st = rustix::fs::statat(fd, self.name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then(|| FileFacts {
            size: u64::try_from(st.st_size).unwrap_or_default(),
            mtime_ns: (st.st_mtime as i64)
                .saturating_mul(1_000_000_000)
                .saturating_add(st.st_mtime_nsec as i64),
        })
    }
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
        let mut skipped = 0;
        let mut summary = self.walk_names(|c| match c.facts() {
            Some(facts) => visit(WalkEntry {
                path: c.path.to_owned(),
                facts,
            }),
            None => {
                skipped += 1;
                ControlFlow::Continue(())
            }
        })?;
        summary.files -= skipped;
        summary.skipped += skipped;
        Ok(summary)
    }

    /// Hands each name beneath the root that may be a regular file to `visit` (depth first,
    /// names in order within a folder), nothing read about it yet: [`Candidate::facts`] reads
    /// its size and modification time when the visitor wants them. `summary.files` counts the
    /// candidates. `ControlFlow::Break` stops the walk. Fails only when the root itself cannot
    /// be read.
    pub fn walk_names(
        &self,
        mut visit: impl FnMut(&Candidate<'_>) -> ControlFlow<()>,
    ) -> Result<WalkSummary, FolderError> {
        let mut summary = WalkSummary::default();
        // Pending folders by relative path (not open handles: a wide tree would run out of
        // descriptors), opened beneath the root when their turn comes.
        let mut stack: Vec<(String, usize)> = vec![(String::new(), 0)];
        let mut names: Vec<(String, FileType)> = Vec::new();
        let mut path = String::new();
        let mut readable = OpenOptions::new();
        readable
            .read(true)
            .custom_flags((OFlags::DIRECTORY | OFlags::CLOEXEC).bits() as i32);
        while let Some((rel, depth)) = stack.pop() {
            // The one descriptor the folder is read and its files looked at through, opened
            // for reading (the root's own handle is a path handle).
            let dir = self
                .dir()
                .open_with(if rel.is_empty() { "." } else { rel.as_str() }, &readable)
                .and_then(|d| {
                    let fd: std::os::fd::OwnedFd = d.into_std().into();
                    rustix::fs::Dir::new(fd).map_err(std::io::Error::from)
                });
            let mut dir = match dir {
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
            summary.folders += 1;
            names.clear();
            while let Some(entry) = dir.read() {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        note(&mut summary, &rel, &e.into());
                        break;
                    }
                };
                let bytes = entry.file_name().to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                let Ok(name) = std::str::from_utf8(bytes) else {
                    summary.skipped += 1;
                    continue;
                };
                let mut ft = entry.file_type();
                if ft == FileType::Unknown {
                    // The file system does not say in the listing: ask without following.
                    ft = dir
                        .fd()
                        .and_then(|fd| rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW))
                        .map_or(FileType::Unknown, |st| FileType::from_raw_mode(st.st_mode));
                }
                names.push((name.to_owned(), ft));
            }
            names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let mut subdirs = Vec::new();
            path.clear();
            path.push_str(&rel);
            if !rel.is_empty() {
                path.push('/');
            }
            let base = path.len();
            for (name, ft) in &names {
                path.truncate(base);
                path.push_str(name);
                match *ft {
                    FileType::Directory => {
                        if depth + 1 < MAX_DEPTH {
                            subdirs.push(path.clone());
                        } else {
                            summary.skipped += 1;
                        }
                    }
                    FileType::RegularFile | FileType::Symlink => {
                        summary.files += 1;
                        let candidate = Candidate {
                            path: &path,
                            name,
                            symlink: *ft == FileType::Symlink,
                            dir: &dir,
                            root: self,
                        };
                        if visit(&candidate).is_break() {
                            summary.stopped = true;
                            return Ok(summary);
                        }
                    }
                    _ => summary.skipped += 1,
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
