//! The fuzz driver of the reliability harness, on stable Rust: a seeded generator that makes and
//! mutates bytes and JSON values, a loop that runs a target over many inputs, and a panic
//! counter that sees a panic on any thread (a swallowed one in a spawned task included).
//!
//! Each input `i` of a target is made from its own generator seeded with `(seed, i)`, so a
//! failure names the seed and the input number and is replayed with `HARNESS_SEED` and
//! `HARNESS_FROM`. `HARNESS_CASES` sets how many inputs each target tries (a short run by
//! default; `scripts/harness.sh --long` asks for a million).

use std::{
    panic,
    pin::Pin,
    sync::{
        Mutex, Once,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::Instant,
};

use serde_json::{Map, Number, Value};

/// A SplitMix64 generator: small, fast, and the same sequence on every machine.
#[derive(Debug, Clone)]
pub struct Gen {
    state: u64,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen { state: seed }
    }

    /// The generator of input `case` of a run seeded with `seed`.
    pub fn for_case(seed: u64, case: u64) -> Gen {
        let mut g = Gen::new(seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        g.next_u64();
        g
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A length that is mostly small and sometimes large.
    pub fn len(&mut self, max: usize) -> usize {
        match self.below(8) {
            0 => 0,
            1..=5 => self.below(16.min(max + 1)),
            6 => self.below(256.min(max + 1)),
            _ => self.below(max + 1),
        }
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    /// A string with the characters that break parsers: controls, quotes, escapes, non-ASCII,
    /// text-reordering marks, NUL, and long runs.
    pub fn string(&mut self) -> String {
        const PIECES: &[&str] = &[
            "",
            "a",
            "Z",
            "0",
            "-1",
            " ",
            "\"",
            "\\",
            "/",
            "..",
            "%",
            "%00",
            "%2F",
            "\0",
            "\n",
            "\r\n",
            "\t",
            "\u{7f}",
            "é",
            "ß",
            "日本",
            "\u{202e}",
            "\u{200f}",
            "😀",
            "\u{fffd}",
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "null",
            "true",
            "1e309",
            "NaN",
            "mq_",
            "Bearer ",
            "api_key",
            "magnet:?xt=urn:btih:",
            "http://",
            "https://127.0.0.1/",
            "file:///etc/passwd",
            "javascript:",
            "<script>",
            "'",
            "${x}",
            "0x7f",
            "tt0078748",
            "tmdb:348",
            "movie",
            "series",
            "music",
            "book",
            "owner",
            "admin",
            "radarr",
            "builtin",
        ];
        let mut s = String::new();
        for _ in 0..self.len(12) {
            let piece: &&str = self.pick(PIECES);
            s.push_str(piece);
        }
        if self.one_in(20) {
            let n = self.below(5000);
            s.push_str(&"x".repeat(n));
        }
        if self.one_in(10) {
            let n = self.below(8);
            for _ in 0..n {
                if let Some(c) = char::from_u32(self.below(0x11_0000) as u32) {
                    s.push(c);
                }
            }
        }
        s
    }

    pub fn number(&mut self) -> Value {
        const INTS: &[i64] = &[
            0,
            1,
            -1,
            2,
            7,
            100,
            101,
            255,
            256,
            1000,
            65535,
            i32::MAX as i64,
            i32::MIN as i64,
            u32::MAX as i64,
            i64::MAX,
            i64::MIN,
        ];
        match self.below(5) {
            0 => Value::Number(Number::from(u64::MAX - self.below(2) as u64)),
            1 => Number::from_f64(*self.pick(&[
                0.5,
                -0.0,
                1e300,
                -1e-300,
                3.25,
                f64::MAX,
                f64::MIN_POSITIVE,
            ]))
            .map_or(Value::Null, Value::Number),
            2 => Value::Number(Number::from(self.next_u64() as i64)),
            _ => Value::Number(Number::from(*self.pick(INTS))),
        }
    }

    /// Any JSON value, nested at most `depth` deep; object keys come from `keys` or anywhere.
    pub fn json(&mut self, depth: usize, keys: &[&str]) -> Value {
        let top = if depth == 0 { 4 } else { 6 };
        match self.below(top) {
            0 => Value::Null,
            1 => Value::Bool(self.one_in(2)),
            2 => self.number(),
            3 => Value::String(self.string()),
            4 => {
                let n = self.len(8);
                Value::Array((0..n).map(|_| self.json(depth - 1, keys)).collect())
            }
            _ => {
                let n = self.len(8);
                let mut m = Map::new();
                for _ in 0..n {
                    let key = self.key(keys);
                    m.insert(key, self.json(depth - 1, keys));
                }
                Value::Object(m)
            }
        }
    }

    fn key(&mut self, keys: &[&str]) -> String {
        if !keys.is_empty() && !self.one_in(4) {
            self.pick(keys).to_string()
        } else {
            self.string()
        }
    }

    /// `seed` changed in a few places: a node replaced, a member dropped or added, a value's
    /// type changed, an array emptied or repeated.
    pub fn mutate_json(&mut self, seed: &Value, keys: &[&str]) -> Value {
        let mut v = seed.clone();
        let n = 1 + self.below(4);
        for _ in 0..n {
            self.mutate_node(&mut v, keys, 0);
        }
        v
    }

    fn mutate_node(&mut self, v: &mut Value, keys: &[&str], depth: usize) {
        // Walk down to a random node, then change it.
        let descend = depth < 8 && self.below(3) != 0;
        match v {
            Value::Object(m) if descend && !m.is_empty() => {
                let i = self.below(m.len());
                if let Some(child) = m.values_mut().nth(i) {
                    return self.mutate_node(child, keys, depth + 1);
                }
            }
            Value::Array(a) if descend && !a.is_empty() => {
                let i = self.below(a.len());
                return self.mutate_node(&mut a[i], keys, depth + 1);
            }
            _ => {}
        }
        match (self.below(6), &mut *v) {
            (0, Value::Object(m)) if !m.is_empty() => {
                let i = self.below(m.len());
                if let Some(k) = m.keys().nth(i).cloned() {
                    m.remove(&k);
                }
            }
            (1, Value::Object(m)) => {
                let k = self.key(keys);
                let value = self.json(2, keys);
                m.insert(k, value);
            }
            (2, Value::Array(a)) if !a.is_empty() => {
                let i = self.below(a.len());
                let copy = a[i].clone();
                let times = self.len(64);
                a.extend(std::iter::repeat_n(copy, times));
            }
            (3, Value::Array(a)) => a.clear(),
            (4, Value::String(s)) => {
                let extra = self.string();
                if self.one_in(2) {
                    *s = extra;
                } else {
                    s.push_str(&extra);
                }
            }
            _ => *v = self.json(2, keys),
        }
    }

    /// `seed` changed at the byte level: bits flipped, bytes set, inserted, deleted, repeated,
    /// a token of `dictionary` put in, or the end cut off.
    pub fn mutate_bytes(&mut self, seed: &[u8], dictionary: &[&[u8]]) -> Vec<u8> {
        let mut b = seed.to_vec();
        if self.one_in(50) {
            let n = self.len(512);
            return self.bytes(n);
        }
        let n = 1 + self.below(6);
        for _ in 0..n {
            let at = self.below(b.len() + 1);
            match self.below(8) {
                0 if !b.is_empty() => {
                    let i = self.below(b.len());
                    b[i] ^= 1 << self.below(8);
                }
                1 if !b.is_empty() => {
                    let i = self.below(b.len());
                    b[i] = self.next_u64() as u8;
                }
                2 => {
                    let n = self.len(32);
                    let ins = self.bytes(n);
                    b.splice(at..at, ins);
                }
                3 if !b.is_empty() => {
                    let end = (at + self.len(32)).min(b.len());
                    b.drain(at.min(end)..end);
                }
                4 if !b.is_empty() => {
                    let start = self.below(b.len());
                    let end = (start + self.len(64)).min(b.len());
                    let piece = b[start..end].to_vec();
                    let times = 1 + self.below(4);
                    for _ in 0..times {
                        b.splice(at..at, piece.iter().copied());
                    }
                }
                5 | 6 if !dictionary.is_empty() => {
                    let token = *self.pick(dictionary);
                    b.splice(at..at, token.iter().copied());
                }
                _ => b.truncate(at),
            }
        }
        b
    }
}

/// How many inputs each target tries: `HARNESS_CASES`, else the target's short count.
pub fn cases(short: u64) -> u64 {
    std::env::var("HARNESS_CASES")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(short)
}

/// The run's seed: `HARNESS_SEED`, else one fixed per target name (a CI run is repeatable).
pub fn seed(target: &str) -> u64 {
    std::env::var("HARNESS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            target.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
            })
        })
}

/// The first input to try (`HARNESS_FROM`), to replay one failure.
pub fn first_case() -> u64 {
    std::env::var("HARNESS_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

static PANICS: AtomicU64 = AtomicU64::new(0);
static PANIC_MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Counts every panic of the process, on any thread, before the default hook prints it.
pub fn install_panic_counter() {
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // The harness's own assertions (a target reporting what it found) are not findings.
            let own = info
                .location()
                .is_some_and(|l| l.file().contains("crates/harness/"));
            if own {
                return default(info);
            }
            PANICS.fetch_add(1, Ordering::SeqCst);
            if let Ok(mut m) = PANIC_MESSAGES.lock()
                && m.len() < 20
            {
                m.push(info.to_string());
            }
            default(info);
        }));
    });
}

/// Panics seen so far in this process, and the first messages.
pub fn panics() -> (u64, Vec<String>) {
    let messages = PANIC_MESSAGES.lock().map(|m| m.clone()).unwrap_or_default();
    (PANICS.load(Ordering::SeqCst), messages)
}

/// What one target's run found.
#[derive(Debug)]
pub struct Report {
    pub target: &'static str,
    pub seed: u64,
    pub inputs: u64,
    pub panics: u64,
    /// Inputs whose answer broke the target's property: `(input number, what was wrong)`.
    pub failures: Vec<(u64, String)>,
    pub seconds: f64,
}

impl Report {
    fn start(target: &'static str) -> (Report, u64, u64, Instant) {
        install_panic_counter();
        let report = Report {
            target,
            seed: seed(target),
            inputs: 0,
            panics: 0,
            failures: Vec::new(),
            seconds: 0.0,
        };
        (report, panics().0, first_case(), Instant::now())
    }

    fn fail(&mut self, case: u64, what: String) {
        if self.failures.len() < 10 {
            self.failures.push((case, what));
        }
    }

    fn finish(mut self, panics_before: u64, started: Instant) -> Report {
        self.panics = panics().0 - panics_before;
        self.seconds = started.elapsed().as_secs_f64();
        // One line per target, read by scripts/harness.sh for RELIABILITY.md.
        println!(
            "harness: {} {} inputs, {} panics, {} failures, {:.1} s (seed {})",
            self.target,
            self.inputs,
            self.panics,
            self.failures.len(),
            self.seconds,
            self.seed
        );
        self
    }

    /// Fails the test when an input panicked or broke the property, naming how to replay it.
    pub fn assert_clean(&self) {
        let (_, messages) = panics();
        assert!(
            self.panics == 0 && self.failures.is_empty(),
            "{}: {} panics, failures {:?}; replay with HARNESS_SEED={} HARNESS_FROM=<input>; panics: {:?}",
            self.target,
            self.panics,
            self.failures,
            self.seed,
            messages
        );
    }
}

/// Runs `property` over `cases(short)` inputs, each with its own generator; a property answers
/// `Err` with what was wrong. A panic inside it is caught and counted, and the run goes on.
pub fn run(
    target: &'static str,
    short: u64,
    mut property: impl FnMut(&mut Gen) -> Result<(), String>,
) -> Report {
    let (mut report, before, from, started) = Report::start(target);
    for case in from..from + cases(short) {
        let mut g = Gen::for_case(report.seed, case);
        match panic::catch_unwind(panic::AssertUnwindSafe(|| property(&mut g))) {
            Ok(Ok(())) => {}
            Ok(Err(what)) => report.fail(case, what),
            Err(_) => report.fail(case, "panicked".into()),
        }
        report.inputs += 1;
    }
    report.finish(before, started)
}

/// [`run`] for async properties, one input after another on the caller's runtime; a panic in
/// any poll of an input is caught and counted (a panic in a task the input spawned is counted
/// by the panic hook).
pub async fn run_async<Fut>(
    target: &'static str,
    short: u64,
    mut property: impl FnMut(Gen) -> Fut,
) -> Report
where
    Fut: Future<Output = Result<(), String>>,
{
    let (mut report, before, from, started) = Report::start(target);
    for case in from..from + cases(short) {
        let g = Gen::for_case(report.seed, case);
        let caught = CatchUnwind {
            inner: Box::pin(property(g)),
        };
        match caught.await {
            Ok(Ok(())) => {}
            Ok(Err(what)) => report.fail(case, what),
            Err(()) => report.fail(case, "panicked".into()),
        }
        report.inputs += 1;
    }
    report.finish(before, started)
}

/// A future whose panic, in any poll, becomes its `Err` answer.
struct CatchUnwind<F: Future> {
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match panic::catch_unwind(panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
