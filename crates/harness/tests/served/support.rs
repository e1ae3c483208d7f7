//! A real `marquee serve` process on a data folder of its own: started from the binary of this
//! build, SIGKILLed and started again on the same folder and port; called over HTTP; its
//! database read directly (SQL) for the checks.

use std::{
    fs::OpenOptions,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use httpx::reqwest;
use serde_json::{Value, json};
use sqlx::{Connection, SqliteConnection, sqlite::SqliteConnectOptions};

/// The `marquee` binary of this build: `MARQUEE_BIN`, else the one beside this test binary's
/// `deps` folder (`target/<profile>/marquee`), which `scripts/harness.sh` builds first.
pub fn binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("MARQUEE_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("marquee"))
        .unwrap();
    assert!(
        bin.is_file(),
        "no marquee binary at {} (scripts/harness.sh builds it first; or `cargo build -p marquee`, or set MARQUEE_BIN)",
        bin.display()
    );
    bin
}

/// How many kill rounds each crash loop runs: `HARNESS_CRASH_ROUNDS`, else 5 (the short run;
/// `scripts/harness.sh --long` sets 50).
pub fn rounds() -> usize {
    std::env::var("HARNESS_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// A loop's seed (`HARNESS_SEED`, else one fixed per loop); printed at the start, and again
/// by [`SeedNote`] when the loop fails.
pub fn seed(name: &str) -> u64 {
    let seed = harness::seed(name);
    println!("harness: {name} seed {seed} ({} rounds)", rounds());
    seed
}

/// Prints the seed (and the round) when the test panics while it lives.
pub struct SeedNote {
    pub name: &'static str,
    pub seed: u64,
    pub round: usize,
}

impl Drop for SeedNote {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "harness: {} failed in round {} with seed {} (HARNESS_SEED={} replays the kill schedule; the timing is the machine's)",
                self.name, self.round, self.seed, self.seed
            );
        }
    }
}

pub fn client() -> reqwest::Client {
    httpx::builder(httpx::Timeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_secs(90),
    })
    .build()
    .unwrap()
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `marquee serve` on `data`, configured by `config`; SIGKILLed on drop.
pub struct Served {
    child: Option<Child>,
    pub base: String,
    pub config: PathBuf,
    pub data: PathBuf,
    log: PathBuf,
    /// The owner's key, printed once by the first start.
    pub owner: String,
    /// How many times it was started.
    pub starts: usize,
    http: reqwest::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Served {
    /// Writes `dir/marquee.toml` (`listen` on a free port, then `config`) and starts the first
    /// run on `data`, reading the owner key it prints once.
    pub async fn first(dir: &Path, data: &Path, config: &str) -> Served {
        let port = free_port();
        let path = dir.join("marquee.toml");
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(&path, format!("listen = \"127.0.0.1:{port}\"\n{config}")).unwrap();
        let mut served = Served {
            child: None,
            base: format!("http://127.0.0.1:{port}"),
            config: path,
            data: data.to_path_buf(),
            log: dir.join("marquee.log"),
            owner: String::new(),
            starts: 0,
            http: client(),
        };
        served.start().await;
        served
    }

    /// Another `marquee serve` on the same data folder (a replica), listening on a port of its
    /// own with `dir/marquee.toml`; started and ready.
    pub async fn beside(&self, dir: &Path) -> Served {
        let port = free_port();
        let path = dir.join("marquee.toml");
        std::fs::create_dir_all(dir).unwrap();
        let shared = std::fs::read_to_string(&self.config).unwrap();
        let rest: Vec<&str> = shared
            .lines()
            .filter(|l| !l.starts_with("listen ="))
            .collect();
        let text = format!("listen = \"127.0.0.1:{port}\"\n{}\n", rest.join("\n"));
        std::fs::write(&path, text).unwrap();
        let mut served = Served {
            child: None,
            base: format!("http://127.0.0.1:{port}"),
            config: path,
            data: self.data.clone(),
            log: dir.join("marquee.log"),
            owner: self.owner.clone(),
            // Not a first start: the store has its owner, and no key is printed.
            starts: 1,
            http: client(),
        };
        served.start().await;
        served
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn spawn(&self, first: bool) -> Child {
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        Command::new(binary())
            .arg("serve")
            .arg("--config")
            .arg(&self.config)
            .arg("--data-dir")
            .arg(&self.data)
            // A harness is not a household: no per-person call rate.
            .env("MARQUEE_LIMITS__CALLS_PER_MINUTE", "0")
            .stdout(if first {
                Stdio::piped()
            } else {
                Stdio::from(log.try_clone().unwrap())
            })
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap()
    }

    /// Starts the server (again) and waits until `/readyz` answers 200.
    pub async fn start(&mut self) {
        assert!(self.child.is_none(), "already running");
        let first = self.starts == 0;
        let mut child = self.spawn(first);
        if let Some(stdout) = child.stdout.take() {
            // Read every line (the server must not write into a closed pipe); keep the key.
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if let Some(k) = line.trim().strip_prefix("mq_") {
                        let _ = tx.send(format!("mq_{k}"));
                    }
                }
            });
            self.owner = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the first start prints the owner key");
        }
        self.child = Some(child);
        self.starts += 1;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = self
                .http
                .get(format!("{}/readyz", self.base))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200);
            if ready {
                return;
            }
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                panic!(
                    "marquee exited during start ({status}); its log:\n{}",
                    self.log_tail()
                );
            }
            assert!(
                Instant::now() < deadline,
                "marquee did not become ready within 60 s; its log:\n{}",
                self.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILL (`Child::kill` on Unix), then reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The last lines of the server's log (stdout and stderr of every start).
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// The whole log, for the checks that no start panicked.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A CLI command on the same config and data folder (e.g. `people add`).
    pub fn cli(&self, args: &[&str]) -> String {
        let out = Command::new(binary())
            .args(args)
            .arg("--config")
            .arg(&self.config)
            .arg("--data-dir")
            .arg(&self.data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A person with a key on `grant`; the key.
    pub fn person_with_key(&self, name: &str, role: &str, grant: &str) -> String {
        self.cli(&["people", "add", name, "--role", role]);
        let created = self.cli(&["keys", "create", "--person", name, "--grant", grant]);
        created
            .split_whitespace()
            .find(|w| w.starts_with("mq_"))
            .expect("keys create prints the key")
            .to_string()
    }

    /// `tools/call` over `POST /mcp`: the JSON-RPC `result`, or why no answer came (the server
    /// was killed mid-call, say).
    pub async fn call(&self, key: &str, tool: &str, args: Value) -> Result<Value, String> {
        call_at(&self.http, &self.base, key, tool, args).await
    }

    /// A call that must answer (the server is up): its `result`.
    pub async fn must(&self, key: &str, tool: &str, args: Value) -> Value {
        self.call(key, tool, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    /// A connection to the server's database, for reads (WAL: the server keeps writing).
    pub async fn db(&self) -> SqliteConnection {
        let options = SqliteConnectOptions::new()
            .filename(self.data.join("marquee.db"))
            .busy_timeout(Duration::from_secs(20));
        SqliteConnection::connect_with(&options).await.unwrap()
    }
}

/// `tools/call` at `base` (usable from a spawned task): the `result`, or the failure.
pub async fn call_at(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    tool: &str,
    args: Value,
) -> Result<Value, String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    let resp = http
        .post(format!("{base}/mcp"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("no answer: {e}"))?;
    let status = resp.status();
    let text = resp
        .text()
        .await
        .map_err(|e| format!("answer cut off: {e}"))?;
    if status != 200 {
        return Err(format!("HTTP {status}: {text}"));
    }
    let v = answer(&text).ok_or_else(|| format!("no JSON-RPC answer in: {text}"))?;
    if v["result"].is_null() {
        return Err(format!("no result: {v}"));
    }
    Ok(v["result"].clone())
}

/// The JSON-RPC answer in a body: plain JSON, or the message with an `id` on an SSE stream.
fn answer(body: &str) -> Option<Value> {
    if let Ok(plain) = serde_json::from_str(body) {
        return Some(plain);
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("id").is_some())
}

/// A tool result's data, when it is not an error.
pub fn data(result: &Value) -> Option<&Value> {
    (result["isError"] == false).then_some(&result["structuredContent"]["data"])
}

/// A tool result's sentence.
pub fn summary(result: &Value) -> String {
    result["structuredContent"]["summary"]
        .as_str()
        .or_else(|| result["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// Where the server stands after a restart: nothing left executing or running, every write
/// finished as applied, failed or outcome_unknown, and the server's log without a panic.
pub async fn assert_nothing_left_open(served: &Served) {
    let mut db = served.db().await;
    let executing: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit WHERE status = 'executing'")
            .fetch_one(&mut db)
            .await
            .unwrap();
    assert_eq!(executing, 0, "audit entries left executing after a restart");
    let running: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM operations WHERE status IN ('running', 'in_flight', 'cancelling')",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(running, 0, "operations left under way after a restart");
    let integrity: String = sqlx::query_scalar("PRAGMA quick_check")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(integrity, "ok", "the database after a SIGKILL");
    assert!(
        !served.log().contains("panicked at"),
        "the server panicked: {}",
        served.log_tail()
    );
}

/// Picks a kill moment: uniform over 0 ..= the typical (median) duration of the calls the loop
/// watched finish (at least `floor`, a first guess doubled while no call finishes), so kills
/// land before, during and after the work.
pub struct KillClock {
    seen: Vec<Duration>,
    floor: Duration,
}

impl KillClock {
    pub fn new(floor: Duration) -> KillClock {
        KillClock {
            seen: Vec::new(),
            floor,
        }
    }

    pub fn saw(&mut self, took: Duration) {
        self.seen.push(took);
    }

    /// A round in which no call finished before the kill: until one does, aim twice as late.
    pub fn none_finished(&mut self) {
        if self.seen.is_empty() {
            self.floor = (self.floor * 2).min(Duration::from_secs(5));
        }
    }

    pub fn pick(&self, g: &mut harness::Gen) -> Duration {
        let mut seen = self.seen.clone();
        seen.sort();
        let typical = seen.get(seen.len() / 2).copied().unwrap_or(self.floor);
        let span = typical.max(self.floor).as_micros() as usize;
        Duration::from_micros(g.below(span + 1) as u64)
    }
}
