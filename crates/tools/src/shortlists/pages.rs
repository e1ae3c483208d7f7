//! What the owner pages show of shortlists, read with the owner's authority: the themes, the
//! rows (each with its schedule and who planned it) and the recent runs; one row with what a
//! run would do now; and the owner's pause of a row's schedule, taken on the page itself.

use std::sync::Arc;

use governance::{App, Ctx, Delegate};

use super::{
    row::{preview, view},
    run_report,
};
use crate::tasks::{Scheduler, rfc3339, schedule};

/// A theme, a row or a run, as a page's table shows it: plain texts.
pub type Line = Vec<String>;

/// The shortlists page.
pub struct Overview {
    /// Name, picks, rules.
    pub themes: Vec<Line>,
    /// Id, name, server, audience, enabled, schedule.
    pub rows: Vec<Line>,
    /// Run id, status, started, rows.
    pub runs: Vec<Line>,
}

/// One row's page.
pub struct RowPage {
    pub name: String,
    /// Field, value.
    pub fields: Vec<Line>,
    /// Title, what a run does with it (shown, missing, left out and why).
    pub preview: Vec<Line>,
    /// What a run would change on the server.
    pub effect: String,
    /// The schedule's cron, when scheduled, and whether it is paused.
    pub schedule: Option<(String, bool)>,
    /// Run id, status, started, outcome.
    pub runs: Vec<Line>,
}

async fn owner(app: &App) -> Result<Ctx, String> {
    app.family::<Delegate>()
        .ok_or("the delegate is missing")?
        .owner_ctx("preview_row")
        .await
}

fn schedule_text(ctx_row: &serde_json::Value) -> String {
    let s = &ctx_row["schedule"];
    if s.is_null() {
        return "none".into();
    }
    let by = s["planned_by"].as_str().unwrap_or("someone no longer here");
    let state = if s["paused"] == true {
        "paused".to_owned()
    } else {
        format!("next {}", s["next_run"].as_str().unwrap_or("-"))
    };
    format!(
        "{} ({state}), planned by {by}, up to {} request(s) and {} acquisition(s) a run",
        s["cron"].as_str().unwrap_or_default(),
        s["max_requests"],
        s["max_acquisitions"]
    )
}

/// The shortlists page's tables.
pub async fn overview(app: &App) -> Result<Overview, String> {
    let ctx = owner(app).await?;
    let store = app.store();
    let fail = |e: store::Error| e.to_string();
    let mut themes = Vec::new();
    for t in store.themes().await.map_err(fail)? {
        let shown = super::theme::view(&t).map_err(|e| e.message)?;
        let rules = serde_json::to_string(&shown.rules).unwrap_or_default();
        let picks: Vec<String> = shown.picks.iter().map(|p| p.title.clone()).collect();
        themes.push(vec![shown.name, picks.join(", "), rules]);
    }
    let mut rows = Vec::new();
    for r in store.shortlist_rows().await.map_err(fail)? {
        let v =
            serde_json::to_value(view(&ctx, &r).await.map_err(|e| e.message)?).unwrap_or_default();
        let audience = if r.audience.is_empty() {
            "everyone".to_owned()
        } else {
            v["audience"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        rows.push(vec![
            r.id.to_string(),
            r.name.clone(),
            r.instance_id.clone(),
            audience,
            if r.enabled { "yes" } else { "no" }.to_owned(),
            schedule_text(&v),
        ]);
    }
    let runs = store
        .operations_of_tool("plan_run", 20)
        .await
        .map_err(fail)?
        .iter()
        .map(|op| {
            let v = run_report::view(&ctx, op);
            let names: Vec<String> = v
                .rows
                .iter()
                .map(|r| format!("{} ({})", r.name, r.outcome))
                .collect();
            vec![v.run_id, v.status, v.started_at, names.join(", ")]
        })
        .collect();
    Ok(Overview { themes, rows, runs })
}

/// Row `id`'s page; `Ok(None)` when there is no such row.
pub async fn row_page(app: &App, id: i64) -> Result<Option<RowPage>, String> {
    let ctx = owner(app).await?;
    let store = app.store();
    let Some(row) = store.shortlist_row(id).await.map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let v =
        serde_json::to_value(view(&ctx, &row).await.map_err(|e| e.message)?).unwrap_or_default();
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    let audience: Vec<&str> = v["audience"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str())
        .collect();
    let fields = vec![
        vec!["Theme".into(), text("theme")],
        vec!["Media server".into(), text("instance_id")],
        vec!["Library".into(), text("library_id")],
        vec![
            "For".into(),
            if audience.is_empty() {
                "everyone".into()
            } else {
                audience.join(", ")
            },
        ],
        vec![
            "Enabled".into(),
            if row.enabled { "yes" } else { "no" }.into(),
        ],
        vec![
            "Shown as".into(),
            super::row::DisplayView::of(&row.display).text(),
        ],
        vec![
            "Collection Marquee made".into(),
            row.collection_id
                .clone()
                .unwrap_or_else(|| "none yet".into()),
        ],
        vec!["Schedule".into(), schedule_text(&v)],
    ];
    let (preview_lines, effect) =
        match store.theme(row.theme_id).await.map_err(|e| e.to_string())? {
            None => (Vec::new(), "its theme is gone".to_owned()),
            Some(theme) => match preview(&ctx, &row, &theme).await {
                Err(e) => (Vec::new(), e.message),
                Ok(p) => {
                    let mut lines = Vec::new();
                    let label = |t: &super::row::Shown| match t.year {
                        Some(y) => format!("{} ({y})", t.title),
                        None => t.title.clone(),
                    };
                    lines.extend(p.shown.iter().map(|t| vec![label(t), "shown".into()]));
                    lines.extend(
                        p.missing
                            .iter()
                            .map(|t| vec![label(t), "missing from the server".into()]),
                    );
                    lines.extend(p.left_out.iter().map(|t| {
                        vec![
                            label(t),
                            format!("left out: {}", t.reason.clone().unwrap_or_default()),
                        ]
                    }));
                    let effect = if p.creates_collection && !p.to_add.is_empty() {
                        format!(
                            "a run creates the collection with {} title(s)",
                            p.to_add.len()
                        )
                    } else {
                        format!(
                            "a run adds {} and takes out {} item(s)",
                            p.to_add.len(),
                            p.to_remove.len()
                        )
                    };
                    (lines, effect)
                }
            },
        };
    let runs = store
        .operations_of_tool("plan_run", 200)
        .await
        .map_err(|e| e.to_string())?
        .iter()
        .filter_map(|op| {
            let v = run_report::view(&ctx, op);
            let mine = v.rows.iter().find(|r| r.row_id == id)?;
            Some(vec![
                v.run_id.clone(),
                v.status.clone(),
                v.started_at.clone(),
                format!(
                    "{}: {} added, {} taken out",
                    mine.outcome, mine.added, mine.removed
                ),
            ])
        })
        .take(10)
        .collect();
    Ok(Some(RowPage {
        name: row.name.clone(),
        fields,
        preview: preview_lines,
        effect,
        schedule: row.schedule.as_ref().map(|s| (s.cron.clone(), s.paused)),
        runs,
    }))
}

/// The owner pauses (or resumes) row `id`'s schedule on the page: a resumed schedule runs next
/// at its next due time from now. `Ok(false)` when the row has no schedule.
pub async fn pause(app: &App, id: i64, paused: bool) -> Result<bool, String> {
    let store = app.store();
    let Some(row) = store.shortlist_row(id).await.map_err(|e| e.to_string())? else {
        return Ok(false);
    };
    let Some(s) = row.schedule else {
        return Ok(false);
    };
    let next = if paused {
        None
    } else {
        let scheduler = app
            .family::<Arc<Scheduler>>()
            .ok_or("the scheduler is missing")?;
        let cron = schedule::parse_cron(&s.cron)?;
        schedule::next_cron(&cron, scheduler.config().zone, scheduler.now())
            .map(|t| t.timestamp_millis())
    };
    tracing::info!(row = id, paused, next = ?next.map(rfc3339), "the owner paused or resumed a shortlist schedule");
    store
        .pause_row_schedule(id, paused, next)
        .await
        .map_err(|e| e.to_string())
}
