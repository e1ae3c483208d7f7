//! The plan hooks of `plan_organize`: what a stored organise depends on (each source and
//! destination as it is on disk), how the owner sees it (a source → destination table), how
//! `apply_change` carries it out (one file per step, each step checkpointed with the files done
//! and failed before it, so a crash leaves only the file in flight of unknown outcome), and its
//! undoing (`revert_change`: links and copies removed, moved files moved back; after a partial
//! failure, a cancellation or a crash, only the files it placed).

use std::{collections::BTreeSet, path::PathBuf};

use adapters_folder::write;
use serde_json::{Value, json};

use super::plan_organize::{
    Mode, OrganizePlan, PlannedFile, blocking, destination_key, fingerprint, open_folder,
    source_key,
};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    error::ErrorCode,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Proposal, Run},
};
use store::Change;

/// The plan hooks of `plan_organize`.
pub(crate) const ORGANIZE: OrganizePlanned = OrganizePlanned;

/// Organising as [`Planned`]: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct OrganizePlanned;

impl Planned for OrganizePlanned {
    fn always(&self) -> bool {
        true
    }

    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move { read_dependencies(ctx, &plan::parse_plan(change)?).await })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move { apply(ctx, plan::parse_plan(change)?, run).await })
    }

    fn describe(&self, change: &Change) -> PlanView {
        match serde_json::from_str::<OrganizePlan>(&change.plan) {
            Ok(plan) => describe(&plan),
            Err(_) => PlanView::unknown(&change.tool),
        }
    }

    fn revertible(&self) -> bool {
        true
    }

    fn revert_tool(&self) -> Option<&'static str> {
        Some("plan_organize")
    }

    fn reverts_partial(&self) -> bool {
        true
    }

    fn unfinished(&self, change: &Change, checkpoint: &Value) -> Option<Value> {
        let plan: OrganizePlan = serde_json::from_str(&change.plan).ok()?;
        Some(unfinished(&plan, checkpoint))
    }

    fn revert<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        result: &'a Value,
    ) -> BoxFuture<'a, Result<Proposal, ToolError>> {
        Box::pin(async move { revert(ctx, change, result).await })
    }
}

/// Every source and destination of `plan` as it is on disk now.
pub(crate) async fn read_dependencies(
    ctx: &Ctx,
    plan: &OrganizePlan,
) -> Result<Dependencies, ToolError> {
    let src = open_folder(ctx, "instance_id", &plan.instance_id)?.root;
    let dst = open_folder(ctx, "target_instance_id", &plan.target_instance_id)?.root;
    let files = plan.files.clone();
    let read = blocking(move || {
        files
            .iter()
            .map(|f| {
                Ok((
                    fingerprint(write::identity(&src, &f.source)?),
                    fingerprint(write::identity(&dst, &f.destination)?),
                ))
            })
            .collect::<Result<Vec<_>, write::WriteError>>()
    })
    .await?
    .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e.to_string()))?;
    let mut out = Dependencies::new();
    for (f, (s, d)) in plan.files.iter().zip(read) {
        out.insert(source_key(plan, &f.source), s);
        out.insert(destination_key(plan, &f.destination), d);
    }
    Ok(out)
}

/// How one file ended.
fn outcome(f: &PlannedFile, outcome: &str, message: Option<String>) -> Value {
    let mut v = json!({
        "source": f.source,
        "destination": f.destination,
        "outcome": outcome,
    });
    if let Some(m) = message {
        v["message"] = json!(m);
    }
    v
}

/// Carries out `plan` one file at a time. Before each file the step is checkpointed with the
/// indexes of the files already done and already failed: a cancelled operation stops there
/// (the rest are `not_done`), and after a crash the operation's checkpoint tells the files done
/// from the one whose outcome is unknown (`file`) and those never started.
async fn apply(ctx: &Ctx, plan: OrganizePlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let src = open_folder(ctx, "instance_id", &plan.instance_id)?.root;
    let dst = open_folder(ctx, "target_instance_id", &plan.target_instance_id)?.root;
    let undo = plan.reverts.is_some();
    let source_abs = std::path::absolute(src.path()).unwrap_or_else(|_| src.path().to_path_buf());
    let call = if undo {
        format!("undo {}", plan.mode.as_str())
    } else {
        plan.mode.as_str().to_string()
    };
    let mut results = Vec::with_capacity(plan.files.len());
    let mut done: Vec<usize> = Vec::new();
    let mut failed_at: Vec<usize> = Vec::new();
    let mut stopped = false;
    for (i, f) in plan.files.iter().enumerate() {
        if stopped {
            results.push(outcome(f, "not_done", None));
            continue;
        }
        let go = run
            .step(json!({
                "call": call,
                "file": i,
                "files": plan.files.len(),
                "source": f.source,
                "destination": f.destination,
                "done": done,
                "failed": failed_at,
            }))
            .await?;
        if !go {
            stopped = true;
            results.push(outcome(f, "not_done", None));
            continue;
        }
        let (s, d, m) = (src.clone(), dst.clone(), plan.mode);
        let (file, target) = (f.clone(), source_abs.join(&f.source));
        let made = blocking(move || one_file(&s, &d, m, undo, &file, target)).await?;
        match made {
            Ok(note) => {
                done.push(i);
                results.push(outcome(f, "done", note));
            }
            Err(e) => {
                failed_at.push(i);
                results.push(outcome(f, "failed", Some(e.to_string())));
            }
        }
    }
    if undo && !stopped && !plan.leftovers.is_empty() {
        let (d, leftovers) = (dst.clone(), plan.leftovers.clone());
        blocking(move || {
            for rel in &leftovers {
                write::clear_leftovers(&d, rel);
            }
        })
        .await?;
    }
    let failed = failed_at.len();
    let not_done = plan.files.len() - done.len() - failed;
    let verb = if undo { "undone" } else { "placed" };
    let mut summary = format!(
        "{} of {} file{} {verb} ({}, from {} into {})",
        done.len(),
        plan.files.len(),
        if plan.files.len() == 1 { "" } else { "s" },
        call,
        plan.instance_id,
        plan.target_instance_id
    );
    if failed > 0 {
        summary.push_str(&format!("; {failed} failed (see results)"));
    }
    if stopped {
        summary.push_str(&format!(
            "; the operation was cancelled: {not_done} file{} not touched",
            if not_done == 1 { " was" } else { "s were" }
        ));
    }
    let mut data = json!({
        "mode": plan.mode.as_str(),
        "ok": done.len(),
        "failed": failed,
        "not_done": not_done,
        "results": results,
    });
    if let Some(r) = &plan.reverts {
        data["reverts"] = json!(r);
    }
    if stopped {
        data["cancelled"] = json!(true);
    }
    let mut out = Output::new(summary, data);
    if !undo && !done.is_empty() {
        out = out.next(if failed == 0 && !stopped {
            "revert_change {\"change_id\": \"…\"} plans the undoing of this organise"
        } else {
            "revert_change {\"change_id\": \"…\"} plans the undoing of the files this organise placed"
        });
    }
    Ok(out)
}

/// Places (or, undoing, puts back) one file. `Ok` carries a note on how it was done.
fn one_file(
    src: &adapters_folder::Root,
    dst: &adapters_folder::Root,
    mode: Mode,
    undo: bool,
    f: &PlannedFile,
    symlink_target: PathBuf,
) -> Result<Option<String>, write::WriteError> {
    let (s, d) = (f.source.as_str(), f.destination.as_str());
    if undo {
        let note = match mode {
            Mode::Move => {
                write::move_file(dst, d, src, s)?;
                None
            }
            _ => (!write::remove(dst, d)?).then(|| "it was already gone".to_string()),
        };
        // A copy cut off by a crash left its temporary file beside the destination.
        write::clear_leftovers(dst, d);
        write::remove_empty_parents(dst, d);
        return Ok(note);
    }
    match mode {
        Mode::Hardlink => write::hard_link(src, s, dst, d).map(|()| None),
        Mode::Copy => write::copy(src, s, dst, d).map(|()| None),
        Mode::Move => write::move_file(src, s, dst, d).map(|how| match how {
            write::Moved::Renamed => None,
            write::Moved::Copied => Some("copied across file systems, then removed".into()),
        }),
        Mode::Symlink => write::symlink(dst, d, &symlink_target).map(|()| None),
    }
}

/// Each file's outcome in an organise a crash cut off, from its last checkpoint: those it lists
/// as done or failed, the one in flight `outcome_unknown`, the rest `not_done`.
fn unfinished(plan: &OrganizePlan, checkpoint: &Value) -> Value {
    let listed = |key: &str| -> BTreeSet<u64> {
        checkpoint[key]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    };
    let (done, failed, flight) = (
        listed("done"),
        listed("failed"),
        checkpoint["file"].as_u64(),
    );
    let results: Vec<Value> = plan
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let i = i as u64;
            let said = if done.contains(&i) {
                "done"
            } else if failed.contains(&i) {
                "failed"
            } else if flight == Some(i) {
                "outcome_unknown"
            } else {
                "not_done"
            };
            outcome(f, said, None)
        })
        .collect();
    let count = |word: &str| results.iter().filter(|r| r["outcome"] == word).count();
    json!({
        "mode": plan.mode.as_str(),
        "ok": count("done"),
        "failed": count("failed"),
        "outcome_unknown": count("outcome_unknown"),
        "not_done": count("not_done"),
        "results": results,
    })
}

/// The files an organise cut off by a crash placed, by index: those its last checkpoint lists
/// as done, and the one then in flight when its destination is there as this organise leaves
/// it (a hard link to the source, a symbolic link, a copy of the planned size, or a moved file
/// whose source is gone).
async fn placed_before_crash(
    ctx: &Ctx,
    plan: &OrganizePlan,
    checkpoint: &Value,
) -> Result<BTreeSet<usize>, ToolError> {
    let n = plan.files.len();
    let mut placed: BTreeSet<usize> = checkpoint["done"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(Value::as_u64)
                .map(|i| i as usize)
                .filter(|i| *i < n)
                .collect()
        })
        .unwrap_or_default();
    let Some(flight) = checkpoint["file"]
        .as_u64()
        .map(|i| i as usize)
        .filter(|i| *i < n)
    else {
        return Ok(placed);
    };
    let src = open_folder(ctx, "instance_id", &plan.instance_id)?.root;
    let dst = open_folder(ctx, "target_instance_id", &plan.target_instance_id)?.root;
    let (f, mode) = (plan.files[flight].clone(), plan.mode);
    let there = blocking(move || {
        let d = write::identity(&dst, &f.destination)?;
        let s = write::identity(&src, &f.source)?;
        Ok::<_, write::WriteError>(match (mode, d, s) {
            (_, None, _) => false,
            (Mode::Hardlink, Some(d), Some(s)) => (d.dev, d.ino) == (s.dev, s.ino),
            (Mode::Hardlink, Some(_), None) => false,
            (Mode::Symlink, Some(d), _) => d.symlink,
            (Mode::Copy, Some(d), _) => !d.symlink && d.facts.size == f.size,
            (Mode::Move, Some(d), s) => s.is_none() && !d.symlink && d.facts.size == f.size,
        })
    })
    .await?
    .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e.to_string()))?;
    if there {
        placed.insert(flight);
    }
    Ok(placed)
}

/// A size for people: "1.2 GB" (powers of 1000), bytes below a kilobyte.
pub(crate) fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The owner's review: one sentence, the source → destination table, and what stays.
fn describe(plan: &OrganizePlan) -> PlanView {
    let n = plan.files.len();
    let files = if n == 1 { "file" } else { "files" };
    let bytes = size_text(plan.files.iter().map(|f| f.size).sum());
    let (from, to) = (&plan.instance_id, &plan.target_instance_id);
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let effect = match (&plan.reverts, plan.mode) {
        (Some(r), Mode::Move) => format!(
            "Undoes change {r}: moves {n} {files} ({bytes}) back from {to} to {from}, never replacing a file."
        ),
        (Some(r), mode) => format!(
            "Undoes change {r}: removes the {n} {} it made in {to} (the originals in {from} stay).",
            match mode {
                Mode::Hardlink => "hard links",
                Mode::Symlink => "symbolic links",
                _ => "copies",
            }
        ),
        (None, mode) => format!(
            "{} {n} {files} ({bytes}) from {from} into {to}, one at a time; a destination that exists by then is refused and nothing is ever replaced.",
            match mode {
                Mode::Hardlink => "Hard-links",
                Mode::Copy => "Copies",
                Mode::Move => "Moves",
                Mode::Symlink => "Makes symbolic links to",
            }
        ),
    };
    let rows = plan
        .files
        .iter()
        .map(|f| {
            let (a, b) = match (&plan.reverts, plan.mode) {
                (Some(_), Mode::Move) => (f.destination.clone(), f.source.clone()),
                (Some(_), _) => (f.destination.clone(), "removed".to_string()),
                (None, _) => (f.source.clone(), f.destination.clone()),
            };
            vec![a, b, f.kind.clone(), size_text(f.size)]
        })
        .collect();
    // What goes is struck through: a moved file's old name, or what an undoing removes; a
    // linked or copied source stays where it is.
    let (old, new, source_look) = match (&plan.reverts, plan.mode) {
        (Some(_), _) => ("Now at", "After", Look::Old),
        (None, Mode::Move) => ("Source", "Destination", Look::Old),
        (None, _) => ("Source", "Destination", Look::Code),
    };
    let mut tables = vec![PlanTable {
        id: "organize",
        title: "Files",
        columns: vec![
            column(old, source_look, false),
            column(new, Look::New, false),
            column("Kind", Look::Text, true),
            column("Size", Look::Text, true),
        ],
        rows,
    }];
    if !plan.skipped.is_empty() {
        tables.push(PlanTable {
            id: "organize-skipped",
            title: "Left where they are",
            columns: vec![
                column("File", Look::Code, false),
                column("Why", Look::Text, false),
            ],
            rows: plan
                .skipped
                .iter()
                .map(|s| vec![s.path.clone(), s.reason.clone()])
                .collect(),
        });
    }
    PlanView { effect, tables }
}

/// The undoing of the organise `change`, whose operation answered `result`: the files it
/// placed, put back. An operation a crash cut off answered nothing; its last checkpoint
/// (`{"checkpoint": …}`) names the files done before the one in flight, and that one counts
/// as placed only when its destination is there as the organise would have left it.
async fn revert(ctx: &Ctx, change: &Change, result: &Value) -> Result<Proposal, ToolError> {
    let original: OrganizePlan = plan::parse_plan(change)?;
    if original.reverts.is_some() {
        return Err(ToolError::invalid(format!(
            "change {} is itself the undoing of an organise; a revert cannot be reverted",
            change.id
        )));
    }
    let placed: BTreeSet<usize> = match result["results"].as_array() {
        Some(rs) => {
            let done: BTreeSet<(&str, &str)> = rs
                .iter()
                .filter(|r| r["outcome"] == "done")
                .filter_map(|r| Some((r["source"].as_str()?, r["destination"].as_str()?)))
                .collect();
            original
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| done.contains(&(f.source.as_str(), f.destination.as_str())))
                .map(|(i, _)| i)
                .collect()
        }
        None => placed_before_crash(ctx, &original, &result["checkpoint"]).await?,
    };
    let files: Vec<PlannedFile> = original
        .files
        .iter()
        .enumerate()
        .filter(|(i, _)| placed.contains(i))
        .map(|(_, f)| f.clone())
        .collect();
    if files.is_empty() {
        return Err(ToolError::invalid(format!(
            "change {} placed no file that could be put back; nothing was planned",
            change.id
        )));
    }
    let leftovers = original
        .files
        .iter()
        .enumerate()
        .filter(|(i, _)| !placed.contains(i))
        .map(|(_, f)| f.destination.clone())
        .collect();
    let plan = OrganizePlan {
        instance_id: original.instance_id,
        target_instance_id: original.target_instance_id,
        mode: original.mode,
        files,
        skipped: Vec::new(),
        reverts: Some(change.id.clone()),
        leftovers,
    };
    let dependencies = read_dependencies(ctx, &plan).await?;
    // A moved file goes back only to a free name.
    if plan.mode == Mode::Move {
        let taken: Vec<&str> = plan
            .files
            .iter()
            .filter(|f| {
                dependencies
                    .get(&source_key(&plan, &f.source))
                    .map(String::as_str)
                    != Some("absent")
            })
            .map(|f| f.source.as_str())
            .collect();
        if !taken.is_empty() {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "these files cannot be moved back to {}: the name is taken again: {}; nothing was planned",
                    plan.instance_id,
                    taken.join(", ")
                ),
            ));
        }
    }
    let summary = format!(
        "undo the {} of {} file{} from {} into {} (change {})",
        plan.mode.as_str(),
        plan.files.len(),
        if plan.files.len() == 1 { "" } else { "s" },
        plan.instance_id,
        plan.target_instance_id,
        change.id
    );
    let plan_json = serde_json::to_value(&plan).map_err(|e| {
        ToolError::new(
            ErrorCode::Internal,
            format!("the plan could not be written: {e}"),
        )
    })?;
    Ok(Proposal {
        summary,
        plan: plan_json,
        dependencies,
    })
}
