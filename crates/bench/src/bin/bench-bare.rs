//! `bench-bare`: the reference server of `scripts/bench.sh`. `POST /mcp` reads and parses the
//! JSON-RPC body, then answers with a precomputed response for its method, only the id
//! substituted. Same HTTP stack as Marquee: axum on hyper, tokio multi-thread runtime, and the
//! same allocator (mimalloc), so the ratio measures Marquee's own work.

use std::{net::SocketAddr, sync::Arc};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::State,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::post,
};
use bench::Answers;
use clap::Parser;
use serde_json::Value;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "bench-bare",
    about = "Bare axum server answering precomputed MCP responses (benchmark reference)"
)]
struct Cli {
    /// Address to listen on; port 0 picks a free one (the bound address is printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// `METHOD=FILE`: a saved JSON-RPC response to answer METHOD with; repeatable.
    #[arg(long = "answer", value_name = "METHOD=FILE", required = true)]
    answers: Vec<String>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let mut answers = Answers::default();
    for spec in &cli.answers {
        if let Err(e) = answers.load(spec) {
            eprintln!("bench-bare: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    // The same runtime Marquee builds: multi-thread, one worker per core.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench-bare: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(cli.listen, Arc::new(answers))) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-bare: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(listen: SocketAddr, answers: Arc<Answers>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    // scripts/bench.sh reads this line to learn the port.
    println!("listening on http://{}/mcp", listener.local_addr()?);
    let app = Router::new().route("/mcp", post(mcp)).with_state(answers);
    axum::serve(listener, app).await
}

async fn mcp(State(answers): State<Arc<Answers>>, body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => return (StatusCode::BAD_REQUEST, "the body is not valid JSON\n").into_response(),
    };
    match answers.answer(&request) {
        Some(bytes) => {
            let mut r = Response::new(Body::from(bytes));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        None => (
            StatusCode::NOT_FOUND,
            "no precomputed answer for this method\n",
        )
            .into_response(),
    }
}
