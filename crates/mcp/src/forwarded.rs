//! Who a request comes from: the TCP peer, or, when the peer is one of the configured
//! `trusted_proxies`, the right-most address in `X-Forwarded-For` that is not a trusted proxy
//! itself (the left part of the header is whatever the client wrote, so only the hops a
//! trusted proxy appended count). Every per-address limit keys on this address.

use std::{
    fmt,
    net::{IpAddr, SocketAddr},
    str::FromStr,
};

use axum::{extract::ConnectInfo, http::HeaderMap, http::request::Parts};

/// The `X-Forwarded-For` header, named once.
const X_FORWARDED_FOR: &str = "x-forwarded-for";

/// An address or a network in CIDR form (`192.168.1.0/24`, `fd00::/8`, `10.0.0.2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.base, canonical(ip)) {
            (IpAddr::V4(base), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(base) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(base), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(base) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(s: &str) -> Result<Network, String> {
        let bad = || format!("\"{s}\" is not an IP address or a network such as 10.0.0.0/8");
        let (addr, prefix) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let base = canonical(addr.parse::<IpAddr>().map_err(|_| bad())?);
        let max = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= max).ok_or_else(bad)?,
            None => max,
        };
        Ok(Network { base, prefix })
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.base, self.prefix)
    }
}

/// The proxies whose `X-Forwarded-For` is believed. Empty by default: the header is ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Network>);

impl TrustedProxies {
    /// Parses each entry; the error names the first that is not an address or a network.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<TrustedProxies, String> {
        entries
            .iter()
            .map(|e| e.as_ref().parse())
            .collect::<Result<Vec<Network>, String>>()
            .map(TrustedProxies)
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Where a request from `peer` with these headers comes from.
    pub fn source(&self, peer: IpAddr, headers: &HeaderMap) -> Source {
        Source {
            client: self.client(peer, headers),
            via_proxy: self.contains(peer),
        }
    }

    /// The client's address of a request from `peer` with these headers.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.contains(peer) {
            return peer;
        }
        // Right to left over every X-Forwarded-For line, in order: the first hop that is not
        // a trusted proxy is the client. A hop that cannot be read ends the walk at the last
        // trusted hop, which is the one that wrote it.
        let mut client = peer;
        let lines: Vec<&str> = headers
            .get_all(X_FORWARDED_FOR)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        for hop in lines.iter().rev().flat_map(|l| l.rsplit(',')) {
            let Some(ip) = hop_address(hop) else {
                return client;
            };
            if !self.contains(ip) {
                return ip;
            }
            client = ip;
        }
        client
    }
}

/// Where a request comes from, as the per-address limits and key-less local access see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The client's address: the peer's, or the one a trusted proxy forwarded.
    pub client: IpAddr,
    /// Whether the peer is a trusted proxy.
    pub via_proxy: bool,
}

impl Source {
    /// A request straight from `ip`, through no proxy.
    pub fn direct(ip: IpAddr) -> Source {
        Source {
            client: canonical(ip),
            via_proxy: false,
        }
    }

    /// Whether the request comes from a program on this machine: a loopback peer that is not a
    /// trusted proxy (a proxy on this machine forwards others' requests, header or not).
    pub fn is_local(&self) -> bool {
        !self.via_proxy && self.client.is_loopback()
    }
}

/// Where a request comes from, when the listener recorded its peer; `None` when it recorded
/// none (an in-process router without a listener).
pub fn source_of(trusted: &TrustedProxies, parts: &Parts) -> Option<Source> {
    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>()?.0;
    Some(trusted.source(peer.ip(), &parts.headers))
}

/// One `X-Forwarded-For` entry: an address, perhaps with a port (`1.2.3.4:5`, `[::1]:5`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    hop.parse::<SocketAddr>().ok().map(|s| canonical(s.ip()))
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn xff(lines: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for l in lines {
            h.append(X_FORWARDED_FOR, HeaderValue::from_str(l).unwrap());
        }
        h
    }

    #[test]
    fn networks_parse_and_match() {
        let n: Network = "192.168.1.0/24".parse().unwrap();
        assert!(n.contains(ip("192.168.1.77")));
        assert!(!n.contains(ip("192.168.2.1")));
        assert!(n.contains(ip("::ffff:192.168.1.3")), "IPv4-mapped");
        let one: Network = "10.0.0.2".parse().unwrap();
        assert!(one.contains(ip("10.0.0.2")) && !one.contains(ip("10.0.0.3")));
        let v6: Network = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        let all: Network = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.9")));
        for bad in ["10.0.0.0/33", "proxy.lan", "10.0.0.0/x", ""] {
            assert!(bad.parse::<Network>().is_err(), "{bad}");
        }
        assert_eq!(
            TrustedProxies::parse(&["10.0.0.1", "nope"]).unwrap_err(),
            "\"nope\" is not an IP address or a network such as 10.0.0.0/8"
        );
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_peer() {
        let none = TrustedProxies::default();
        let h = xff(&["203.0.113.9"]);
        assert_eq!(none.client(ip("10.0.0.2"), &h), ip("10.0.0.2"));
        let trusted = TrustedProxies::parse(&["10.0.0.2"]).unwrap();
        assert_eq!(trusted.client(ip("10.0.0.2"), &h), ip("203.0.113.9"));
        assert_eq!(
            trusted.client(ip("198.51.100.4"), &h),
            ip("198.51.100.4"),
            "another peer's header is ignored"
        );
        assert_eq!(
            trusted.client(ip("10.0.0.2"), &HeaderMap::new()),
            ip("10.0.0.2"),
            "no header: the proxy itself"
        );
    }

    #[test]
    fn a_proxy_on_this_machine_is_never_local() {
        let trusted = TrustedProxies::parse(&["127.0.0.1"]).unwrap();
        let proxied = trusted.source(ip("127.0.0.1"), &HeaderMap::new());
        assert_eq!(proxied.client, ip("127.0.0.1"));
        assert!(!proxied.is_local());
        assert!(Source::direct(ip("127.0.0.1")).is_local());
        assert!(Source::direct(ip("::ffff:127.0.0.1")).is_local());
        assert!(!Source::direct(ip("192.0.2.7")).is_local());
    }

    #[test]
    fn the_right_most_untrusted_hop_is_the_client() {
        let trusted = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
        let peer = ip("10.0.0.2");
        // The client wrote a fake first entry; the proxies appended the real one.
        let h = xff(&["1.1.1.1, 203.0.113.9, 10.0.0.7"]);
        assert_eq!(trusted.client(peer, &h), ip("203.0.113.9"));
        let h = xff(&["1.1.1.1", "203.0.113.9:5123, 10.0.0.7"]);
        assert_eq!(trusted.client(peer, &h), ip("203.0.113.9"), "two lines");
        let h = xff(&["[2001:db8::5]:443"]);
        assert_eq!(trusted.client(peer, &h), ip("2001:db8::5"));
        let h = xff(&["203.0.113.9, garbage, 10.0.0.7"]);
        assert_eq!(
            trusted.client(peer, &h),
            ip("10.0.0.7"),
            "an unreadable hop stops at the trusted hop that wrote it"
        );
        let h = xff(&["10.0.0.9, 10.0.0.7"]);
        assert_eq!(trusted.client(peer, &h), ip("10.0.0.9"), "all trusted");
    }
}
