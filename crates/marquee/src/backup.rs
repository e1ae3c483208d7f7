//! `marquee backup FILE` and `marquee restore FILE`, and the data folder's lock that keeps a
//! restore from replacing the database under a running server: every `serve` and `stdio`
//! holds it shared; a restore takes it alone or refuses.

use std::{
    fs::{File, OpenOptions, TryLockError},
    path::{Path, PathBuf},
};

use anyhow::{Context, bail};

/// The lock file inside the data folder.
const LOCK_FILE: &str = "marquee.lock";

/// Held for as long as this process serves from the data folder.
#[derive(Debug)]
pub struct DataLock(#[allow(dead_code)] File);

/// Takes the data folder's lock shared (several servers may serve one folder), refusing while
/// a restore holds it.
pub fn hold_shared(data_dir: &Path) -> anyhow::Result<DataLock> {
    let file = open_lock(data_dir)?;
    match file.try_lock_shared() {
        Ok(()) => Ok(DataLock(file)),
        Err(TryLockError::WouldBlock) => bail!(
            "a restore is replacing the database in {}; start again when it has finished",
            data_dir.display()
        ),
        Err(TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", data_dir.join(LOCK_FILE).display()))
        }
    }
}

fn open_lock(data_dir: &Path) -> anyhow::Result<File> {
    std::fs::create_dir_all(data_dir).map_err(|e| not_writable(data_dir, &e))?;
    let path = data_dir.join(LOCK_FILE);
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| not_writable(data_dir, &e))
}

/// A data folder Marquee cannot write in, said with what to do about it.
fn not_writable(data_dir: &Path, e: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "the data folder {} is not writable ({e}): give Marquee a folder it owns (the image: a \
         volume at /data, e.g. -v marquee-data:/data; systemd: StateDirectory=marquee; else \
         --data-dir or MARQUEE_DATA_DIR)",
        data_dir.display()
    )
}

/// `marquee backup FILE`: a consistent copy of the database, taken while serving if need be.
pub async fn backup(file: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let db = store::database_file(data_dir);
    if !db.exists() {
        bail!(
            "there is no database in {} to back up (give --data-dir, or MARQUEE_DATA_DIR, of the \
             folder Marquee serves from)",
            data_dir.display()
        );
    }
    let store = store::Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))?;
    let facts = store.backup_to(file).await?;
    println!(
        "backed up {} to {} ({} bytes, schema step {}, {} people); restore it with `marquee \
         restore {}` while Marquee is stopped",
        db.display(),
        file.display(),
        facts.bytes,
        facts.schema,
        facts.people,
        file.display()
    );
    Ok(())
}

/// `marquee restore FILE`: checks the file, then puts it in place of the database, keeping
/// the database it replaces beside it. Refused while a server serves from the folder.
pub async fn restore(file: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let facts = store::inspect_backup(file).await?;
    let lock = open_lock(data_dir)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => bail!(
            "Marquee is serving from {}; stop it first (nothing was changed)",
            data_dir.display()
        ),
        Err(TryLockError::Error(e)) => return Err(e).context("cannot lock the data folder"),
    }
    let db = store::database_file(data_dir);
    let staged = sibling(&db, "restoring");
    let _ = std::fs::remove_file(&staged);
    std::fs::copy(file, &staged)
        .with_context(|| format!("cannot copy {} into {}", file.display(), data_dir.display()))?;
    File::open(&staged)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("cannot write {}", staged.display()))?;
    let kept = if db.exists() {
        let kept = sibling(&db, &format!("before-restore-{}", unix_seconds()));
        std::fs::rename(&db, &kept)
            .with_context(|| format!("cannot move {} aside", db.display()))?;
        Some(kept)
    } else {
        None
    };
    // The write-ahead log and shared memory belong to the database moved aside.
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", db.display()));
        if side.exists() {
            let to = kept
                .as_ref()
                .map(|k| PathBuf::from(format!("{}{suffix}", k.display())));
            match to {
                Some(to) => std::fs::rename(&side, &to),
                None => std::fs::remove_file(&side),
            }
            .with_context(|| format!("cannot move {} aside", side.display()))?;
        }
    }
    std::fs::rename(&staged, &db)
        .with_context(|| format!("cannot put {} in place", db.display()))?;
    if let Ok(dir) = File::open(data_dir) {
        let _ = dir.sync_all();
    }
    match kept {
        Some(kept) => println!(
            "restored {} (schema step {}, {} people) into {}; the database it replaced is kept as {}",
            file.display(),
            facts.schema,
            facts.people,
            db.display(),
            kept.display()
        ),
        None => println!(
            "restored {} (schema step {}, {} people) into {}",
            file.display(),
            facts.schema,
            facts.people,
            db.display()
        ),
    }
    Ok(())
}

/// `marquee.db` → `marquee.db.<tag>` in the same folder.
fn sibling(db: &Path, tag: &str) -> PathBuf {
    PathBuf::from(format!("{}.{tag}", db.display()))
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
