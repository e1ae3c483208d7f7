//! Compact string storage for the builtin catalogue: strings back to back in one arena addressed by
//! `u32` ids, and an interner that stores each distinct string once (only while loading).

use std::hash::{BuildHasher, RandomState};

/// Strings stored back to back in one arena: string `i` is `text[bounds[i]..bounds[i + 1]]`.
pub(crate) struct Strs {
    text: String,
    bounds: Vec<u32>,
}

impl Default for Strs {
    fn default() -> Strs {
        Strs {
            text: String::new(),
            bounds: vec![0],
        }
    }
}

impl Strs {
    /// Room for `strings` strings of `bytes` bytes in all.
    pub fn with_capacity(strings: usize, bytes: usize) -> Strs {
        let mut bounds = Vec::with_capacity(strings + 1);
        bounds.push(0);
        Strs {
            text: String::with_capacity(bytes),
            bounds,
        }
    }

    /// Appends `s`, returning its id.
    pub fn push(&mut self, s: &str) -> u32 {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len()).expect("string arena under 4 GiB");
        self.bounds.push(end);
        (self.bounds.len() - 2) as u32
    }

    pub fn get(&self, i: u32) -> &str {
        let i = i as usize;
        &self.text[self.bounds[i] as usize..self.bounds[i + 1] as usize]
    }

    /// Whether string `i` is `s`: the lengths first, from the bounds alone, so a string of
    /// another length is passed over without reading the arena (a cache miss per string).
    pub fn is(&self, i: u32, s: &str) -> bool {
        let i = i as usize;
        (self.bounds[i + 1] - self.bounds[i]) as usize == s.len() && self.get(i as u32) == s
    }

    pub fn len(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The first id whose string is not less than `s` (ids must be in sorted order).
    pub fn lower_bound(&self, s: &str) -> u32 {
        let (mut lo, mut hi) = (0, self.len() as u32);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid) < s {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Gives back spare capacity once nothing more is pushed.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.bounds.shrink_to_fit();
    }
}

const EMPTY: u32 = u32::MAX;

/// Interns strings into a [`Strs`]: equal strings get the same id. An open-addressing table of ids,
/// at most three quarters full.
pub(crate) struct Interner {
    strs: Strs,
    slots: Vec<u32>,
    hasher: RandomState,
}

impl Interner {
    /// An interner sized for `strings` distinct strings of `bytes` bytes in all (it grows past that).
    pub fn with_capacity(strings: usize, bytes: usize) -> Interner {
        Interner {
            strs: Strs::with_capacity(strings, bytes),
            slots: vec![EMPTY; (strings * 4 / 3 + 1).next_power_of_two().max(1024)],
            hasher: RandomState::new(),
        }
    }

    /// The id of `s`, storing it the first time it is seen.
    pub fn intern(&mut self, s: &str) -> u32 {
        if (self.strs.len() + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = self.hasher.hash_one(s) as usize & mask;
        loop {
            match self.slots[at] {
                EMPTY => {
                    let id = self.strs.push(s);
                    self.slots[at] = id;
                    return id;
                }
                id if self.strs.get(id) == s => return id,
                _ => at = (at + 1) & mask,
            }
        }
    }

    pub fn get(&self, id: u32) -> &str {
        self.strs.get(id)
    }

    pub fn len(&self) -> usize {
        self.strs.len()
    }

    fn grow(&mut self) {
        let mut slots = vec![EMPTY; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for id in 0..self.strs.len() as u32 {
            let mut at = self.hasher.hash_one(self.strs.get(id)) as usize & mask;
            while slots[at] != EMPTY {
                at = (at + 1) & mask;
            }
            slots[at] = id;
        }
        self.slots = slots;
    }

    /// The strings, without the table, trimmed to size.
    pub fn into_strs(self) -> Strs {
        let mut strs = self.strs;
        strs.shrink_to_fit();
        strs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_searches() {
        let mut i = Interner::with_capacity(10, 30);
        let words: Vec<String> = (0..3000).map(|n| format!("w{n}")).collect();
        let ids: Vec<u32> = words.iter().map(|w| i.intern(w)).collect();
        assert!(words.iter().zip(&ids).all(|(w, &id)| i.intern(w) == id));
        assert_eq!((i.len(), i.get(ids[42])), (3000, "w42"));
        let mut sorted = Strs::default();
        ["", "a", "ab", "b"].iter().for_each(|s| {
            sorted.push(s);
        });
        assert_eq!(
            (
                sorted.lower_bound("aa"),
                sorted.lower_bound("b"),
                sorted.len()
            ),
            (2, 3, 4)
        );
        assert_eq!(sorted.lower_bound("c"), 4);
    }
}
