//! The data folder on a full file system: a small tmpfs (or, where tmpfs cannot be mounted, a
//! loop-mounted ext4 image) filled until SQLite's writes fail. Writes are refused with a
//! sentence that says the folder is full, reads keep answering, and once the filler is gone
//! writes work at once and again after a restart, the database passes `PRAGMA integrity_check`
//! and the requests stored are exactly the acknowledged ones. The folder is unmounted whatever
//! happens (a guard).

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::json;

use crate::support::{Served, data, summary};

/// A small file system mounted on `dir`; unmounted (and its image removed) on drop.
struct SmallMount {
    dir: PathBuf,
    image: Option<PathBuf>,
}

impl Drop for SmallMount {
    fn drop(&mut self) {
        let plain = Command::new("umount").arg(&self.dir).status();
        if !plain.is_ok_and(|s| s.success()) {
            // Something still holds a file there: detach it now, freed when released.
            let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        }
        if let Some(image) = &self.image {
            let _ = std::fs::remove_file(image);
        }
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A tmpfs of `mib` MiB on `dir`, else an ext4 image of that size loop-mounted there; why
/// neither could be mounted otherwise.
fn small_mount(dir: &Path, image_dir: &Path, mib: u32) -> Result<SmallMount, String> {
    let tmpfs = run(Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
        .arg(dir));
    let tmpfs_err = match tmpfs {
        Ok(()) => {
            return Ok(SmallMount {
                dir: dir.to_path_buf(),
                image: None,
            });
        }
        Err(e) => e,
    };
    let image = image_dir.join("data.ext4");
    let looped = run(Command::new("truncate")
        .arg("-s")
        .arg(format!("{}M", mib * 2))
        .arg(&image))
    .and_then(|()| run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image)))
    .and_then(|()| {
        run(Command::new("mount")
            .arg("-o")
            .arg("loop")
            .arg(&image)
            .arg(dir))
    });
    match looped {
        Ok(()) => Ok(SmallMount {
            dir: dir.to_path_buf(),
            image: Some(image),
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&image);
            Err(format!("tmpfs: {tmpfs_err}; loop-mounted ext4: {e}"))
        }
    }
}

/// Writes `path` until the file system refuses: big chunks, then smaller, to the last bytes.
fn fill(path: &Path) -> u64 {
    let mut file = std::fs::File::create(path).unwrap();
    let mut written = 0;
    for chunk in [1 << 16, 1 << 12, 512, 1] {
        let buf = vec![0x5a_u8; chunk];
        while file.write_all(&buf).and_then(|()| file.sync_data()).is_ok() {
            written += chunk as u64;
        }
    }
    written
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_data_folder_refuses_writes_with_a_sentence_and_recovers() {
    let outside = tempfile::tempdir().unwrap();
    let mount_dir = outside.path().join("mnt");
    std::fs::create_dir_all(&mount_dir).unwrap();
    // Declared before the server, so dropped after it: the server is gone before the unmount.
    let _mount = match small_mount(&mount_dir, outside.path(), 4) {
        Ok(m) => m,
        Err(why) => {
            println!("harness: full-disk skipped: no small file system could be mounted ({why})");
            return;
        }
    };
    let data_dir = mount_dir.join("data");
    let mut served = Served::first(outside.path(), &data_dir, "").await;
    let owner = served.owner.clone();
    let mut ids = Vec::new();
    for page in 1..=3 {
        let found = served
            .must(
                &owner,
                "search_titles",
                json!({"query": "star", "page": page}),
            )
            .await;
        let rows = data(&found).unwrap_or_else(|| panic!("search_titles: {found}"))["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        ids.extend(
            rows.iter()
                .filter(|r| r["media_type"] == "movie")
                .filter_map(|r| r["media_id"].as_str().map(str::to_string)),
        );
    }
    assert!(ids.len() >= 40, "{} builtin titles", ids.len());
    let mut ids = ids.into_iter();
    let mut acked = Vec::new();
    let request =
        |id: String| json!({"media_source": "builtin", "media_id": id, "media_type": "movie"});
    for _ in 0..3 {
        let r = served
            .must(&owner, "request_media", request(ids.next().unwrap()))
            .await;
        let d = data(&r).unwrap_or_else(|| panic!("request_media: {r}"));
        acked.push(d["request"]["request_id"].as_i64().unwrap());
    }

    let filler = mount_dir.join("filler");
    let filled = fill(&filler);
    // Writes go on while SQLite still has room in its files; then one is refused.
    let mut refusal = None;
    for _ in 0..30 {
        let r = served
            .must(&owner, "request_media", request(ids.next().unwrap()))
            .await;
        match data(&r) {
            Some(d) => acked.push(d["request"]["request_id"].as_i64().unwrap()),
            None => {
                refusal = Some(r);
                break;
            }
        }
    }
    let refusal = refusal.unwrap_or_else(|| {
        panic!("30 writes after filling the folder ({filled} bytes) were all accepted")
    });
    let said = summary(&refusal);
    assert!(
        said.contains("data folder is full") && said.contains("refuses writes"),
        "the refusal on a full disk: {refusal}"
    );
    assert_eq!(
        refusal["structuredContent"]["data"]["code"], "store_unavailable",
        "{refusal}"
    );

    // Reads keep answering.
    let me = served.must(&owner, "whoami", json!({})).await;
    assert!(data(&me).is_some(), "whoami on a full disk: {me}");
    let listed = served.must(&owner, "list_requests", json!({})).await;
    let listed = data(&listed).unwrap_or_else(|| panic!("list_requests on a full disk: {listed}"));
    let shown = listed.to_string();
    for id in &acked {
        assert!(
            shown.contains(&format!("\"request_id\":{id}")),
            "request {id} in {shown}"
        );
    }
    let http = crate::support::client();
    let health = http
        .get(format!("{}/healthz", served.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert!(
        !served.log().contains("panicked at"),
        "{}",
        served.log_tail()
    );

    // Space returns: every write works again at once (a pooled connection whose COMMIT failed
    // on the full disk stayed "in a transaction" in sqlx's bookkeeping and refused later
    // writes until a restart; the store now closes such a connection instead of reusing it),
    // and again after a restart; nothing is corrupt and nothing acknowledged is lost.
    std::fs::remove_file(&filler).unwrap();
    let mut refused_after = 0;
    for _ in 0..8 {
        let r = served
            .must(&owner, "request_media", request(ids.next().unwrap()))
            .await;
        match data(&r) {
            Some(d) => acked.push(d["request"]["request_id"].as_i64().unwrap()),
            None => refused_after += 1,
        }
    }
    assert_eq!(
        refused_after,
        0,
        "writes refused after space returned:\n{}",
        served.log_tail()
    );
    served.kill();
    served.start().await;
    for _ in 0..3 {
        let r = served
            .must(&owner, "request_media", request(ids.next().unwrap()))
            .await;
        let d = data(&r).unwrap_or_else(|| {
            panic!(
                "request_media after space returned and a restart: {r}\nthe server's log:\n{}",
                served.log_tail()
            )
        });
        acked.push(d["request"]["request_id"].as_i64().unwrap());
    }
    let mut db = served.db().await;
    let integrity: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(integrity, ["ok"]);
    let stored: Vec<i64> = sqlx::query_scalar("SELECT id FROM requests ORDER BY id")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(
        stored, acked,
        "the requests stored are the ones acknowledged"
    );
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM audit WHERE status = 'executing'")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(open, 0);
    drop(db);
    served.kill();
    println!(
        "harness: full-disk {} writes acknowledged, the write after {filled} filler bytes refused: {said}; {refused_after} of 8 writes refused after space returned, before a restart",
        acked.len()
    );
}
