//! The plan hooks of `scrape_metadata`: what a stored scrape depends on (each NFO path as it
//! is on disk), how `apply_change` writes the files (one per checkpointed step; a file Marquee
//! did not write is replaced only when the plan says so) and how the owner sees the plan.

use serde_json::{Value, json};

use super::{
    plan_organize::{blocking, open_folder},
    scrape_metadata::{ScrapePlan, existing, key},
};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Run},
};
use store::Change;

/// The plan hooks of `scrape_metadata`.
pub(crate) const SCRAPE: ScrapePlanned = ScrapePlanned;

/// Writing NFO files as [`Planned`]: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct ScrapePlanned;

impl Planned for ScrapePlanned {
    fn always(&self) -> bool {
        true
    }

    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let plan: ScrapePlan = plan::parse_plan(change)?;
            let root = open_folder(ctx, "instance_id", &plan.instance_id)?.root;
            let paths: Vec<String> = plan.files.iter().map(|f| f.path.clone()).collect();
            let now = blocking(move || {
                paths
                    .iter()
                    .map(|p| existing(&root, p).fingerprint())
                    .collect::<Vec<_>>()
            })
            .await?;
            Ok(plan
                .files
                .iter()
                .zip(now)
                .map(|(f, fp)| (key(&plan.instance_id, &f.path), fp))
                .collect())
        })
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
        match serde_json::from_str::<ScrapePlan>(&change.plan) {
            Ok(plan) => describe(&plan),
            Err(_) => PlanView::unknown(&change.tool),
        }
    }
}

/// Writes the planned files one at a time, each step checkpointed (with the files done
/// before it); a cancelled operation stops before its next file.
async fn apply(ctx: &Ctx, plan: ScrapePlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let root = open_folder(ctx, "instance_id", &plan.instance_id)?.root;
    let mut results: Vec<Value> = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    let mut failed = 0usize;
    let mut stopped = false;
    for (i, f) in plan.files.iter().enumerate() {
        let mut row = json!({"path": f.path, "action": f.action});
        if stopped {
            row["outcome"] = json!("not_done");
            results.push(row);
            continue;
        }
        let go = run
            .step(json!({"call": format!("{} nfo", f.action), "file": i, "path": f.path, "done": done}))
            .await?;
        if !go {
            stopped = true;
            row["outcome"] = json!("not_done");
            results.push(row);
            continue;
        }
        let (r, file) = (root.clone(), f.clone());
        let wrote = blocking(move || {
            if file.action == "replace" {
                adapters_folder::write::replace_file(&r, &file.path, file.content.as_bytes())
            } else {
                adapters_folder::write::create_new_file(&r, &file.path, file.content.as_bytes())
            }
        })
        .await?;
        match wrote {
            Ok(()) => {
                done.push(i);
                row["outcome"] = json!("done");
            }
            Err(e) => {
                failed += 1;
                row["outcome"] = json!("failed");
                row["message"] = json!(e.to_string());
            }
        }
        results.push(row);
    }
    let not_done = plan.files.len() - done.len() - failed;
    let mut summary = format!(
        "{} of {} NFO file{} written in {}",
        done.len(),
        plan.files.len(),
        if plan.files.len() == 1 { "" } else { "s" },
        plan.instance_id
    );
    if failed > 0 {
        summary.push_str(&format!("; {failed} failed (see results)"));
    }
    if stopped {
        summary.push_str(&format!(
            "; the operation was cancelled: {not_done} not written"
        ));
    }
    let mut data = json!({
        "ok": done.len(),
        "failed": failed,
        "not_done": not_done,
        "results": results,
    });
    if stopped {
        data["cancelled"] = json!(true);
    }
    Ok(Output::new(summary, data))
}

fn describe(plan: &ScrapePlan) -> PlanView {
    let n = plan.files.len();
    let foreign = plan.files.iter().filter(|f| f.replaces_foreign).count();
    let overwrite = if plan.overwrite {
        format!(
            " Overwrite is on: {foreign} file{} that Marquee did not write {} replaced.",
            if foreign == 1 { "" } else { "s" },
            if foreign == 1 { "is" } else { "are" }
        )
    } else {
        " Overwrite is off: NFO files Marquee did not write are left as they are.".into()
    };
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let mut tables = vec![PlanTable {
        id: "nfo",
        title: "NFO files",
        columns: vec![
            column("File", Look::New, false),
            column("Action", Look::Text, false),
            column("Title", Look::Text, false),
            column("Ids", Look::Code, true),
        ],
        rows: plan
            .files
            .iter()
            .map(|f| {
                let action = match (f.action.as_str(), f.replaces_foreign) {
                    ("replace", true) => "replace (not written by Marquee: overwrite)",
                    ("replace", false) => "replace (written by Marquee)",
                    _ => "create",
                };
                vec![
                    f.path.clone(),
                    action.into(),
                    f.title.clone(),
                    f.ids.clone(),
                ]
            })
            .collect(),
    }];
    if !plan.kept.is_empty() {
        tables.push(PlanTable {
            id: "nfo-kept",
            title: "Left as they are",
            columns: vec![
                column("File", Look::Code, false),
                column("Why", Look::Text, false),
            ],
            rows: plan
                .kept
                .iter()
                .map(|k| vec![k.path.clone(), k.reason.clone()])
                .collect(),
        });
    }
    PlanView {
        effect: format!(
            "Writes {n} NFO file{} in {}, one at a time, with the catalogue's ids, titles, plots, genres, certification and poster URLs.{overwrite}",
            if n == 1 { "" } else { "s" },
            plan.instance_id
        ),
        tables,
    }
}
