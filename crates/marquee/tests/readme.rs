//! The README states only what the code does: the instance kinds it lists as usable are
//! exactly the kinds some family of this build has an adapter for.

use std::collections::BTreeSet;

/// The kinds the README's `[[instances]]` example names in its `kind = …  # a | b | …` comment,
/// which may go on in the comment of the next line.
fn readme_kinds(readme: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = readme.lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("kind =") && l.contains("# builtin"))
    else {
        return BTreeSet::new();
    };
    let mut text = String::new();
    for line in &lines[at..] {
        let Some((_, comment)) = line.split_once('#') else {
            break;
        };
        if !text.is_empty() && !comment.trim_start().starts_with('|') {
            break;
        }
        text.push_str(comment);
    }
    text.split('|')
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn the_readme_lists_exactly_the_supported_instance_kinds() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is read");
    let listed = readme_kinds(&readme);
    let supported: BTreeSet<String> = tools::families()
        .iter()
        .flat_map(|f| f.kinds().iter().map(|k| k.as_str().to_string()))
        .collect();
    assert_eq!(listed, supported);
}

#[test]
fn the_kinds_are_read_from_both_lines_of_the_comment() {
    let text = "kind = \"x\"   # builtin | tmdb\nurl = \"y\"    # | folder\nusername = \"z\"\n";
    let kinds: Vec<String> = readme_kinds(text).into_iter().collect();
    assert_eq!(kinds, ["builtin", "folder", "tmdb"]);
}
