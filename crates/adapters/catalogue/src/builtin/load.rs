//! Loading the shipped film data: the gzipped CSV embedded in the binary, parsed into compact [`Films`].
//!
//! The data is `data/movies.csv.gz`, a copy of the CC0 Wikidata extract in `shared/data/movies.csv`
//! (17,470 films 1940-2014): imdb_id, title, year, certification_us, runtime_min, genres, released,
//! directors, cast_top5, languages, countries; list fields are ", "-separated.

use std::{borrow::Cow, io::Read};

use super::{
    films::{Films, NONE, Row},
    strs::Interner,
};
use crate::{Error, Result};

/// The embedded data set.
pub(crate) const MOVIES_CSV_GZ: &[u8] = include_bytes!("../../data/movies.csv.gz");

const HEADER: &str = "imdb_id,title,year,certification_us,runtime_min,genres,released,directors,cast_top5,languages,countries";

/// Films plus the genre names their genre indices point into.
pub(crate) struct Loaded {
    pub films: Films,
    pub genres: Vec<Box<str>>,
}

/// Decompresses a gzipped CSV.
pub(crate) fn decompress(gz: &[u8]) -> Result<String> {
    let mut text = String::with_capacity(gz.len() * 3);
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .map_err(|e| Error::invalid("builtin catalogue data", format!("cannot decompress: {e}")))?;
    Ok(text)
}

/// Parses CSV text in the data set's layout.
pub(crate) fn parse_csv(text: &str) -> Result<Loaded> {
    let invalid = |why: String| Error::invalid("builtin catalogue data", why);
    let mut rows = CsvRows { rest: text };
    let mut f: Vec<Cow<'_, str>> = Vec::with_capacity(11);
    if !rows.next_row(&mut f) || f.join(",") != HEADER {
        return Err(invalid("unexpected header".into()));
    }
    let mut strs = Interner::new();
    let mut films = Vec::with_capacity(text.len() / 160);
    let mut lists = Vec::with_capacity(text.len() / 12);
    let mut genres: Vec<Box<str>> = Vec::new();
    let mut line = 1;
    while rows.next_row(&mut f) {
        line += 1;
        if f.len() != 11 {
            return Err(invalid(format!("row {line} has {} fields", f.len())));
        }
        let year = f[2]
            .parse()
            .map_err(|_| invalid(format!("row {line} has year \"{}\"", f[2])))?;
        let start = lists.len();
        let mut ends = [0; 5];
        for (end, field) in ends[..4].iter_mut().zip([7, 8, 9, 10]) {
            lists.extend(list(&f[field]).map(|n| strs.intern(n)));
            *end = lists.len() - start;
        }
        lists.extend(
            list(&f[5]).map(|g| match genres.iter().position(|x| **x == *g) {
                Some(i) => i as u32,
                None => {
                    genres.push(g.into());
                    (genres.len() - 1) as u32
                }
            }),
        );
        ends[4] = lists.len() - start;
        let ends = ends.map(|e| u16::try_from(e).unwrap_or(u16::MAX));
        if usize::from(ends[4]) != lists.len() - start {
            return Err(invalid(format!("row {line} has too many names")));
        }
        let mut optional = |s: &str| if s.is_empty() { NONE } else { strs.intern(s) };
        let (certification, released) = (optional(&f[3]), optional(&f[6]));
        films.push(Row {
            imdb_id: strs.intern(&f[0]),
            title: strs.intern(&f[1]),
            year,
            certification,
            runtime: f[4].parse().ok(),
            released,
            lists: u32::try_from(start).map_err(|_| invalid("too many names".into()))?,
            ends,
        });
    }
    let mut films = Films {
        rows: films,
        lists,
        strs: strs.into_strs(),
    };
    films.shrink_to_fit();
    Ok(Loaded { films, genres })
}

fn list(s: &str) -> impl Iterator<Item = &str> {
    s.split(", ").map(str::trim).filter(|x| !x.is_empty())
}

/// A minimal RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF line ends. Fields borrow the
/// text unless they hold doubled quotes.
struct CsvRows<'a> {
    rest: &'a str,
}

impl<'a> CsvRows<'a> {
    /// Reads the next row into `fields`; false at the end.
    fn next_row(&mut self, fields: &mut Vec<Cow<'a, str>>) -> bool {
        if self.rest.is_empty() {
            return false;
        }
        fields.clear();
        let rest = self.rest;
        let bytes = rest.as_bytes();
        let mut i = 0;
        loop {
            if bytes.get(i) == Some(&b'"') {
                i += 1;
                let mut field = Cow::Borrowed("");
                loop {
                    let end = rest[i..].find('"').map_or(bytes.len(), |p| i + p);
                    append(&mut field, &rest[i..end]);
                    i = end + 1;
                    if bytes.get(i) == Some(&b'"') {
                        field.to_mut().push('"');
                        i += 1;
                    } else {
                        break;
                    }
                }
                fields.push(field);
            } else {
                let end = rest[i..]
                    .find([',', '\n', '\r'])
                    .map_or(bytes.len(), |p| i + p);
                fields.push(Cow::Borrowed(&rest[i..end]));
                i = end;
            }
            match bytes.get(i) {
                Some(b',') => i += 1,
                Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => {
                    i += 2;
                    break;
                }
                Some(b'\n') | Some(b'\r') => {
                    i += 1;
                    break;
                }
                _ => {
                    i = bytes.len();
                    break;
                }
            }
        }
        self.rest = &rest[i.min(bytes.len())..];
        true
    }
}

/// Appends `part` to a field, borrowing while the field is only that one slice of the text.
fn append<'a>(field: &mut Cow<'a, str>, part: &'a str) {
    if field.is_empty() {
        *field = Cow::Borrowed(part);
    } else {
        field.to_mut().push_str(part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::films::List;

    #[test]
    fn parses_quotes_and_lists() {
        let csv = format!(
            "{HEADER}\ntt1,\"Say \"\"Hi\"\", Bob\",1999,PG,90,\"Comedy, Drama\",1999-01-02,Ann,\"B, C\",English,France\r\n\
             tt2,Plain,2000,,,Drama,,,,,\n"
        );
        let loaded = parse_csv(&csv).unwrap();
        assert_eq!(loaded.films.len(), 2);
        let f = loaded.films.get(0);
        assert_eq!(f.title(), "Say \"Hi\", Bob");
        assert_eq!(f.certification(), Some("PG"));
        assert_eq!(f.names(List::Cast).collect::<Vec<_>>(), ["B", "C"]);
        assert_eq!(f.released(), Some("1999-01-02"));
        assert_eq!(loaded.genres.len(), 2);
        let g = loaded.films.get(1);
        assert_eq!(
            (g.certification(), g.runtime(), g.genres()),
            (None, None, &[1][..])
        );
        assert_eq!(
            g.list(List::Directors).len() + g.list(List::Countries).len(),
            0
        );
    }

    #[test]
    fn refuses_a_wrong_header() {
        assert!(parse_csv("id,title\n").is_err());
    }
}
