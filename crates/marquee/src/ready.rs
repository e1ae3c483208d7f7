//! `marquee ready`: succeeds when the server this configuration describes answers `GET /readyz`
//! with 200; the container image's health check (the image has no curl or shell).

use std::{
    io::{Read, Write},
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs},
    time::Duration,
};

use anyhow::{Context, bail};

use crate::config::Config;

/// The address to ask: the listening address, an unspecified one as loopback.
fn target(listen: &str) -> anyhow::Result<SocketAddr> {
    let mut addr = listen
        .to_socket_addrs()
        .with_context(|| format!("listen = \"{listen}\" is not an address"))?
        .next()
        .with_context(|| format!("listen = \"{listen}\" names no address"))?;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        });
    }
    Ok(addr)
}

/// The Host to send: a loopback name the server allows, else the first allowed host.
fn host(config: &Config) -> String {
    ["127.0.0.1", "localhost", "[::1]"]
        .into_iter()
        .find(|h| config.allowed_hosts.iter().any(|a| a == h))
        .map(str::to_owned)
        .or_else(|| config.allowed_hosts.first().cloned())
        .unwrap_or_else(|| "127.0.0.1".into())
}

pub fn ready(config: &Config) -> anyhow::Result<()> {
    let addr = target(&config.listen)?;
    let timeout = Duration::from_secs(5);
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("nothing answers on {addr}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET /readyz HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        host(config)
    )?;
    let mut head = [0u8; 64];
    let n = stream.read(&mut head)?;
    let line = String::from_utf8_lossy(&head[..n]);
    let status = line.split_whitespace().nth(1).unwrap_or("");
    if status != "200" {
        bail!("{addr}/readyz answered {status:?}, not 200");
    }
    println!("ready");
    Ok(())
}
