//! Confined writes beneath a root: create parent folders, hard link, copy, move, symlink,
//! create a new file and remove one. Every path passes [`relative`] and is resolved beneath its
//! root's handle; a write never replaces an existing destination (hard links and `O_EXCL`
//! refuse one, copies land under a temporary name and are renamed with `RENAME_NOREPLACE`),
//! except [`replace_file`], which is asked for by name.

use std::{
    io::{self, Write as _},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use cap_std::fs::{Dir, MetadataExt, OpenOptions};
use rustix::fs::RenameFlags;

use crate::confine::{FileFacts, Root, relative};

/// Why a write was not made. Every variant names the relative path it is about.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The destination exists: nothing is replaced.
    #[error("{path} already exists beneath the destination folder; nothing is replaced")]
    Exists { path: String },
    /// A hard link between two file systems: the kernel cannot make one.
    #[error(
        "{from} cannot be hard-linked to {to}: the two folders are on different file systems, and a hard link cannot cross file systems; use mode copy instead"
    )]
    CrossDevice { from: String, to: String },
    /// The source is missing (or refused beneath its root, which reads the same).
    #[error("{path}: no such file beneath the folder's root")]
    NotFound { path: String },
    /// Any other failure of the file system.
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
}

impl WriteError {
    fn io(path: &str, e: &io::Error) -> WriteError {
        match e.kind() {
            io::ErrorKind::AlreadyExists => WriteError::Exists { path: path.into() },
            io::ErrorKind::NotFound => WriteError::NotFound { path: path.into() },
            _ => WriteError::Io {
                path: path.into(),
                reason: e.to_string(),
            },
        }
    }
}

/// What a file beneath a root is now: enough to tell "the same file" (device and inode) and
/// "unchanged" (size and modification time) apart. Symlinks are described, not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub facts: FileFacts,
    /// The entry is a symbolic link (described itself, not its target).
    pub symlink: bool,
}

/// How a move was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// Renamed within one file system.
    Renamed,
    /// Copied to the other file system, then the source removed.
    Copied,
}

/// What is at `rel` beneath `root` now (`None`: nothing; a refused path reads as nothing).
pub fn identity(root: &Root, rel: &str) -> Result<Option<Identity>, WriteError> {
    let Ok(path) = relative(rel) else {
        return Ok(None);
    };
    match root.dir().symlink_metadata(path) {
        Ok(m) => Ok(Some(Identity {
            dev: m.dev(),
            ino: m.ino(),
            facts: FileFacts::of(&m),
            symlink: m.file_type().is_symlink(),
        })),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        // A parent that is a file, or a path through a symlink leading outside: nothing there.
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none() => {
            Ok(None)
        }
        Err(e) => Err(WriteError::io(rel, &e)),
    }
}

/// Creates the folders above `rel` beneath `root` (none when `rel` is at the top).
pub fn create_parents(root: &Root, rel: &str) -> Result<(), WriteError> {
    let path = checked(rel)?;
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => root
            .dir()
            .create_dir_all(parent)
            .map_err(|e| WriteError::io(rel, &e)),
        _ => Ok(()),
    }
}

/// Hard-links `src` beneath `from` as `dst` beneath `to`, creating `dst`'s folders. Refuses an
/// existing `dst`, and two roots on different file systems ([`WriteError::CrossDevice`]).
pub fn hard_link(from: &Root, src: &str, to: &Root, dst: &str) -> Result<(), WriteError> {
    regular(from, src)?;
    let (s, d) = (checked(src)?, checked(dst)?);
    create_parents(to, dst)?;
    from.dir()
        .hard_link(s, to.dir(), d)
        .map_err(|e| match e.kind() {
            io::ErrorKind::CrossesDevices => WriteError::CrossDevice {
                from: src.into(),
                to: dst.into(),
            },
            io::ErrorKind::AlreadyExists => WriteError::Exists { path: dst.into() },
            _ => WriteError::io(src, &e),
        })?;
    sync_parent(to, d);
    Ok(())
}

/// Copies `src` beneath `from` to `dst` beneath `to`: written under a temporary name beside
/// `dst`, flushed to disk, then renamed to `dst` without replacing anything. A failure leaves
/// no partial `dst` (the temporary file is removed); a crash can leave only the temporary file,
/// which the next copy to the same name, or [`clear_leftovers`], removes.
pub fn copy(from: &Root, src: &str, to: &Root, dst: &str) -> Result<(), WriteError> {
    let (mut input, _) = from
        .open_file(src)
        .map_err(|_| WriteError::NotFound { path: src.into() })?;
    let d = checked(dst)?;
    if exists(to.dir(), d) {
        return Err(WriteError::Exists { path: dst.into() });
    }
    create_parents(to, dst)?;
    let (parent, name) = split(d);
    let folder = open_folder(to.dir(), parent).map_err(|e| WriteError::io(dst, &e))?;
    clear_stale_temporaries(&folder, name);
    let (tmp, mut out) = temporary(&folder, name).map_err(|e| WriteError::io(dst, &e))?;
    let written = io::copy(&mut input, &mut out)
        .and_then(|_| out.flush())
        .and_then(|()| out.sync_all());
    drop(out);
    let placed = written.and_then(|()| rename_noreplace(&folder, &tmp, &folder, name));
    if let Err(e) = placed {
        let _ = folder.remove_file(&tmp);
        return Err(WriteError::io(dst, &e));
    }
    let _ = rustix::fs::fsync(&folder);
    Ok(())
}

/// Moves `src` beneath `from` to `dst` beneath `to`: a rename that never replaces, or across
/// file systems a [`copy`] and then the removal of the source.
pub fn move_file(from: &Root, src: &str, to: &Root, dst: &str) -> Result<Moved, WriteError> {
    regular(from, src)?;
    let (s, d) = (checked(src)?, checked(dst)?);
    create_parents(to, dst)?;
    let (sp, sn) = split(s);
    let (dp, dn) = split(d);
    let source_folder = open_folder(from.dir(), sp).map_err(|e| WriteError::io(src, &e))?;
    let target_folder = open_folder(to.dir(), dp).map_err(|e| WriteError::io(dst, &e))?;
    match rename_noreplace(&source_folder, sn, &target_folder, dn) {
        Ok(()) => {
            let _ = rustix::fs::fsync(&target_folder);
            let _ = rustix::fs::fsync(&source_folder);
            Ok(Moved::Renamed)
        }
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            copy(from, src, to, dst)?;
            source_folder
                .remove_file(sn)
                .map_err(|e| WriteError::io(src, &e))?;
            let _ = rustix::fs::fsync(&source_folder);
            Ok(Moved::Copied)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(WriteError::Exists { path: dst.into() })
        }
        Err(e) => Err(WriteError::io(src, &e)),
    }
}

/// Makes `dst` beneath `to` a symbolic link to `target` (an absolute path, normally a file
/// beneath another root). Refuses an existing `dst`.
pub fn symlink(to: &Root, dst: &str, target: &Path) -> Result<(), WriteError> {
    let d = checked(dst)?;
    create_parents(to, dst)?;
    to.dir()
        .symlink_contents(target, d)
        .map_err(|e| WriteError::io(dst, &e))?;
    sync_parent(to, d);
    Ok(())
}

/// Creates `rel` beneath `root` with `contents`, never opening an existing file (`O_EXCL`);
/// flushed to disk before it answers.
pub fn create_new_file(root: &Root, rel: &str, contents: &[u8]) -> Result<(), WriteError> {
    let path = checked(rel)?;
    create_parents(root, rel)?;
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    let mut file = root
        .dir()
        .open_with(path, &opts)
        .map_err(|e| WriteError::io(rel, &e))?;
    let written = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(|e| WriteError::io(rel, &e));
    if written.is_err() {
        drop(file);
        let _ = root.dir().remove_file(path);
    }
    written?;
    sync_parent(root, path);
    Ok(())
}

/// Writes `rel` beneath `root` with `contents`, replacing what is there: written under a
/// temporary name, flushed, then renamed over it. Only for a file the caller was told it may
/// replace (one Marquee wrote, or a plan that says so).
pub fn replace_file(root: &Root, rel: &str, contents: &[u8]) -> Result<(), WriteError> {
    let path = checked(rel)?;
    create_parents(root, rel)?;
    let (parent, name) = split(path);
    let folder = open_folder(root.dir(), parent).map_err(|e| WriteError::io(rel, &e))?;
    let (tmp, mut out) = temporary(&folder, name).map_err(|e| WriteError::io(rel, &e))?;
    let flushed = out.write_all(contents).and_then(|()| out.sync_all());
    drop(out);
    let written = flushed.and_then(|()| folder.rename(&tmp, &folder, name));
    if let Err(e) = written {
        let _ = folder.remove_file(&tmp);
        return Err(WriteError::io(rel, &e));
    }
    let _ = rustix::fs::fsync(&folder);
    Ok(())
}

/// Removes the file (or symbolic link) `rel` beneath `root`; `false` when nothing was there.
pub fn remove(root: &Root, rel: &str) -> Result<bool, WriteError> {
    let path = checked(rel)?;
    match root.dir().remove_file(path) {
        Ok(()) => {
            sync_parent(root, path);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(WriteError::io(rel, &e)),
    }
}

/// Removes the folders above `rel` that are empty, up to (not including) the root: what
/// undoing a write leaves behind.
pub fn remove_empty_parents(root: &Root, rel: &str) {
    let Ok(path) = checked(rel) else {
        return;
    };
    let mut at = path.parent();
    while let Some(folder) = at.filter(|p| !p.as_os_str().is_empty()) {
        if root.dir().remove_dir(folder).is_err() {
            return;
        }
        at = folder.parent();
    }
}

/// The lexical gate, as a write error.
fn checked(rel: &str) -> Result<&Path, WriteError> {
    relative(rel).map_err(|_| WriteError::NotFound { path: rel.into() })
}

/// `src` is a regular file beneath `from` (a symlink, device or folder is refused as missing).
fn regular(from: &Root, src: &str) -> Result<(), WriteError> {
    let path = checked(src)?;
    match from.dir().symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(WriteError::NotFound { path: src.into() }),
        Err(e) => Err(WriteError::io(src, &e)),
    }
}

fn exists(dir: &Dir, path: &Path) -> bool {
    dir.symlink_metadata(path).is_ok()
}

/// The folder part and the file name of a checked relative path.
fn split(path: &Path) -> (&Path, &Path) {
    let name = path.file_name().map_or(path, Path::new);
    (path.parent().unwrap_or(Path::new("")), name)
}

/// The folder `rel` beneath `dir`, opened beneath it (the root itself for an empty path).
fn open_folder(dir: &Dir, rel: &Path) -> io::Result<Dir> {
    if rel.as_os_str().is_empty() {
        dir.try_clone()
    } else {
        dir.open_dir(rel)
    }
}

/// Flushes the folder holding `rel` (so a new name survives a power cut); best effort.
fn sync_parent(root: &Root, rel: &Path) {
    if let Ok(folder) = open_folder(root.dir(), split(rel).0) {
        let _ = rustix::fs::fsync(&folder);
    }
}

/// This machine's name, letters and digits only: a temporary file names the machine and the
/// process that writes it, since a process number means something only on its own machine
/// (two servers may share a folder over the network).
fn machine() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        let name: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(32)
            .collect();
        if name.is_empty() { "host".into() } else { name }
    })
}

/// A new temporary file beside `name` in `folder`, created exclusively: its name and handle.
fn temporary(folder: &Dir, name: &Path) -> io::Result<(PathBuf, cap_std::fs::File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = PathBuf::from(format!(
            ".{}.marquee-{}-{}-{n}.part",
            name.display(),
            machine(),
            std::process::id()
        ));
        match folder.open_with(&tmp, &opts) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// How long a temporary file must have been left alone before a later copy to the same name
/// removes it as a crash's leftover although the process named in it runs (a copy under way
/// writes to its own all the time; the number may be another process's by now).
const STALE_TEMPORARY: Duration = Duration::from_secs(600);

/// Removes the temporary files a crashed write left beside `rel` beneath `root` (what undoing
/// a cut-off organise calls for each destination); best effort, see [`clear_stale_temporaries`].
pub fn clear_leftovers(root: &Root, rel: &str) {
    let Ok(path) = checked(rel) else {
        return;
    };
    let (parent, name) = split(path);
    if let Ok(folder) = open_folder(root.dir(), parent) {
        clear_stale_temporaries(&folder, name);
    }
}

/// Whether the process that named a temporary file is gone: it has not touched the file for
/// [`STALE_TEMPORARY`], or it was a process of this machine and no process of that number runs
/// (a crash's leftover, at once). Another machine's process is judged by the age alone.
fn writer_gone(file: &str, prefix: &str, age: Duration) -> bool {
    if age >= STALE_TEMPORARY {
        return true;
    }
    let mut parts = file[prefix.len()..].split('-');
    let (Some(host), Some(pid)) = (parts.next(), parts.next()) else {
        return false;
    };
    match pid.parse::<u32>() {
        Ok(pid) if host == machine() && pid != std::process::id() => {
            !Path::new("/proc").join(pid.to_string()).exists()
        }
        _ => false,
    }
}

/// Removes the temporary files a crashed copy left beside `name` in `folder`: named as
/// [`temporary`] names them, regular files, whose writer is gone ([`writer_gone`]); best effort.
fn clear_stale_temporaries(folder: &Dir, name: &Path) {
    let prefix = format!(".{}.marquee-", name.display());
    let Ok(entries) = folder.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else {
            continue;
        };
        if !(file.starts_with(&prefix) && file.ends_with(".part")) {
            continue;
        }
        let stale = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .map(|t| t.into_std().elapsed().unwrap_or_default())
            .is_some_and(|age| writer_gone(file, &prefix, age));
        if stale {
            let _ = folder.remove_file(file);
        }
    }
}

/// Renames the single name `src` in `from` to the single name `dst` in `to`, never replacing
/// (`RENAME_NOREPLACE`; where the file system lacks it, a hard link and an unlink, which also
/// never replace).
fn rename_noreplace(from: &Dir, src: &Path, to: &Dir, dst: &Path) -> io::Result<()> {
    match rustix::fs::renameat_with(from, src, to, dst, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            from.hard_link(src, to, dst)?;
            from.remove_file(src)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn roots() -> (tempfile::TempDir, Root, Root) {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("a/in")).unwrap();
        std::fs::create_dir_all(t.path().join("b")).unwrap();
        std::fs::write(t.path().join("a/in/x.mkv"), b"movie").unwrap();
        let a = Root::open(t.path().join("a")).unwrap();
        let b = Root::open(t.path().join("b")).unwrap();
        (t, a, b)
    }

    #[test]
    fn a_hard_link_is_the_same_file_and_never_replaces() {
        let (t, a, b) = roots();
        hard_link(&a, "in/x.mkv", &b, "X (2000)/X (2000).mkv").unwrap();
        let (src, dst) = (
            identity(&a, "in/x.mkv").unwrap().unwrap(),
            identity(&b, "X (2000)/X (2000).mkv").unwrap().unwrap(),
        );
        assert_eq!((src.dev, src.ino), (dst.dev, dst.ino));
        let again = hard_link(&a, "in/x.mkv", &b, "X (2000)/X (2000).mkv");
        assert!(matches!(again, Err(WriteError::Exists { .. })), "{again:?}");
        assert_eq!(
            std::fs::read(t.path().join("b/X (2000)/X (2000).mkv")).unwrap(),
            b"movie"
        );
    }

    #[test]
    fn a_copy_lands_whole_under_its_name_and_never_replaces() {
        let (t, a, b) = roots();
        copy(&a, "in/x.mkv", &b, "c/x.mkv").unwrap();
        assert_eq!(std::fs::read(t.path().join("b/c/x.mkv")).unwrap(), b"movie");
        let (src, dst) = (
            identity(&a, "in/x.mkv").unwrap().unwrap(),
            identity(&b, "c/x.mkv").unwrap().unwrap(),
        );
        assert_ne!(src.ino, dst.ino);
        std::fs::write(t.path().join("b/c/y.mkv"), b"mine").unwrap();
        assert!(matches!(
            copy(&a, "in/x.mkv", &b, "c/y.mkv"),
            Err(WriteError::Exists { .. })
        ));
        assert_eq!(std::fs::read(t.path().join("b/c/y.mkv")).unwrap(), b"mine");
        let left: Vec<_> = std::fs::read_dir(t.path().join("b/c"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
    }

    #[test]
    fn a_copy_removes_what_a_crashed_copy_to_the_same_name_left_and_nothing_else() {
        let (t, a, b) = roots();
        std::fs::create_dir_all(t.path().join("b/c")).unwrap();
        let (host, me) = (machine(), std::process::id());
        let leftover = t
            .path()
            .join(format!("b/c/.x.mkv.marquee-{host}-{me}-0.part"));
        let fresh = t
            .path()
            .join(format!("b/c/.x.mkv.marquee-{host}-{me}-1.part"));
        let other = t
            .path()
            .join(format!("b/c/.y.mkv.marquee-{host}-{me}-0.part"));
        // No process has this number (above any pid_max): a crashed writer's, gone at once.
        let crashed = t
            .path()
            .join(format!("b/c/.x.mkv.marquee-{host}-4294967295-7.part"));
        // The same number on another machine sharing the folder: its copy may be under way.
        let elsewhere = t
            .path()
            .join("b/c/.x.mkv.marquee-othermachine0-4294967295-7.part");
        for p in [&leftover, &fresh, &other, &crashed, &elsewhere] {
            std::fs::write(p, b"mov").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - 2 * STALE_TEMPORARY;
        for p in [&leftover, &other] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        copy(&a, "in/x.mkv", &b, "c/x.mkv").unwrap();
        assert_eq!(std::fs::read(t.path().join("b/c/x.mkv")).unwrap(), b"movie");
        assert!(!leftover.exists(), "a stale leftover of this name goes");
        assert!(
            !crashed.exists(),
            "a leftover whose writer is gone goes at once"
        );
        assert!(fresh.exists(), "one written lately may be a copy under way");
        assert!(
            elsewhere.exists(),
            "another machine's process is judged by age alone"
        );
        assert!(other.exists(), "another name's is not this copy's business");
        std::fs::write(&crashed, b"mov").unwrap();
        clear_leftovers(&b, "c/x.mkv");
        assert!(!crashed.exists() && fresh.exists() && other.exists());
    }

    #[test]
    fn a_move_renames_and_refuses_an_existing_destination() {
        let (t, a, b) = roots();
        std::fs::write(t.path().join("b/taken.mkv"), b"mine").unwrap();
        assert!(matches!(
            move_file(&a, "in/x.mkv", &b, "taken.mkv"),
            Err(WriteError::Exists { .. })
        ));
        assert!(t.path().join("a/in/x.mkv").exists());
        assert_eq!(
            move_file(&a, "in/x.mkv", &b, "m/x.mkv").unwrap(),
            Moved::Renamed
        );
        assert!(!t.path().join("a/in/x.mkv").exists());
        assert_eq!(std::fs::read(t.path().join("b/m/x.mkv")).unwrap(), b"movie");
    }

    #[test]
    fn a_symlink_points_at_the_source_and_never_replaces() {
        let (t, a, b) = roots();
        let target = a.path().join("in/x.mkv");
        symlink(&b, "s/x.mkv", &target).unwrap();
        assert_eq!(std::fs::read(t.path().join("b/s/x.mkv")).unwrap(), b"movie");
        assert!(identity(&b, "s/x.mkv").unwrap().unwrap().symlink);
        assert!(matches!(
            symlink(&b, "s/x.mkv", &target),
            Err(WriteError::Exists { .. })
        ));
    }

    #[test]
    fn create_new_never_overwrites_and_remove_undoes() {
        let (t, _a, b) = roots();
        create_new_file(&b, "n/movie.nfo", b"<movie/>").unwrap();
        assert!(matches!(
            create_new_file(&b, "n/movie.nfo", b"other"),
            Err(WriteError::Exists { .. })
        ));
        assert_eq!(
            std::fs::read(t.path().join("b/n/movie.nfo")).unwrap(),
            b"<movie/>"
        );
        replace_file(&b, "n/movie.nfo", b"<movie>2</movie>").unwrap();
        assert_eq!(
            std::fs::read(t.path().join("b/n/movie.nfo")).unwrap(),
            b"<movie>2</movie>"
        );
        assert!(remove(&b, "n/movie.nfo").unwrap());
        assert!(!remove(&b, "n/movie.nfo").unwrap());
        remove_empty_parents(&b, "n/movie.nfo");
        assert!(!t.path().join("b/n").exists());
        assert!(t.path().join("b").exists());
    }

    /// A root on another file system than the temporary folder: Linux's `/dev/shm` (tmpfs).
    fn other_file_system() -> (tempfile::TempDir, Root) {
        let t = tempfile::tempdir_in("/dev/shm").unwrap();
        let r = Root::open(t.path()).unwrap();
        (t, r)
    }

    #[test]
    fn a_hard_link_across_file_systems_is_refused_and_a_move_copies() {
        let (t, a, _b) = roots();
        let (shm, other) = other_file_system();
        let (here, there) = (
            std::fs::metadata(t.path()).unwrap(),
            std::fs::metadata(shm.path()).unwrap(),
        );
        use std::os::unix::fs::MetadataExt as _;
        assert_ne!(here.dev(), there.dev(), "/dev/shm is another file system");
        let e = hard_link(&a, "in/x.mkv", &other, "x.mkv").unwrap_err();
        assert!(matches!(e, WriteError::CrossDevice { .. }), "{e:?}");
        assert!(e.to_string().contains("use mode copy"), "{e}");
        assert!(!shm.path().join("x.mkv").exists());
        assert_eq!(
            move_file(&a, "in/x.mkv", &other, "m/x.mkv").unwrap(),
            Moved::Copied
        );
        assert!(!t.path().join("a/in/x.mkv").exists());
        assert_eq!(std::fs::read(shm.path().join("m/x.mkv")).unwrap(), b"movie");
    }

    #[test]
    fn paths_outside_the_root_are_refused_as_missing() {
        let (t, a, b) = roots();
        std::fs::write(t.path().join("outside.mkv"), b"no").unwrap();
        for bad in ["../outside.mkv", "/etc/passwd", "", "a\0b"] {
            assert!(
                matches!(
                    hard_link(&a, bad, &b, "z.mkv"),
                    Err(WriteError::NotFound { .. })
                ),
                "{bad:?}"
            );
            assert!(matches!(
                create_new_file(&b, bad, b"x"),
                Err(WriteError::NotFound { .. })
            ));
        }
        std::os::unix::fs::symlink(t.path().join("outside.mkv"), t.path().join("a/out.mkv"))
            .unwrap();
        assert!(matches!(
            copy(&a, "out.mkv", &b, "z.mkv"),
            Err(WriteError::NotFound { .. })
        ));
        // A write through a symlinked folder that leads outside is refused, not made there.
        std::os::unix::fs::symlink(t.path(), t.path().join("b/up")).unwrap();
        assert!(create_new_file(&b, "up/escaped.nfo", b"x").is_err());
        assert!(!t.path().join("escaped.nfo").exists());
    }
}
