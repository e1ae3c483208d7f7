//! The tool contract's JSON written from typed shapes: the `{summary, data, warnings,
//! next_action, observed_at}` envelope, whose `data` may be JSON a tool wrote already, and
//! [`Rows`], a page's rows each written once while their source is at hand. Parts already
//! serialized are borrowed as `&RawValue`, so nothing is parsed or assembled by hand.

use serde::{Serialize, Serializer};
use serde_json::value::{RawValue, to_raw_value};

/// The output envelope, keys in the order a JSON tree of it would have (sorted).
#[derive(Serialize)]
pub(crate) struct Envelope<'a, D: Serialize + ?Sized> {
    pub(crate) data: &'a D,
    pub(crate) next_action: Option<&'a str>,
    pub(crate) observed_at: &'a str,
    pub(crate) summary: &'a str,
    pub(crate) warnings: &'a [String],
}

/// The rows of a page, each serialized when it was made (while the data it borrows is still
/// locked, say) and written later as one JSON array, unchanged.
#[derive(Debug, Default)]
pub struct Rows(Vec<Box<RawValue>>);

impl Rows {
    pub fn with_capacity(n: usize) -> Rows {
        Rows(Vec::with_capacity(n))
    }

    /// Serializes one row and keeps its JSON text.
    pub fn push(&mut self, row: &impl Serialize) -> Result<(), serde_json::Error> {
        self.0.push(to_raw_value(row)?);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Rows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde::Serialize;
    use serde_json::{Value, json};

    use super::*;
    use crate::{ErrorCode, Output, ToolError};

    /// Text that needs every kind of escape JSON has.
    const TRICKY: &str = "say \"hi\" \\ C:\\films\n\t\u{1} Amélie \u{2028} 東京";

    fn parsed(raw: &RawValue) -> Value {
        serde_json::from_str(raw.get()).expect("the shape writes one JSON value")
    }

    #[test]
    fn an_envelope_of_a_tree_is_the_envelope_the_tree_means() {
        let out = Output::new(TRICKY, json!({ "n": [1, 2.5, null], "t": TRICKY }))
            .warn(TRICKY)
            .next("find_torrents with offset 50");
        let at = out.envelope()["observed_at"].clone();
        assert_eq!(
            parsed(&out.envelope_json().unwrap()),
            json!({
                "summary": TRICKY,
                "data": { "n": [1, 2.5, null], "t": TRICKY },
                "warnings": [TRICKY],
                "next_action": "find_torrents with offset 50",
                "observed_at": at,
            })
        );
    }

    #[derive(Serialize)]
    struct Row<'a> {
        name: &'a str,
        size: u64,
        ratio: Option<f64>,
    }

    #[derive(Serialize)]
    struct Page {
        total: usize,
        next_offset: Option<usize>,
        rows: Rows,
    }

    #[test]
    fn a_page_of_rows_written_one_by_one_is_the_array_they_mean() {
        let mut rows = Rows::with_capacity(3);
        assert!(rows.is_empty());
        for (i, name) in ["plain", TRICKY, ""].into_iter().enumerate() {
            let ratio = (i != 1).then_some(i as f64 / 2.0);
            rows.push(&Row {
                name,
                size: 1 << (40 + i),
                ratio,
            })
            .unwrap();
        }
        assert_eq!(rows.len(), 3);
        let page = Page {
            total: 3,
            next_offset: None,
            rows,
        };
        let out = Output::typed("Rows 1-3 of 3.", &page).unwrap();
        let meant = json!({
            "total": 3,
            "next_offset": null,
            "rows": [
                { "name": "plain", "size": 1u64 << 40, "ratio": 0.0 },
                { "name": TRICKY, "size": 1u64 << 41, "ratio": null },
                { "name": "", "size": 1u64 << 42, "ratio": 1.0 },
            ],
        });
        assert_eq!(out.data(), meant);
        let envelope = parsed(&out.envelope_json().unwrap());
        assert_eq!(envelope["data"], meant);
        assert_eq!(envelope["warnings"], json!([]));
        assert_eq!(envelope["next_action"], Value::Null);
        assert_eq!(envelope, out.envelope());
    }

    #[test]
    fn an_empty_page_has_an_empty_array() {
        let page = Page {
            total: 0,
            next_offset: None,
            rows: Rows::default(),
        };
        let out = Output::typed("No torrent matched.", &page).unwrap();
        assert_eq!(
            out.data(),
            json!({ "total": 0, "next_offset": null, "rows": [] })
        );
    }

    #[test]
    fn an_error_envelope_is_the_tree_it_means() {
        let e = ToolError::new(ErrorCode::NotFound, TRICKY).with_data(json!({ "hash": TRICKY }));
        let written = parsed(&e.envelope_json().unwrap());
        assert_eq!(
            written,
            json!({
                "summary": TRICKY,
                "data": { "code": "not_found", "kind": "not_found", "hash": TRICKY },
                "warnings": [],
                "next_action": null,
                "observed_at": written["observed_at"],
            })
        );
        assert!(written["observed_at"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn a_kept_answer_is_rendered_once_for_all_its_clones() {
        let renders = AtomicUsize::new(0);
        let render = |o: &Output| {
            renders.fetch_add(1, Ordering::Relaxed);
            std::sync::Arc::<str>::from(o.summary.as_str())
        };
        let kept = Output::new("kept", json!(1)).shared();
        let a = kept.clone().rendered(render);
        let b = kept.clone().rendered(render);
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(renders.load(Ordering::Relaxed), 1);
        let plain = Output::new("plain", json!(1));
        plain.rendered(render);
        plain.rendered(render);
        assert_eq!(
            renders.load(Ordering::Relaxed),
            3,
            "an answer not kept renders each time"
        );
        let changed = kept.warn("new");
        assert_eq!(&*changed.rendered(render), "kept");
        assert_eq!(
            renders.load(Ordering::Relaxed),
            4,
            "a changed answer renders again"
        );
    }
}
