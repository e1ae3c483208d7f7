//! Accuracy on guessit's own test corpus (`shared/data/recognition`, LGPL test data read here at
//! test time, never copied into the repository). A case counts when each of `type`, `title`,
//! `year`, `season` and `episode` that it lists equals ours (titles case-insensitively, ignoring
//! punctuation; lists as sets); `__default__` supplies `type`; a name listed twice is one case;
//! cases with an options line are skipped and counted, as are guessit's negated names (a
//! leading `-`: "must not parse so"). The test fails below 95%; the share of cases with every
//! listed property right is printed beside it, and the failures are written to a report file.

use std::{collections::BTreeSet, fmt::Write as _, path::PathBuf};

use recognize::{Recognition, normalize_language, recognize};
use yaml_rust2::{
    parser::{Event, EventReceiver, Parser},
    scanner::TScalarStyle,
};

const FIVE: [&str; 5] = ["type", "title", "year", "season", "episode"];
const TARGET: f64 = 0.95;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/recognition")
}

/// A YAML value as the corpus writes it (duplicate keys kept, unlike the usual loaders).
#[derive(Clone, Debug)]
enum Node {
    Scalar(String),
    Null,
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// Builds [`Node`]s from the parser's events.
#[derive(Default)]
struct Builder {
    stack: Vec<Node>,
    /// A mapping's key waiting for its value, per open mapping.
    keys: Vec<Option<Node>>,
    root: Option<Node>,
}

impl Builder {
    fn push(&mut self, node: Node) {
        match self.stack.last_mut() {
            Some(Node::Seq(items)) => items.push(node),
            Some(Node::Map(pairs)) => {
                let slot = self.keys.last_mut().expect("a key slot per mapping");
                match slot.take() {
                    Some(key) => pairs.push((key, node)),
                    None => *slot = Some(node),
                }
            }
            _ => self.root = Some(node),
        }
    }
}

impl EventReceiver for Builder {
    fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Scalar(v, style, _, _) => {
                let plain = style == TScalarStyle::Plain;
                let node = if plain && matches!(v.as_str(), "" | "~" | "null") {
                    Node::Null
                } else {
                    Node::Scalar(v)
                };
                self.push(node);
            }
            Event::SequenceStart(..) => self.stack.push(Node::Seq(Vec::new())),
            Event::MappingStart(..) => {
                self.stack.push(Node::Map(Vec::new()));
                self.keys.push(None);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if matches!(ev, Event::MappingEnd) {
                    // A key left without a value (`? name` at the end) is a key with no value.
                    if let Some(Some(key)) = self.keys.pop()
                        && let Some(Node::Map(pairs)) = self.stack.last_mut()
                    {
                        pairs.push((key, Node::Null));
                    }
                }
                if let Some(done) = self.stack.pop() {
                    self.push(done);
                }
            }
            _ => {}
        }
    }
}

fn pairs(node: &Node) -> Vec<(String, Node)> {
    match node {
        Node::Map(p) => p
            .iter()
            .filter_map(|(k, v)| match k {
                Node::Scalar(k) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// One case: its name and expected properties (`(key, value)` in file order).
struct Case {
    name: String,
    expected: Vec<(String, Node)>,
}

/// The cases of one file, after guessit's conventions: a key without a value shares the next
/// key's expectations, `__default__` fills missing keys, a name listed again is one case (its
/// last listing).
fn load(file: &str) -> (Vec<Case>, usize) {
    let path = corpus_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the recognition corpus {} is not readable: {e}",
            path.display()
        )
    });
    let mut builder = Builder::default();
    Parser::new_from_str(&text)
        .load(&mut builder, false)
        .expect("the corpus parses as YAML");
    let root = builder.root.expect("a document");
    let mut entries = pairs(&root);
    // A null value takes the next entry's.
    let mut next = Node::Null;
    for (_, v) in entries.iter_mut().rev() {
        if matches!(v, Node::Null) {
            *v = next.clone();
        } else {
            next = v.clone();
        }
    }
    let default = entries
        .iter()
        .find(|(k, _)| k == "__default__")
        .map(|(_, v)| pairs(v))
        .unwrap_or_default();
    let mut skipped = 0;
    let mut cases: Vec<Case> = Vec::new();
    for (name, v) in entries {
        if name == "__default__" {
            continue;
        }
        cases.retain(|c| c.name != name);
        let mut expected = pairs(&v);
        if expected.iter().any(|(k, _)| k == "options") || name.starts_with('-') {
            skipped += 1;
            continue;
        }
        for (k, v) in &default {
            if !expected.iter().any(|(e, _)| e == k) {
                expected.push((k.clone(), v.clone()));
            }
        }
        cases.push(Case { name, expected });
    }
    (cases, skipped)
}

fn words(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("")
}

fn values(y: &Node) -> Vec<String> {
    match y {
        Node::Seq(a) => a.iter().flat_map(values).collect(),
        Node::Scalar(s) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// Our value of `key`, as strings, and how to compare.
fn ours(r: &Recognition, key: &str) -> Option<Vec<String>> {
    let one = |v: Option<String>| v.into_iter().collect::<Vec<_>>();
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Some(match key {
        "type" => vec![r.kind.as_str().to_owned()],
        "title" => one(r.title.clone()),
        "year" => one(r.year.map(|y| y.to_string())),
        "season" => r.season.iter().map(u32::to_string).collect(),
        "episode" => r.episode.iter().map(u32::to_string).collect(),
        "episode_title" => one(r.episode_title.clone()),
        "date" => one(r.date.clone()),
        "screen_size" => one(r.screen_size.clone()),
        "source" => one(r.source.map(str::to_owned)),
        "video_codec" => one(r.video_codec.map(str::to_owned)),
        "audio_codec" => list(&r.audio_codec),
        "audio_channels" => one(r.audio_channels.map(str::to_owned)),
        "audio_profile" => one(r.audio_profile.map(str::to_owned)),
        "video_profile" => one(r.video_profile.map(str::to_owned)),
        "color_depth" => one(r.color_depth.map(str::to_owned)),
        "streaming_service" => one(r.streaming_service.map(str::to_owned)),
        "release_group" => one(r.release_group.clone()),
        "edition" => list(&r.edition),
        "language" => list(&r.language),
        "subtitle_language" => list(&r.subtitle_language),
        "container" => one(r.container.clone()),
        "other" => list(&r.other),
        "proper_count" => one((r.proper_count > 0).then(|| r.proper_count.to_string())),
        "version" => one(r.version.map(|v| v.to_string())),
        "cd" => one(r.cd.map(|v| v.to_string())),
        "cd_count" => one(r.cd_count.map(|v| v.to_string())),
        "part" => one(r.part.map(|v| v.to_string())),
        "episode_count" => one(r.episode_count.map(|v| v.to_string())),
        "season_count" => one(r.season_count.map(|v| v.to_string())),
        "size" => one(r.size.clone()),
        "uuid" => one(r.uuid.clone()),
        "website" => one(r.website.clone()),
        "country" => one(r.country.map(str::to_owned)),
        "episode_details" => list(&r.episode_details),
        "alternative_title" => r.alternative_title.clone(),
        "crc32" => one(r.crc32.clone()),
        "disc" => r.disc.iter().map(u32::to_string).collect(),
        "absolute_episode" => r.absolute_episode.iter().map(u32::to_string).collect(),
        _ => return None,
    })
}

fn normal(key: &str, v: &str) -> String {
    match key {
        "language" | "subtitle_language" => normalize_language(v)
            .unwrap_or_else(|| v.to_owned())
            .to_lowercase(),
        "title" | "episode_title" | "alternative_title" | "release_group" => words(v),
        _ => v.to_lowercase(),
    }
}

/// Whether our answer has `key` as `expected` says.
fn right(r: &Recognition, key: &str, expected: &Node) -> bool {
    let (negated, key) = match key.strip_prefix('-') {
        Some(k) => (true, k),
        None => (false, key),
    };
    let Some(ours) = ours(r, key) else {
        return negated;
    };
    let want: BTreeSet<String> = values(expected).iter().map(|v| normal(key, v)).collect();
    let have: BTreeSet<String> = ours.iter().map(|v| normal(key, v)).collect();
    if negated {
        want.is_disjoint(&have)
    } else {
        want == have
    }
}

#[test]
fn the_guessit_corpus_is_recognised() {
    let mut total = 0;
    let mut five_right = 0;
    let mut all_right = 0;
    let mut skipped = 0;
    let mut report = String::new();
    for file in ["movies.yml", "episodes.yml"] {
        let (cases, skip) = load(file);
        skipped += skip;
        for case in cases {
            total += 1;
            let r = recognize(&case.name);
            let wrong_five: Vec<&str> = case
                .expected
                .iter()
                .filter(|(k, v)| FIVE.contains(&k.as_str()) && !right(&r, k, v))
                .map(|(k, _)| k.as_str())
                .collect();
            let wrong_all: Vec<&str> = case
                .expected
                .iter()
                .filter(|(k, v)| !right(&r, k, v))
                .map(|(k, _)| k.as_str())
                .collect();
            if wrong_five.is_empty() {
                five_right += 1;
            }
            if wrong_all.is_empty() {
                all_right += 1;
                continue;
            }
            let mark = if wrong_five.is_empty() {
                "other"
            } else {
                "FIVE"
            };
            let _ = writeln!(report, "{mark} {file}: {}", case.name);
            for (k, v) in &case.expected {
                if wrong_all.contains(&k.as_str()) {
                    let key = k.trim_start_matches('-');
                    let _ = writeln!(
                        report,
                        "    {k}: expected {:?}, ours {:?}",
                        values(v),
                        ours(&r, key).unwrap_or_else(|| vec!["(not read)".into()])
                    );
                }
            }
        }
    }
    let five = five_right as f64 / total as f64;
    let all = all_right as f64 / total as f64;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recognition-failures.txt");
    std::fs::write(&path, &report).expect("the failure report is written");
    println!(
        "recognition corpus: {total} cases ({skipped} skipped for options or negation); \
         type/title/year/season/episode right: {five_right} ({:.1}%); every listed property right: {all_right} ({:.1}%); failures in {}",
        five * 100.0,
        all * 100.0,
        path.display()
    );
    assert!(
        five >= TARGET,
        "{:.1}% of cases have type/title/year/season/episode right, below {:.0}%; see {}",
        five * 100.0,
        TARGET * 100.0,
        path.display()
    );
}
