//! How fast a Torznab search answer is read: a 1,000-item feed in Jackett's shapes, parsed
//! again and again for about two seconds; prints MB/s (`cargo run --release --example
//! parse_speed -p adapters-indexers`).

use std::time::{Duration, Instant};

fn feed(items: usize) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\" xmlns:torznab=\"http://torznab.com/schemas/2015/feed\">\n<channel>\n<title>Feed</title>\n",
    );
    for n in 0..items {
        out.push_str(&format!(
            "<item>\n<title>Some.Show.S01E{e:02}.1080p.WEB-DL.DDP5.1.H.264-GRP{n}</title>\n<guid>https://tracker.example/details/{n}</guid>\n<jackettindexer id=\"t\">Tracker</jackettindexer>\n<type>private</type>\n<comments>https://tracker.example/details/{n}</comments>\n<pubDate>Sat, 05 Dec 2026 10:00:00 +0000</pubDate>\n<size>{size}</size>\n<description>Episode {n} &amp; more, with &lt;tags&gt;</description>\n<link>https://jackett.example/dl/t/?jackett_apikey=KEY&amp;path=abc{n}&amp;file=x</link>\n<category>5000</category>\n<category>5040</category>\n<enclosure url=\"https://jackett.example/dl/t/?jackett_apikey=KEY&amp;path=abc{n}\" length=\"{size}\" type=\"application/x-bittorrent\" />\n<torznab:attr name=\"category\" value=\"5040\" />\n<torznab:attr name=\"seeders\" value=\"{s}\" />\n<torznab:attr name=\"peers\" value=\"{p}\" />\n<torznab:attr name=\"infohash\" value=\"{h:040x}\" />\n<torznab:attr name=\"downloadvolumefactor\" value=\"1\" />\n<torznab:attr name=\"uploadvolumefactor\" value=\"1\" />\n</item>\n",
            e = n % 24 + 1,
            size = 1_000_000_000 + n,
            s = n % 500,
            p = n % 500 + 7,
            h = n as u128 * 7919,
        ));
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

fn main() {
    let body = feed(1000);
    let mut rounds = 0u32;
    let started = Instant::now();
    let mut rows = 0;
    while started.elapsed() < Duration::from_secs(2) {
        rows = adapters_indexers::parse_feed(body.as_bytes()).map_or(0, |r| r.len());
        rounds += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    let mb = body.len() as f64 * f64::from(rounds) / 1e6;
    println!(
        "{} bytes, {rows} items: {rounds} parses in {secs:.2} s, {:.1} MB/s, {:.2} ms a parse",
        body.len(),
        mb / secs,
        secs * 1000.0 / f64::from(rounds)
    );
}
