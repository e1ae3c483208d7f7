//! Confinement beneath a root: every refusal reads exactly like a missing path, nothing outside
//! is opened, and a walk never leaves the root.

#![allow(clippy::unwrap_used)]

use std::{io::Read, os::unix::fs::symlink, path::Path, process::Command};

use adapters_folder::{FolderError, Root};

/// A root with `inside.txt`, `sub/deep.txt`, and beside the root a secret file.
fn setup() -> (tempfile::TempDir, Root) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("inside.txt"), b"inside").unwrap();
    std::fs::write(root.join("sub/deep.txt"), b"deep").unwrap();
    std::fs::write(tmp.path().join("secret.txt"), b"secret").unwrap();
    let r = Root::open(&root).unwrap();
    (tmp, r)
}

/// The text a missing path gets; every refusal must equal it.
fn missing_text(root: &Root) -> String {
    let e = root.open_file("no-such-file.mkv").unwrap_err();
    assert!(matches!(e, FolderError::NotFound), "{e:?}");
    e.to_string()
}

fn assert_refused(root: &Root, rel: &str) {
    let missing = missing_text(root);
    let e = root.open_file(rel).unwrap_err();
    assert!(matches!(e, FolderError::NotFound), "{rel:?}: {e:?}");
    assert_eq!(
        e.to_string(),
        missing,
        "{rel:?} reads differently from a missing path"
    );
    let e = root.file_facts(rel).unwrap_err();
    assert_eq!(e.to_string(), missing, "{rel:?} facts read differently");
}

#[test]
fn a_file_inside_opens_with_its_facts() {
    let (_tmp, root) = setup();
    let (mut f, facts) = root.open_file("sub/deep.txt").unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    assert_eq!(s, "deep");
    assert_eq!(facts.size, 4);
    assert!(facts.mtime_ns > 0);
}

#[test]
fn a_missing_path_is_not_found() {
    let (_tmp, root) = setup();
    assert!(matches!(
        root.open_file("sub/none.txt"),
        Err(FolderError::NotFound)
    ));
}

#[test]
fn an_absolute_path_is_refused_as_missing() {
    let (tmp, root) = setup();
    let abs = tmp.path().join("root/inside.txt");
    assert_refused(&root, abs.to_str().unwrap());
    assert_refused(&root, "/etc/passwd");
}

#[test]
fn dot_dot_is_refused_as_missing() {
    let (_tmp, root) = setup();
    assert_refused(&root, "../secret.txt");
    assert_refused(&root, "sub/../../secret.txt");
    assert_refused(&root, "..");
}

#[test]
fn a_symlink_leading_outside_is_refused_as_missing() {
    let (tmp, root) = setup();
    let r = tmp.path().join("root");
    symlink(tmp.path().join("secret.txt"), r.join("abs-out")).unwrap();
    symlink("../secret.txt", r.join("rel-out")).unwrap();
    symlink("..", r.join("up")).unwrap();
    assert_refused(&root, "abs-out");
    assert_refused(&root, "rel-out");
    assert_refused(&root, "up/secret.txt");
}

#[test]
fn a_symlink_staying_inside_is_followed() {
    let (tmp, root) = setup();
    let r = tmp.path().join("root");
    symlink("sub/deep.txt", r.join("link-in")).unwrap();
    symlink("../inside.txt", r.join("sub/link-up-in")).unwrap();
    let (_, facts) = root.open_file("link-in").unwrap();
    assert_eq!(facts.size, 4);
    let (_, facts) = root.open_file("sub/link-up-in").unwrap();
    assert_eq!(facts.size, 6);
}

#[test]
fn a_fifo_is_refused_as_missing_without_waiting() {
    let (tmp, root) = setup();
    let fifo = tmp.path().join("root/pipe");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    // A blocking open of a FIFO with no writer would hang this test; the refusal is at once.
    assert_refused(&root, "pipe");
}

#[test]
fn a_device_is_refused_as_missing() {
    let (tmp, root) = setup();
    // A symlink to a device outside is refused for leading outside; a device node inside
    // (needs mknod rights: skipped quietly without them) for its type.
    let dev = tmp.path().join("root/null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        assert_refused(&root, "null");
    }
    symlink("/dev/null", tmp.path().join("root/devlink")).unwrap();
    assert_refused(&root, "devlink");
}

#[test]
fn a_socket_is_refused_as_missing() {
    let (tmp, root) = setup();
    let sock = tmp.path().join("root/sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert_refused(&root, "sock");
}

#[test]
fn a_nul_in_the_name_is_refused_as_missing() {
    let (_tmp, root) = setup();
    assert_refused(&root, "inside.txt\0");
    assert_refused(&root, "sub\0/deep.txt");
}

#[test]
fn a_folder_and_an_empty_path_are_refused_as_missing() {
    let (_tmp, root) = setup();
    assert_refused(&root, "sub");
    assert_refused(&root, "");
    assert_refused(&root, ".");
}

#[test]
fn an_unreadable_file_inside_names_itself() {
    // root ignores permission bits: there is nothing to prove as root.
    if Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
    {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let (tmp, root) = setup();
    let p = tmp.path().join("root/locked.txt");
    std::fs::write(&p, b"x").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let e = root.open_file("locked.txt").unwrap_err();
    assert!(matches!(e, FolderError::Unreadable { .. }), "{e:?}");
    assert!(e.to_string().contains("locked.txt"));
}

#[test]
fn a_missing_root_names_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("gone");
    let e = Root::open(&gone).unwrap_err();
    assert!(matches!(e, FolderError::RootUnavailable { .. }), "{e:?}");
    assert!(e.to_string().contains(&gone.display().to_string()));
    assert!(e.to_string().contains("does not exist"));
}

#[test]
fn a_walk_lists_regular_files_and_never_leaves_the_root() {
    let (tmp, root) = setup();
    let r = tmp.path().join("root");
    symlink(tmp.path().join("secret.txt"), r.join("out-link")).unwrap();
    symlink(tmp.path(), r.join("out-dir")).unwrap();
    symlink("sub/deep.txt", r.join("in-link")).unwrap();
    symlink(".", r.join("sub/loop")).unwrap();
    Command::new("mkfifo").arg(r.join("pipe")).status().unwrap();
    std::fs::create_dir_all(r.join("a/b/c")).unwrap();
    std::fs::write(r.join("a/b/c/x.mkv"), b"xyz").unwrap();
    let (files, summary) = root.walk().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["in-link", "inside.txt", "a/b/c/x.mkv", "sub/deep.txt"]
    );
    assert_eq!(files[2].facts.size, 3);
    assert_eq!(files[0].facts.size, 4, "a link inside reports its target");
    assert!(!paths.iter().any(|p| p.contains("secret")));
    // out-link, out-dir, sub/loop (a symlink to a folder), the FIFO
    assert_eq!(summary.skipped, 4, "{summary:?}");
    assert_eq!(summary.files, 4);
    assert!(!summary.stopped);
}

#[test]
fn a_walk_stops_when_asked() {
    let (_tmp, root) = setup();
    let mut seen = 0;
    let summary = root
        .walk_with(|_| {
            seen += 1;
            std::ops::ControlFlow::Break(())
        })
        .unwrap();
    assert_eq!(seen, 1);
    assert!(summary.stopped);
}

#[test]
fn the_root_keeps_its_path_and_capability() {
    let (tmp, root) = setup();
    assert_eq!(root.path(), Path::new(&tmp.path().join("root")));
    assert!(root.dir().metadata("inside.txt").unwrap().is_file());
    assert!(root.is_dir("sub"));
    assert!(!root.is_dir("../root"));
}
