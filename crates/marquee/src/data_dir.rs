//! Where the data folder is when none is named: one per user (or the service's state folder),
//! never the folder a command happens to run in, so `marquee stdio` started by a desktop client
//! from anywhere finds the store `marquee serve` made.

use std::path::{Path, PathBuf};

use anyhow::bail;

/// The default data folder and why it was chosen: systemd's `STATE_DIRECTORY` (a unit with
/// `StateDirectory=`), else `$XDG_DATA_HOME/marquee`, else `$HOME/.local/share/marquee`, else
/// `./marquee-data` (no home folder at all).
pub fn default() -> anyhow::Result<(PathBuf, &'static str)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(state) = var("STATE_DIRECTORY") {
        // systemd lists one folder per StateDirectory= entry, separated by colons.
        let first = state.to_string_lossy().split(':').next().map(PathBuf::from);
        if let Some(first) = first.filter(|p| p.is_absolute()) {
            return Ok((first, "systemd's STATE_DIRECTORY"));
        }
    }
    if let Some(xdg) = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return Ok((xdg.join("marquee"), "$XDG_DATA_HOME/marquee"));
    }
    if let Some(home) = var("HOME").map(PathBuf::from).filter(|p| p.is_absolute()) {
        return Ok((
            home.join(".local/share/marquee"),
            "~/.local/share/marquee, the default",
        ));
    }
    Ok((
        PathBuf::from("./marquee-data"),
        "./marquee-data, as no home folder is set",
    ))
}

/// Refuses to go on without a database in `dir`: a command that serves a key (stdio) must never
/// make a new, empty store, where every key would be "not valid".
pub fn must_exist(dir: &Path, why: &str) -> anyhow::Result<()> {
    if store::database_file(dir).exists() {
        return Ok(());
    }
    bail!(
        "no Marquee database in {} ({why}); start `marquee serve` once to make it, or set \
         MARQUEE_DATA_DIR (or --data-dir) to the folder `marquee serve` uses",
        dir.display()
    )
}
