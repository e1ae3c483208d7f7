//! `docs/tools.md` is the table the registry generates: regenerated here and compared with the
//! checked-in file. `UPDATE_DOCS=1 cargo test -p tools --test tools_doc` writes it again.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md")
}

#[test]
fn docs_tools_md_is_the_generated_table() {
    let generated = tools::contract::tools_table();
    let path = path();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != generated {
        let first = checked_in
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                checked_in.lines().count().min(generated.lines().count()),
                |i| i,
            );
        panic!(
            "docs/tools.md differs from the table the registry generates (first at line {}):\n  \
             checked in: {:?}\n  generated:  {:?}\nregenerate it with \
             `UPDATE_DOCS=1 cargo test -p tools --test tools_doc` and review the diff",
            first + 1,
            checked_in.lines().nth(first).unwrap_or("<end of file>"),
            generated.lines().nth(first).unwrap_or("<end of file>"),
        );
    }
}

/// Every tool has its row, once.
#[test]
fn the_table_has_a_row_per_tool() {
    let table = tools::contract::tools_table();
    for name in tools::tool_names() {
        let row = format!("| `{name}` |");
        assert_eq!(table.matches(&row).count(), 1, "{name}");
    }
    let rows = table.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(rows, tools::tool_names().len());
}
