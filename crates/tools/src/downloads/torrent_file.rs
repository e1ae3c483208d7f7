//! Reading a .torrent file for `add_torrent`, only from the folders the owner configured
//! (`[downloads] torrent_folders`): the path is canonicalised, so `..` and symlinks cannot
//! lead out, and every path outside them gets one sentence, whether or not it exists.

use std::path::{Component, Path, PathBuf};

use tokio::io::AsyncReadExt;

use governance::ToolError;

/// The largest .torrent file read from disk.
const MAX_TORRENT_FILE: u64 = 10 * 1024 * 1024;
/// How long opening and reading it may take.
const READ_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// The bytes of the .torrent file at `raw` (an absolute path), if it lies inside one of `folders`.
/// A refusal names the folders only to a caller who may see the household's set-up
/// (`show_folders`): where the server's files live is no one else's to learn.
pub(super) async fn read(
    folders: &[PathBuf],
    show_folders: bool,
    raw: &str,
) -> Result<Vec<u8>, ToolError> {
    let refused = || ToolError::invalid(refusal(folders, show_folders));
    let path = Path::new(raw);
    if folders.is_empty() || path.components().any(|c| c == Component::ParentDir) {
        return Err(refused());
    }
    let real = tokio::fs::canonicalize(path).await.map_err(|_| refused())?;
    let mut inside = false;
    for folder in folders {
        if let Ok(root) = tokio::fs::canonicalize(folder).await {
            inside |= real != root && real.starts_with(&root);
        }
    }
    if !inside {
        return Err(refused());
    }
    let not_a_file = || ToolError::invalid("source is not a file of at most 10 MiB");
    // The type is checked before the file is opened: opening a FIFO (or a device) would wait
    // for a writer, forever.
    let meta = tokio::fs::metadata(&real).await.map_err(|_| refused())?;
    if !meta.is_file() || meta.len() > MAX_TORRENT_FILE {
        return Err(not_a_file());
    }
    // A file swapped for something else between the check and the read still cannot hold the
    // call: the open and the read are bounded in time, and the opened file is checked again.
    let read = async {
        let file = tokio::fs::File::open(&real).await.map_err(|_| refused())?;
        let meta = file.metadata().await.map_err(|_| refused())?;
        if !meta.is_file() || meta.len() > MAX_TORRENT_FILE {
            return Err(not_a_file());
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_TORRENT_FILE + 1)
            .read_to_end(&mut bytes)
            .await
            .map_err(|_| refused())?;
        Ok(bytes)
    };
    let bytes = tokio::time::timeout(READ_WITHIN, read)
        .await
        .map_err(|_| ToolError::invalid("source could not be read in time; nothing was added"))??;
    if bytes.len() as u64 > MAX_TORRENT_FILE {
        return Err(not_a_file());
    }
    Ok(bytes)
}

/// The one answer for every path that may not be read: it says nothing about whether the
/// path exists.
fn refusal(folders: &[PathBuf], show_folders: bool) -> String {
    if folders.is_empty() {
        return "source is a file path, but no torrent folders are configured ([downloads] torrent_folders); use a magnet link or an http(s) URL".into();
    }
    if !show_folders {
        return "source is not a .torrent file inside the torrent folders this server may read; put the file there (the owner knows where), or use a magnet link or an http(s) URL".into();
    }
    let list: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    format!(
        "source is not a .torrent file inside the torrent folders this server may read ({}); put the file there, or use a magnet link or an http(s) URL",
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A torrent folder holding one file, `ok.torrent`, and the folder's path.
    fn folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("torrents");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("ok.torrent"), b"d4:infod4:name1:xee").unwrap();
        (dir, root)
    }

    async fn refusal_of(folders: &[PathBuf], raw: &str) -> String {
        read(folders, true, raw).await.unwrap_err().message
    }

    #[tokio::test]
    async fn a_file_inside_a_torrent_folder_is_read() {
        let (_dir, root) = folder();
        let raw = root.join("ok.torrent");
        let bytes = read(&[root], false, raw.to_str().unwrap()).await.unwrap();
        assert_eq!(bytes, b"d4:infod4:name1:xee");
    }

    #[tokio::test]
    async fn an_existing_and_a_missing_path_outside_get_the_same_sentence() {
        let (_dir, root) = folder();
        let folders = [root.clone()];
        let passwd = refusal_of(&folders, "/etc/passwd").await;
        let missing = refusal_of(&folders, "/etc/no-such-file-here.torrent").await;
        let missing_inside =
            refusal_of(&folders, root.join("absent.torrent").to_str().unwrap()).await;
        assert_eq!(passwd, missing);
        assert_eq!(passwd, missing_inside);
        assert_eq!(
            passwd,
            format!(
                "source is not a .torrent file inside the torrent folders this server may read ({}); put the file there, or use a magnet link or an http(s) URL",
                root.display()
            )
        );
    }

    #[tokio::test]
    async fn a_caller_who_may_not_see_the_set_up_is_not_told_the_folders() {
        let (_dir, root) = folder();
        let folders = [root.clone()];
        let hidden = read(&folders, false, "/etc/passwd")
            .await
            .unwrap_err()
            .message;
        assert!(!hidden.contains(&root.display().to_string()), "{hidden}");
        assert_eq!(
            hidden,
            read(
                &folders,
                false,
                root.join("absent.torrent").to_str().unwrap()
            )
            .await
            .unwrap_err()
            .message,
            "the same sentence whether or not the path exists"
        );
    }

    #[tokio::test]
    async fn a_symlink_out_of_the_folder_is_refused() {
        let (_dir, root) = folder();
        let link = root.join("escape.torrent");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let folders = [root.clone()];
        let e = refusal_of(&folders, link.to_str().unwrap()).await;
        assert_eq!(e, refusal_of(&folders, "/etc/passwd").await);
    }

    #[tokio::test]
    async fn dot_dot_is_refused_even_when_it_lands_inside() {
        let (_dir, root) = folder();
        let folders = [root.clone()];
        let up = format!("{}/../torrents/ok.torrent", root.display());
        let out = format!("{}/../../../../../../etc/passwd", root.display());
        let refused = refusal_of(&folders, "/etc/passwd").await;
        assert_eq!(refusal_of(&folders, &up).await, refused);
        assert_eq!(refusal_of(&folders, &out).await, refused);
    }

    #[tokio::test]
    async fn the_folder_itself_and_a_sub_folder_are_not_files() {
        let (_dir, root) = folder();
        std::fs::create_dir(root.join("sub")).unwrap();
        let folders = [root.clone()];
        let e = refusal_of(&folders, root.join("sub").to_str().unwrap()).await;
        assert_eq!(e, "source is not a file of at most 10 MiB");
        let e = refusal_of(&folders, root.to_str().unwrap()).await;
        assert_eq!(e, refusal_of(&folders, "/etc/passwd").await);
    }

    #[tokio::test]
    async fn a_fifo_in_the_folder_is_refused_at_once_never_waited_on() {
        let (_dir, root) = folder();
        let fifo = root.join("pipe.torrent");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let folders = [root.clone()];
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            refusal_of(&folders, fifo.to_str().unwrap()),
        )
        .await
        .expect("a FIFO must not hold the call");
        assert_eq!(answer, "source is not a file of at most 10 MiB");
    }

    #[tokio::test]
    async fn without_torrent_folders_no_path_is_read() {
        let (_dir, root) = folder();
        let e = refusal_of(&[], root.join("ok.torrent").to_str().unwrap()).await;
        assert_eq!(
            e,
            "source is a file path, but no torrent folders are configured ([downloads] torrent_folders); use a magnet link or an http(s) URL"
        );
    }
}
