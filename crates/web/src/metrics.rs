//! Prometheus text metrics: requests by method and status, tool calls by tool and outcome,
//! and a request latency histogram. Counters live in memory; a restart starts them at zero.

use std::{
    collections::BTreeMap,
    fmt::Write,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use parking_lot::Mutex;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// The JSON-RPC methods (and notifications) counted under their own name; a client can send
/// any string as a method, so everything else is counted as `other`, keeping the label set
/// (and the memory it takes) fixed.
const METHODS: [&str; 14] = [
    "-",
    "response",
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// The label a method is counted under ([`METHODS`], or `other` past its end), by index.
fn method_label(method: &str) -> usize {
    METHODS
        .iter()
        .position(|m| *m == method)
        .unwrap_or(METHODS.len())
}

fn label_name(i: usize) -> &'static str {
    METHODS.get(i).copied().unwrap_or("other")
}

/// The HTTP statuses the edge answers, each counted in its own cell; any other is counted
/// under a lock.
const STATUSES: [u16; 12] = [200, 202, 400, 401, 403, 404, 405, 413, 415, 429, 500, 503];

#[derive(Debug, Default)]
pub struct Metrics {
    /// Requests by method label (the last row is `other`) and status: one atomic add each.
    requests: [[AtomicU64; STATUSES.len()]; METHODS.len() + 1],
    /// Requests with a status outside [`STATUSES`].
    rare: Mutex<BTreeMap<(&'static str, u16), u64>>,
    tool_calls: Mutex<BTreeMap<String, BTreeMap<&'static str, u64>>>,
    /// Requests whose latency fell in each bucket alone; cumulated when rendered, so a
    /// request touches one counter.
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

/// Counts one `(name, key)`; a name already counted costs no allocation.
fn bump<K: Ord>(counts: &mut BTreeMap<String, BTreeMap<K, u64>>, name: &str, key: K) {
    let by_key = match counts.get_mut(name) {
        Some(m) => m,
        None => counts.entry(name.to_string()).or_default(),
    };
    *by_key.entry(key).or_default() += 1;
}

impl Metrics {
    pub fn request(&self, method: &str, status: u16, elapsed: Duration) {
        let label = method_label(method);
        match STATUSES.iter().position(|s| *s == status) {
            Some(i) => {
                self.requests[label][i].fetch_add(1, Ordering::Relaxed);
            }
            None => {
                *self
                    .rare
                    .lock()
                    .entry((label_name(label), status))
                    .or_default() += 1;
            }
        }
        let secs = elapsed.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|bound| secs <= *bound) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    pub fn tool_call(&self, tool: &str, outcome: &'static str) {
        bump(&mut self.tool_calls.lock(), tool, outcome);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP marquee_mcp_requests_total MCP HTTP requests by JSON-RPC method and HTTP status.\n");
        out.push_str("# TYPE marquee_mcp_requests_total counter\n");
        // Sorted by label, then status; cells never counted are left out.
        let mut requests = self.rare.lock().clone();
        for (label, by_status) in self.requests.iter().enumerate() {
            for (cell, status) in by_status.iter().zip(STATUSES) {
                let n = cell.load(Ordering::Relaxed);
                if n > 0 {
                    requests.insert((label_name(label), status), n);
                }
            }
        }
        for ((method, status), n) in requests {
            let _ = writeln!(
                out,
                "marquee_mcp_requests_total{{method=\"{method}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str("# HELP marquee_tool_calls_total Tool calls by tool and outcome.\n");
        out.push_str("# TYPE marquee_tool_calls_total counter\n");
        for (tool, outcome, n) in self
            .tool_calls
            .lock()
            .iter()
            .flat_map(|(t, by)| by.iter().map(move |(o, n)| (t, o, n)))
        {
            let _ = writeln!(
                out,
                "marquee_tool_calls_total{{tool=\"{}\",outcome=\"{outcome}\"}} {n}",
                escape(tool)
            );
        }
        out.push_str("# HELP marquee_mcp_request_duration_seconds MCP HTTP request latency.\n");
        out.push_str("# TYPE marquee_mcp_request_duration_seconds histogram\n");
        let mut cumulative = 0;
        for (i, bound) in BUCKETS.iter().enumerate() {
            cumulative += self.buckets[i].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "marquee_mcp_request_duration_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "marquee_mcp_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "marquee_mcp_request_duration_seconds_sum {}",
            self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "marquee_mcp_request_duration_seconds_count {count}");
        out
    }
}

/// Label values come from clients (method names): keep them printable and short.
fn escape(v: &str) -> String {
    v.chars()
        .take(64)
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histogram() {
        let m = Metrics::default();
        m.request("tools/list", 200, Duration::from_micros(300));
        m.request("tools/list", 200, Duration::from_millis(20));
        m.request("tools/unknown", 404, Duration::from_millis(2));
        m.tool_call("whoami", "ok");
        let text = m.render();
        assert!(
            text.contains("marquee_mcp_requests_total{method=\"tools/list\",status=\"200\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("marquee_mcp_requests_total{method=\"other\",status=\"404\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("marquee_tool_calls_total{tool=\"whoami\",outcome=\"ok\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("marquee_mcp_request_duration_seconds_bucket{le=\"0.0005\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("marquee_mcp_request_duration_seconds_bucket{le=\"0.0025\"} 2"),
            "buckets are cumulative: {text}"
        );
        assert!(
            text.contains("marquee_mcp_request_duration_seconds_bucket{le=\"0.025\"} 3"),
            "{text}"
        );
        assert!(
            text.contains("marquee_mcp_request_duration_seconds_count 3"),
            "{text}"
        );
    }

    #[test]
    fn every_status_is_counted_in_label_then_status_order() {
        let m = Metrics::default();
        m.request("tools/call", 418, Duration::from_millis(1));
        m.request("tools/call", 200, Duration::from_millis(1));
        m.request("tools/call", 200, Duration::from_millis(1));
        m.request("made/up", 599, Duration::from_millis(1));
        m.request("-", 401, Duration::from_millis(1));
        let text = m.render();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("marquee_mcp_requests_total"))
            .collect();
        assert_eq!(
            lines,
            [
                "marquee_mcp_requests_total{method=\"-\",status=\"401\"} 1",
                "marquee_mcp_requests_total{method=\"other\",status=\"599\"} 1",
                "marquee_mcp_requests_total{method=\"tools/call\",status=\"200\"} 2",
                "marquee_mcp_requests_total{method=\"tools/call\",status=\"418\"} 1",
            ]
        );
    }

    #[test]
    fn unknown_methods_fold_into_one_label() {
        let m = Metrics::default();
        for i in 0..1000 {
            m.request(&format!("made/up/{i}"), 404, Duration::from_millis(1));
        }
        m.request("evil\"} 1\nfake_metric{x=\"", 404, Duration::from_millis(1));
        m.request("tools/call", 200, Duration::from_millis(1));
        let text = m.render();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("marquee_mcp_requests_total"))
            .collect();
        assert_eq!(
            lines,
            [
                "marquee_mcp_requests_total{method=\"other\",status=\"404\"} 1001",
                "marquee_mcp_requests_total{method=\"tools/call\",status=\"200\"} 1",
            ]
        );
        assert!(!text.contains("fake_metric"), "{text}");
    }
}
