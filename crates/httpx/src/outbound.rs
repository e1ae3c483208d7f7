//! The one rule for outbound URLs that a caller or an upstream answer supplies (never the
//! instances the owner configured, which [`crate::client`] serves): only http(s), no userinfo,
//! and no address on this machine or its networks (loopback, private, link-local, metadata,
//! unspecified, multicast, broadcast), unless the owner allows the host by name
//! (`[outbound] allowed_hosts`). The check runs at every hop, redirects included, on the
//! addresses the name resolved to, inside the client's own resolver: the connection goes to
//! the address that was checked, so a second DNS answer cannot swap it.

use std::{
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    sync::Arc,
    time::Duration,
};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

use crate::{Error, Timeouts, builder, redact};

/// The most redirects one fetch follows.
const MAX_REDIRECTS: usize = 5;

/// The one sentence for every URL the rule refuses, whatever the address or port did.
pub const REFUSAL: &str = "that URL may not be fetched: it must be a public http(s) address without credentials (addresses on this machine or its local networks are refused unless the owner allows the host in [outbound] allowed_hosts)";

/// Why an address may not be reached from a caller's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Loopback,
    /// RFC 1918, shared address space (RFC 6598) and unique local (fc00::/7).
    Private,
    LinkLocal,
    /// Cloud metadata services: 169.254.169.254, fd00:ec2::254.
    Metadata,
    Unspecified,
    Multicast,
    Broadcast,
    /// Reserved for future use (240.0.0.0/4) or for protocol assignments (192.0.0.0/24).
    Reserved,
}

/// The class that forbids `ip`, or `None` for a public address. IPv4 addresses written as
/// IPv6 (mapped, NAT64, 6to4) are judged as the IPv4 address they carry.
pub fn forbidden(ip: IpAddr) -> Option<Class> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<Class> {
    let [a, b, c, _] = ip.octets();
    Some(if ip == Ipv4Addr::new(169, 254, 169, 254) {
        Class::Metadata
    } else if ip.is_loopback() {
        Class::Loopback
    } else if ip.is_unspecified() || a == 0 {
        Class::Unspecified
    } else if ip.is_broadcast() {
        Class::Broadcast
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Class::Private
    } else if ip.is_link_local() {
        Class::LinkLocal
    } else if ip.is_multicast() {
        Class::Multicast
    } else if a >= 240 || (a == 192 && b == 0 && c == 0) {
        Class::Reserved
    } else {
        return None;
    })
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<Class> {
    if let Some(v4) = embedded_v4(ip) {
        return forbidden_v4(v4);
    }
    let first = ip.segments()[0];
    Some(
        if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
            Class::Metadata
        } else if ip.is_loopback() {
            Class::Loopback
        } else if ip.is_unspecified() {
            Class::Unspecified
        } else if ip.is_multicast() {
            Class::Multicast
        } else if first & 0xfe00 == 0xfc00 {
            Class::Private
        } else if first & 0xffc0 == 0xfe80 || first & 0xffc0 == 0xfec0 {
            Class::LinkLocal
        } else {
            return None;
        },
    )
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002:AABB:CCDD::/48`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        Some(v4)
    } else if (s[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_loopback() && !ip.is_unspecified())
        || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
    {
        Some(tail())
    } else if s[0] == 0x2002 {
        Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ))
    } else {
        None
    }
}

/// A URL the rule refused (see [`REFUSAL`]); `why` is for the log, never for the caller.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{REFUSAL}")]
pub struct Refused {
    pub why: String,
}

fn refused(why: impl Into<String>) -> Refused {
    Refused { why: why.into() }
}

/// The rule, with the hosts the owner allows whatever their addresses.
#[derive(Debug, Clone, Default)]
pub struct Outbound {
    allowed_hosts: Arc<Vec<String>>,
}

impl Outbound {
    /// `allowed_hosts`: host names or IP addresses, compared case-insensitively and whole.
    pub fn new(allowed_hosts: &[String]) -> Outbound {
        let hosts = allowed_hosts
            .iter()
            .map(|h| normal_host(h.trim()))
            .filter(|h| !h.is_empty())
            .collect();
        Outbound {
            allowed_hosts: Arc::new(hosts),
        }
    }

    fn allows(&self, host: &str) -> bool {
        let host = normal_host(host);
        self.allowed_hosts.contains(&host)
    }

    /// What can be decided from the URL alone: its scheme, its userinfo and, for an address
    /// written in it, the address. A host name is judged on what it resolves to, by the
    /// fetching client's resolver.
    pub fn check_url(&self, url: &Url) -> Result<(), Refused> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refused(format!("scheme {}", url.scheme())));
        }
        let host = url.host().ok_or_else(|| refused("no host"))?;
        let name = match &host {
            url::Host::Domain(d) => (*d).to_string(),
            url::Host::Ipv4(ip) => ip.to_string(),
            url::Host::Ipv6(ip) => ip.to_string(),
        };
        if self.allows(&name) {
            return Ok(());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refused("userinfo"));
        }
        let ip = match host {
            url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            url::Host::Domain(_) => None,
        };
        match ip.and_then(forbidden) {
            Some(class) => Err(refused(format!("{name} is {class:?}"))),
            None => Ok(()),
        }
    }

    /// A client for caller-supplied URLs: it resolves names through this rule, follows no
    /// redirect by itself ([`Outbound::fetch`] checks each hop) and uses no proxy (a proxy
    /// would resolve the name where the rule cannot see it).
    pub fn client(&self, timeouts: Timeouts) -> Result<reqwest::Client, Error> {
        builder(timeouts)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(Guard(self.clone())))
            .build()
            .map_err(|e| Error::Unreachable {
                detail: redact(&e.to_string()),
            })
    }

    /// GETs `raw` under the rule, following at most five redirects (each checked), reading at
    /// most `max_bytes`. A redirect to a `magnet:` link ends the fetch with the link.
    pub async fn fetch(
        &self,
        raw: &str,
        max_bytes: usize,
        timeouts: Timeouts,
    ) -> Result<Fetched, FetchError> {
        let client = self.client(timeouts).map_err(FetchError::Failed)?;
        let mut url = Url::parse(raw).map_err(|_| FetchError::Refused(refused("not a URL")))?;
        for _ in 0..=MAX_REDIRECTS {
            self.check_url(&url).map_err(FetchError::Refused)?;
            let answer = client
                .get(url.clone())
                .send()
                .await
                .map_err(|e| classify(&e))?;
            let status = answer.status();
            if status.is_redirection() {
                let location = answer
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| FetchError::Failed(Error::from_status(status.as_u16(), "")))?;
                if location.starts_with("magnet:") {
                    return Ok(Fetched::Magnet(location.to_string()));
                }
                url = url.join(location).map_err(|_| {
                    FetchError::Failed(Error::Decode {
                        detail: "a redirect to no URL".into(),
                    })
                })?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Failed(Error::from_status(status.as_u16(), "")));
            }
            return read_capped(answer, max_bytes).await.map(Fetched::Body);
        }
        Err(FetchError::Failed(Error::Decode {
            detail: format!("more than {MAX_REDIRECTS} redirects"),
        }))
    }
}

impl Outbound {
    /// A URL another program will contact on a caller's word (a tracker or web seed that a
    /// caller's torrent or magnet names), judged by the same rule: no userinfo, and no inward
    /// address written in it or resolved from its name, unless the owner allows the host. Any
    /// scheme (`udp://` trackers too). The other program resolves the name again itself, so
    /// this cannot hold against DNS rebinding; what can be refused before it is told, is. A
    /// URL without a host, or a name that does not resolve, reaches nothing and passes.
    pub async fn check_contact(&self, raw: &str) -> Result<(), Refused> {
        let Ok(url) = Url::parse(raw) else {
            return Ok(());
        };
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Ok(()),
        };
        if self.allows(&host) {
            return Ok(());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refused("userinfo in a contact URL"));
        }
        let bare = normal_host(&host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return match forbidden(ip) {
                Some(class) => Err(refused(format!("contact {ip} is {class:?}"))),
                None => Ok(()),
            };
        }
        let resolving = tokio::net::lookup_host((bare.as_str(), url.port().unwrap_or(0)));
        let Ok(Ok(addrs)) = tokio::time::timeout(Duration::from_secs(5), resolving).await else {
            return Ok(());
        };
        for a in addrs {
            if let Some(class) = forbidden(a.ip()) {
                return Err(refused(format!(
                    "contact {bare} resolves to {}, {class:?}",
                    a.ip()
                )));
            }
        }
        Ok(())
    }
}

/// What a fetch brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    Body(Vec<u8>),
    /// The URL redirected to this magnet link.
    Magnet(String),
}

/// Why a fetch brought nothing back.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The rule refused a hop: nothing was sent to it.
    #[error(transparent)]
    Refused(Refused),
    /// The body was larger than allowed.
    #[error("the answer is larger than {max} bytes")]
    TooLarge { max: usize },
    #[error(transparent)]
    Failed(Error),
}

async fn read_capped(mut answer: reqwest::Response, max: usize) -> Result<Vec<u8>, FetchError> {
    if answer.content_length().is_some_and(|n| n > max as u64) {
        return Err(FetchError::TooLarge { max });
    }
    let mut body = Vec::new();
    while let Some(chunk) = answer.chunk().await.map_err(|e| classify(&e))? {
        if body.len() + chunk.len() > max {
            return Err(FetchError::TooLarge { max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A refusal from the resolver travels inside reqwest's error; anything else is a failure.
fn classify(e: &reqwest::Error) -> FetchError {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<Refused>() {
            return FetchError::Refused(r.clone());
        }
        cur = err.source();
    }
    FetchError::Failed(Error::from_reqwest(e))
}

/// The resolver of [`Outbound::client`]: resolves, then refuses the name when any of its
/// addresses is forbidden (a name that also points inward is not half trusted).
struct Guard(Outbound);

impl Resolve for Guard {
    fn resolve(&self, name: Name) -> Resolving {
        let rule = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let resolving = tokio::net::lookup_host((host.as_str(), 0));
            let addrs: Vec<SocketAddr> = tokio::time::timeout(Duration::from_secs(5), resolving)
                .await
                .map_err(|_| refused(format!("{host} did not resolve in time")))??
                .collect();
            if !rule.allows(&host)
                && let Some((ip, class)) = addrs
                    .iter()
                    .find_map(|a| forbidden(a.ip()).map(|c| (a.ip(), c)))
            {
                return Err(refused(format!("{host} resolves to {ip}, {class:?}")).into());
            }
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// A host as the allow-list compares it: lower case, without IPv6 brackets or a final dot.
fn normal_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ip: &str) -> Option<Class> {
        forbidden(ip.parse().unwrap())
    }

    #[test]
    fn every_inward_address_class_is_forbidden_and_public_ones_are_not() {
        for (ip, want) in [
            ("127.0.0.1", Class::Loopback),
            ("127.3.2.1", Class::Loopback),
            ("::1", Class::Loopback),
            ("10.0.0.1", Class::Private),
            ("172.16.0.1", Class::Private),
            ("172.31.255.255", Class::Private),
            ("192.168.1.10", Class::Private),
            ("100.64.0.1", Class::Private),
            ("fd12:3456::1", Class::Private),
            ("fc00::1", Class::Private),
            ("169.254.1.1", Class::LinkLocal),
            ("fe80::1", Class::LinkLocal),
            ("169.254.169.254", Class::Metadata),
            ("fd00:ec2::254", Class::Metadata),
            ("0.0.0.0", Class::Unspecified),
            ("0.1.2.3", Class::Unspecified),
            ("::", Class::Unspecified),
            ("224.0.0.1", Class::Multicast),
            ("239.255.255.250", Class::Multicast),
            ("ff02::1", Class::Multicast),
            ("255.255.255.255", Class::Broadcast),
            ("240.0.0.1", Class::Reserved),
            ("192.0.0.8", Class::Reserved),
            // IPv4 written as IPv6 is judged as the IPv4 address it carries.
            ("::ffff:127.0.0.1", Class::Loopback),
            ("::ffff:169.254.169.254", Class::Metadata),
            ("::ffff:10.1.2.3", Class::Private),
            ("::10.1.2.3", Class::Private),
            ("64:ff9b::a9fe:a9fe", Class::Metadata),
            ("2002:c0a8:0101::1", Class::Private),
        ] {
            assert_eq!(class(ip), Some(want), "{ip}");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "169.255.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:0808:0808::1",
        ] {
            assert_eq!(class(ip), None, "{ip}");
        }
    }

    #[test]
    fn urls_are_refused_for_their_scheme_userinfo_and_written_addresses() {
        let rule = Outbound::default();
        let check = |u: &str| rule.check_url(&Url::parse(u).unwrap());
        for bad in [
            "ftp://example.org/x.torrent",
            "file:///etc/passwd",
            "http://user:pw@example.org/x.torrent",
            "http://user@example.org/x.torrent",
            "http://127.0.0.1:9091/transmission/rpc",
            "http://169.254.169.254/latest/meta-data/",
            "http://[fd00:ec2::254]/",
            "http://[::ffff:127.0.0.1]/",
            "http://0x7f000001/",
            "http://2130706433/",
            "http://10.0.0.1/",
            "http://[::]/",
        ] {
            let e = check(bad).unwrap_err();
            assert_eq!(e.to_string(), REFUSAL, "{bad}");
        }
        for good in ["https://example.org/x.torrent", "http://8.8.8.8:8080/x"] {
            assert!(check(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn an_allowed_host_passes_whatever_its_address() {
        let rule = Outbound::new(&["127.0.0.1".into(), "Tracker.LAN.".into(), "[::1]".into()]);
        let check = |u: &str| rule.check_url(&Url::parse(u).unwrap());
        assert!(check("http://127.0.0.1:8000/x.torrent").is_ok());
        assert!(check("http://tracker.lan/x.torrent").is_ok());
        assert!(check("http://[::1]:8000/x.torrent").is_ok());
        assert!(check("http://127.0.0.2/x.torrent").is_err());
    }

    #[tokio::test]
    async fn a_contact_url_of_any_scheme_is_judged_by_its_written_or_resolved_address() {
        let rule = Outbound::default();
        for bad in [
            "udp://127.0.0.1:6969/announce",
            "udp://10.0.0.1:6969/announce",
            "http://169.254.169.254/latest/meta-data/",
            "http://[fd00:ec2::254]/",
            "wss://[::1]:8443/x",
            "http://user:pw@tracker.example/announce",
            // Numeric forms the other program's resolver reads as loopback; resolved here
            // without any query leaving the machine.
            "udp://2130706433:80/announce",
            "http://localhost:9091/transmission/rpc",
        ] {
            let e = rule.check_contact(bad).await.unwrap_err();
            assert_eq!(e.to_string(), REFUSAL, "{bad}");
        }
        for fine in ["udp://8.8.8.8:6969/announce", "not a url", "magnet:?xt=x"] {
            assert!(rule.check_contact(fine).await.is_ok(), "{fine}");
        }
        let allowed = Outbound::new(&["127.0.0.1".into()]);
        assert!(
            allowed
                .check_contact("udp://127.0.0.1:6969/a")
                .await
                .is_ok()
        );
    }
}
