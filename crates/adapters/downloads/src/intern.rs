//! Interning of the strings torrents repeat (categories, tags, folders, tracker hosts and messages).

use std::{collections::HashSet, sync::Arc};

/// One per catalogue. Rows hold `Arc`s handed out here, so a folder name used by
/// 100,000 torrents is stored once. Cleared on a full refresh so it cannot grow forever.
#[derive(Debug)]
pub(crate) struct Interner {
    strs: HashSet<Arc<str>>,
    tag_sets: HashSet<Arc<[Arc<str>]>>,
    pub(crate) empty: Arc<str>,
    pub(crate) no_tags: Arc<[Arc<str>]>,
}

impl Default for Interner {
    fn default() -> Interner {
        Interner {
            strs: HashSet::new(),
            tag_sets: HashSet::new(),
            empty: Arc::from(""),
            no_tags: Arc::from(Vec::new()),
        }
    }
}

impl Interner {
    pub(crate) fn str(&mut self, s: &str) -> Arc<str> {
        if s.is_empty() {
            return self.empty.clone();
        }
        if let Some(found) = self.strs.get(s) {
            return found.clone();
        }
        let arc: Arc<str> = Arc::from(s);
        self.strs.insert(arc.clone());
        arc
    }

    /// `None` for an empty string.
    pub(crate) fn opt(&mut self, s: &str) -> Option<Arc<str>> {
        if s.is_empty() {
            None
        } else {
            Some(self.str(s))
        }
    }

    /// A sorted, de-duplicated tag set without empty names, shared between rows.
    pub(crate) fn tags<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) -> Arc<[Arc<str>]> {
        let mut v: Vec<&str> = names
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if v.is_empty() {
            return self.no_tags.clone();
        }
        v.sort_unstable();
        v.dedup();
        let set: Vec<Arc<str>> = v.into_iter().map(|s| self.str(s)).collect();
        if let Some(found) = self.tag_sets.get(set.as_slice()) {
            return found.clone();
        }
        let arc: Arc<[Arc<str>]> = Arc::from(set);
        self.tag_sets.insert(arc.clone());
        arc
    }

    pub(crate) fn clear(&mut self) {
        self.strs.clear();
        self.tag_sets.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_strings_and_tag_sets() {
        let mut i = Interner::default();
        let a = i.str("movies");
        let b = i.str("movies");
        assert!(Arc::ptr_eq(&a, &b));
        let t1 = i.tags(["tv", " new", "tv", ""]);
        let t2 = i.tags("new,tv".split(','));
        assert!(Arc::ptr_eq(&t1, &t2));
        assert_eq!(&*t1, &[Arc::from("new"), Arc::from("tv")]);
        assert!(i.opt("").is_none());
        assert!(i.tags([""]).is_empty());
    }
}
