//! A small W3C WebDriver client over reqwest, driving Debian's chromedriver and headless
//! Chromium on a phone-sized window; screenshots are kept under target/test-artefacts/.

use std::{
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use base64::Engine;
use httpx::reqwest;
use serde_json::{Value, json};

/// The key W3C WebDriver names an element reference with.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT/session/ID`.
    session: String,
    driver: Child,
    artefacts: PathBuf,
}

impl Browser {
    /// Starts chromedriver on a free port and opens a headless Chromium session.
    pub async fn start(artefacts: &str) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group, so dropping the browser ends Chromium with it.
            .process_group(0)
            .spawn()
            .expect("chromedriver is installed (apt-get install chromium-driver)");
        let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = http.get(format!("{base}/status")).send().await;
            if let Ok(r) = ready
                && let Ok(v) = r.json::<Value>().await
                && v["value"]["ready"] == true
            {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=390,844"]
            },
            "goog:loggingPrefs": {"browser": "ALL"}
        }}});
        let r: Value = http
            .post(format!("{base}/session"))
            .json(&caps)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {r}"))
            .to_string();
        let artefacts = PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()),
        )
        .join("../../target/test-artefacts")
        .join(artefacts);
        std::fs::create_dir_all(&artefacts).unwrap();
        Browser {
            http,
            session: format!("{base}/session/{id}"),
            driver,
            artefacts,
        }
    }

    /// chromedriver's pid, which is also the id of the process group Chromium runs in.
    pub fn group(&self) -> u32 {
        self.driver.id()
    }

    /// One WebDriver command's whole answer (`value` holds an `error` when it failed).
    async fn answer(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.session);
        let req = match method {
            "GET" => self.http.get(url),
            "DELETE" => self.http.delete(url),
            _ => self.http.post(url).json(&body.unwrap_or_else(|| json!({}))),
        };
        req.send().await.unwrap().json().await.unwrap()
    }

    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let r = self.answer(method, path, body).await;
        assert!(
            r["value"].get("error").is_none(),
            "WebDriver {method} {path}: {r}"
        );
        r["value"].clone()
    }

    /// The text of the first element matching `css`, or `None` while there is none (a page
    /// being replaced).
    async fn try_text(&self, css: &str) -> Option<String> {
        let found = self
            .answer(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        let id = found["value"][ELEMENT].as_str()?.to_string();
        let text = self
            .answer("GET", &format!("/element/{id}/text"), None)
            .await;
        text["value"].as_str().map(str::to_string)
    }

    /// The text of `css` once it reads `want`, or what it last read after 20 seconds: a click
    /// that submits a form returns before the answer page is in place.
    pub async fn wait_text(&self, css: &str, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut last = String::new();
        while Instant::now() < deadline {
            if let Some(t) = self.try_text(css).await {
                if t == want {
                    return t;
                }
                last = t;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        last
    }

    /// The page's address once it contains `part`, or what it last was after 20 seconds: a
    /// click that submits a form returns before the redirect it answers with is followed.
    pub async fn wait_url(&self, part: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut last = self.url().await;
        while !last.contains(part) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
            last = self.url().await;
        }
        last
    }

    pub async fn goto(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })))
            .await;
    }

    pub async fn url(&self) -> String {
        self.command("GET", "/url", None)
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    async fn find(&self, css: &str) -> String {
        let v = self
            .command(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        v[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.command(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    pub async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.command("POST", &format!("/element/{id}/click"), None)
            .await;
    }

    /// The visible text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let id = self.find(css).await;
        self.command("GET", &format!("/element/{id}/text"), None)
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// A cookie's value, HttpOnly ones included (WebDriver sees them; page scripts do not).
    pub async fn cookie(&self, name: &str) -> Value {
        self.command("GET", &format!("/cookie/{name}"), None).await
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the current frame and
    /// returns what it returns.
    pub async fn execute(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .await
    }

    /// Switches into the `index`th frame of the current page (`None`: back to the top).
    pub async fn frame(&self, index: Option<u32>) {
        self.command("POST", "/frame", Some(json!({ "id": index })))
            .await;
    }

    /// The browser console's entries since the last read (`level`, `message`).
    pub async fn console(&self) -> Vec<Value> {
        self.command("POST", "/se/log", Some(json!({ "type": "browser" })))
            .await
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Saves the page as `name`.png among the artefacts.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let b64 = self.command("GET", "/screenshot", None).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap())
            .unwrap();
        let path = self.artefacts.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Closes Chromium; chromedriver and anything left of Chromium stop on drop.
    pub async fn quit(&self) {
        let _ = self.http.delete(&self.session).send().await;
    }
}

/// Ends chromedriver's whole process group (chromedriver, Chromium and its helpers), also when
/// a test panics before `quit`: a group id is the leader's pid, and the group was made for
/// chromedriver alone at spawn.
/// The pids of the live processes in process group `group` (from /proc; zombies excluded).
pub fn processes_in_group(group: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command name in parentheses: state, ppid, pgrp.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2].parse() == Ok(group) {
            out.push(pid);
        }
    }
    out
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = format!("-{}", self.driver.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
