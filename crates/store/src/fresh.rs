//! Reads that run on every request (a key's authority, the tool switches, and the quota and
//! allowance charges `whoami` shows), answered from memory while the tables they read are
//! unchanged, and re-read the moment they are not.
//!
//! In WAL mode every committed write transaction, by any process, bumps the change counter in
//! the WAL-index header at the start of `marquee.db-shm` (SQLite's documented `walformat`:
//! iVersion, unused, iChange, isInit, bigEndCksum, szPage, mxFrame, nPage, aFrameCksum,
//! aSalt, aCksum; 48 bytes). While the header (and the file's identity) is byte-for-byte the
//! same, nothing was committed, and the state is the one read last. When it differs, the
//! `versions` table (one counter per group of tables, bumped by triggers in the writing
//! transaction: `migrations/0142_versions.sql`) is read once: a [`Version`]. Each cached
//! answer carries the counters of the groups it read, and is used only while they are the
//! same, so a write to one group (a request) leaves the others' answers (a key's authority)
//! in place. The header is read before the counters and the counters before any data, so a
//! commit racing a read can only cause a re-read. Without a readable WAL index (an in-memory
//! store) nothing is cached.

use std::{
    fs::File,
    os::unix::fs::{FileExt, MetadataExt},
    path::PathBuf,
    sync::Arc,
};

use domain::{AllowanceKind, MediaType, PersonId};
use kept::Kept;
use parking_lot::{Mutex, RwLock};

use crate::{Group, Version, quotas::QuotaRead};

/// Bytes of the WAL-index header that identify the database's state.
const HEADER: usize = 48;
/// Cached keys (and charge reads) at most; past this the least recently used goes (unknown
/// keys are never cached).
const MAX_KEYS: usize = 4096;

/// The database state a cached answer belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Token {
    inode: u64,
    header: [u8; HEADER],
}

/// An open WAL index and the inode it had when opened.
#[derive(Debug)]
struct Held {
    file: File,
    inode: u64,
}

#[derive(Debug)]
pub(crate) struct Fresh<K> {
    /// `marquee.db-shm`, or `None` when nothing may be cached.
    shm: Option<PathBuf>,
    /// The WAL index, kept open with its inode; reopened when the file was deleted or replaced.
    /// The lock is held only to take or replace the handle, never across a system call: every
    /// request reads the state, and a lock held across `fstat` and `pread` made the runtime's
    /// workers wait for each other.
    open: Mutex<Option<Arc<Held>>>,
    /// The header last seen, and the counters read when it was.
    state: RwLock<(Option<Token>, Option<Version>)>,
    /// Each cache is valid while the counters of the groups it reads (its token: the
    /// version narrowed to them) are unchanged.
    keys: Kept<String, Version, Arc<K>>,
    switches: Kept<(), Version, Arc<crate::ToolSwitches>>,
    /// A person's quota rules and charges for one media type.
    quotas: Kept<(PersonId, MediaType), Version, Arc<QuotaRead>>,
    /// A person's allowance charges of one kind over a window of so many days.
    allowances: Kept<(PersonId, AllowanceKind, u32), Version, Arc<Charges>>,
}

/// What each cache reads: an entry holds while these groups' counters are unchanged.
const KEYS: &[Group] = &[Group::Authority];
const SWITCHES: &[Group] = &[Group::Authority];
/// A person's role (authority) decides which quota rules apply.
const QUOTAS: &[Group] = &[Group::Authority, Group::Requests];
const ALLOWANCES: &[Group] = &[Group::Audit];

/// Charges read at `read_at`: every one younger than the window then. Evaluated at a later
/// `now` (never an earlier one), the list is exact while the database is unchanged: a charge
/// too old for the window at `read_at` is too old for any later window.
#[derive(Debug)]
pub(crate) struct Charges {
    pub(crate) at: Vec<i64>,
    pub(crate) read_at: i64,
}

impl<K> Fresh<K> {
    pub(crate) fn new(shm: Option<PathBuf>) -> Fresh<K> {
        Fresh {
            shm,
            open: Mutex::new(None),
            state: RwLock::new((None, None)),
            keys: Kept::new(MAX_KEYS),
            switches: Kept::new(1),
            quotas: Kept::new(MAX_KEYS),
            allowances: Kept::new(MAX_KEYS),
        }
    }

    /// The current state of the database, or `None` when it cannot be told (then don't cache).
    pub(crate) fn token(&self) -> Option<Token> {
        let path = self.shm.as_ref()?;
        let held = self.open.lock().clone();
        // A deleted or replaced file has no links left: then the path names another file, so
        // reopen. `fstat` on the held file is a fraction of a `stat` of the path.
        let held = match held {
            Some(h) if h.file.metadata().ok()?.nlink() > 0 => h,
            _ => {
                let file = File::open(path).ok()?;
                let inode = file.metadata().ok()?.ino();
                let h = Arc::new(Held { file, inode });
                *self.open.lock() = Some(h.clone());
                h
            }
        };
        let mut header = [0u8; HEADER];
        held.file.read_exact_at(&mut header, 0).ok()?;
        // isInit (byte 12) is 1 once SQLite has written a valid header.
        (header[12] == 1).then_some(Token {
            inode: held.inode,
            header,
        })
    }

    /// The database's state now: the counters of the last read while the header is the one
    /// seen then, else the counters `read_counters` reads now (`None`: the state cannot be
    /// told, and nothing is cached).
    pub(crate) fn version(
        &self,
        read_counters: impl FnOnce() -> Option<Version>,
    ) -> Option<Version> {
        let token = self.token()?;
        {
            let state = self.state.read();
            if state.0 == Some(token) {
                return state.1;
            }
        }
        // Read after the header: a commit in between makes the next request read them again.
        let version = read_counters()?;
        *self.state.write() = (Some(token), Some(version));
        Some(version)
    }

    pub(crate) fn key(&self, v: Version, key_id: &str) -> Option<Arc<K>> {
        self.keys.get(key_id, &v.only(KEYS))
    }

    pub(crate) fn put_key(&self, v: Version, key_id: &str, row: Arc<K>) {
        self.keys.insert(key_id.to_owned(), v.only(KEYS), row);
    }

    pub(crate) fn switches(&self, v: Version) -> Option<Arc<crate::ToolSwitches>> {
        self.switches.get(&(), &v.only(SWITCHES))
    }

    pub(crate) fn put_switches(&self, v: Version, switches: Arc<crate::ToolSwitches>) {
        self.switches.insert((), v.only(SWITCHES), switches);
    }

    pub(crate) fn quota(&self, v: Version, key: (PersonId, MediaType)) -> Option<Arc<QuotaRead>> {
        self.quotas.get(&key, &v.only(QUOTAS))
    }

    pub(crate) fn put_quota(&self, v: Version, key: (PersonId, MediaType), read: Arc<QuotaRead>) {
        self.quotas.insert(key, v.only(QUOTAS), read);
    }

    pub(crate) fn allowance(
        &self,
        v: Version,
        key: (PersonId, AllowanceKind, u32),
    ) -> Option<Arc<Charges>> {
        self.allowances.get(&key, &v.only(ALLOWANCES))
    }

    pub(crate) fn put_allowance(
        &self,
        v: Version,
        key: (PersonId, AllowanceKind, u32),
        read: Arc<Charges>,
    ) {
        self.allowances.insert(key, v.only(ALLOWANCES), read);
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[tokio::test]
    async fn the_token_is_stable_between_commits_and_changes_with_each() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        store.bootstrap_owner("owner").await.unwrap();
        let a = store.fresh().token();
        assert!(
            a.is_some(),
            "a file store in WAL mode has a readable WAL index"
        );
        store.people().await.unwrap();
        assert_eq!(store.fresh().token(), a, "reads do not change it");
        store.set_tool_switch("whoami", false).await.unwrap();
        let b = store.fresh().token();
        assert!(b.is_some() && b != a);
        store.set_tool_switch("whoami", true).await.unwrap();
        assert_ne!(
            store.fresh().token(),
            b,
            "every commit that changes a page changes it"
        );
        // A replaced WAL index (deleted and written anew) is read again, not through the old handle.
        let shm = dir.path().join("marquee.db-shm");
        let before = store.fresh().token().unwrap();
        let copy = std::fs::read(&shm).unwrap();
        std::fs::remove_file(&shm).unwrap();
        let mut changed = copy.clone();
        changed[8] ^= 0xff; // iChange
        std::fs::write(&shm, &changed).unwrap();
        let after = store.fresh().token().unwrap();
        assert_ne!(after, before, "the new file is read");
        assert_eq!(after.header[8], changed[8]);
        std::fs::remove_file(&shm).unwrap();
        std::fs::write(&shm, &copy).unwrap();
        let memory = Store::open_in_memory().await.unwrap();
        assert_eq!(
            memory.fresh().token(),
            None,
            "nothing is cached without a WAL index"
        );
    }

    #[tokio::test]
    async fn a_cached_read_holds_while_the_groups_it_read_are_unchanged() {
        use crate::{Group, Version};
        let fresh: super::Fresh<u32> = super::Fresh::new(None);
        let at = |authority: i64, requests: i64| -> Version {
            let mut v = Version {
                n: [0; Group::ALL.len()],
            };
            v.n[Group::Authority as usize] = authority;
            v.n[Group::Requests as usize] = requests;
            v
        };
        fresh.put_key(at(1, 1), "k", std::sync::Arc::new(7));
        assert_eq!(fresh.key(at(1, 1), "k").as_deref(), Some(&7));
        assert_eq!(
            fresh.key(at(1, 9), "k").as_deref(),
            Some(&7),
            "a request written elsewhere leaves a key's authority cached"
        );
        assert!(fresh.key(at(2, 1), "k").is_none(), "an authority write");
        assert!(fresh.key(at(1, 1), "other").is_none());
    }
}
