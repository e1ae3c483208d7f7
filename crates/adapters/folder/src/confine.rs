//! The root handle and the one gate every relative path passes: [`relative`] refuses what
//! cannot be beneath a root without asking the file system, [`Root::open_file`] resolves the
//! rest beneath the root and checks the opened handle's type. Every refusal is
//! [`FolderError::NotFound`], the answer a missing path gets, so no answer tells whether
//! something exists outside the root.

use std::{
    io,
    path::{Component, Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use cap_std::{
    ambient_authority,
    fs::{Dir, File, Metadata, OpenOptions, OpenOptionsExt},
};
use rustix::fs::OFlags;

/// What a folder operation answers when it fails. `NotFound` carries nothing, by design: the
/// missing path and the refused one (outside the root, a device, a FIFO, a NUL) read the same.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("no such file or folder beneath the folder's root")]
    NotFound,
    /// The root itself cannot be opened (gone, not a directory, unreadable). Names the
    /// configured path: the owner's own setting, not a caller's probe.
    #[error("the folder {path} cannot be opened: {reason}")]
    RootUnavailable { path: String, reason: String },
    /// A file beneath the root that exists but may not be read (permission denied).
    #[error("{path} beneath the folder cannot be read: permission denied")]
    Unreadable { path: String },
    /// Any other failure while reading beneath the root (an I/O error, a vanished folder).
    #[error("reading {path} beneath the folder failed: {reason}")]
    Io { path: String, reason: String },
}

/// Size and modification time of an opened regular file, read from its handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileFacts {
    pub size: u64,
    /// Nanoseconds since the Unix epoch (negative before it); 0 where the system has no mtime.
    pub mtime_ns: i64,
}

impl FileFacts {
    pub(crate) fn of(meta: &Metadata) -> FileFacts {
        FileFacts {
            size: meta.len(),
            mtime_ns: meta.modified().map(|t| mtime_ns(t.into_std())).unwrap_or(0),
        }
    }
}

fn mtime_ns(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

/// A folder instance's root, opened once: every access goes through this directory handle.
#[derive(Debug)]
pub struct Root {
    dir: Dir,
    path: PathBuf,
}

impl Root {
    /// Opens the configured folder (an absolute path from the owner's config).
    pub fn open(path: impl AsRef<Path>) -> Result<Root, FolderError> {
        let path = path.as_ref();
        let unavailable = |reason: String| FolderError::RootUnavailable {
            path: path.display().to_string(),
            reason,
        };
        let dir = Dir::open_ambient_dir(path, ambient_authority()).map_err(|e| {
            unavailable(match e.kind() {
                io::ErrorKind::NotFound => "it does not exist".to_string(),
                io::ErrorKind::NotADirectory => "it is not a directory".to_string(),
                _ => e.to_string(),
            })
        })?;
        Ok(Root {
            dir,
            path: path.to_path_buf(),
        })
    }

    /// The configured path this root was opened from (for the owner's messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The capability itself, for modules that write beneath the same root. Every path given
    /// to it should pass [`relative`] first.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Opens a regular file beneath the root for reading and answers its facts, read from the
    /// opened handle. Devices, FIFOs and sockets are opened non-blocking (so nothing waits) and
    /// refused on the handle's type before anything is read.
    pub fn open_file(&self, rel: &str) -> Result<(std::fs::File, FileFacts), FolderError> {
        let rel_path = relative(rel)?;
        // A cheap look first, so a device node is normally not even opened; the handle's own
        // type below is what decides (the name may be swapped between the two).
        match self.dir.metadata(rel_path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(FolderError::NotFound),
            Err(e) => return Err(classify(rel, &e)),
        }
        let mut opts = OpenOptions::new();
        opts.read(true)
            .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
        let file: File = self
            .dir
            .open_with(rel_path, &opts)
            .map_err(|e| classify(rel, &e))?;
        let meta = file.metadata().map_err(|e| classify(rel, &e))?;
        if !meta.is_file() {
            return Err(FolderError::NotFound);
        }
        Ok((file.into_std(), FileFacts::of(&meta)))
    }

    /// The facts of a regular file beneath the root without opening it for reading; the same
    /// refusals as [`Root::open_file`].
    pub fn file_facts(&self, rel: &str) -> Result<FileFacts, FolderError> {
        let rel_path = relative(rel)?;
        match self.dir.metadata(rel_path) {
            Ok(m) if m.is_file() => Ok(FileFacts::of(&m)),
            Ok(_) => Err(FolderError::NotFound),
            Err(e) => Err(classify(rel, &e)),
        }
    }

    /// Whether a directory exists beneath the root (a symlink inside it counts).
    pub fn is_dir(&self, rel: &str) -> bool {
        relative(rel)
            .ok()
            .and_then(|p| self.dir.metadata(p).ok())
            .is_some_and(|m| m.is_dir())
    }
}

/// The lexical gate: a non-empty relative path of normal components (`.` allowed), no NUL, no
/// `..`, nothing absolute. Refusals are [`FolderError::NotFound`]; the file system decides the
/// rest (symlinks) beneath the root.
pub fn relative(rel: &str) -> Result<&Path, FolderError> {
    if rel.is_empty() || rel.contains('\0') {
        return Err(FolderError::NotFound);
    }
    let path = Path::new(rel);
    let mut normal = false;
    for c in path.components() {
        match c {
            Component::Normal(_) => normal = true,
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(FolderError::NotFound);
            }
        }
    }
    if normal {
        Ok(path)
    } else {
        Err(FolderError::NotFound)
    }
}

/// An error from resolving or reading `rel` beneath the root. Only a real permission error
/// from the system (an errno, not cap-std's own "led outside" refusal) says more than
/// not-found; the resolution beneath never touches anything outside, so that errno is about
/// a file inside.
pub(crate) fn classify(rel: &str, e: &io::Error) -> FolderError {
    if e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error() == Some(libc_eacces()) {
        return FolderError::Unreadable {
            path: rel.to_string(),
        };
    }
    FolderError::NotFound
}

fn libc_eacces() -> i32 {
    rustix::io::Errno::ACCESS.raw_os_error()
}
