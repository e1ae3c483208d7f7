//! Loading the shipped film data: the gzipped CSV embedded in the binary, parsed into [`Film`]s.
//!
//! The data is `data/movies.csv.gz`, a copy of the CC0 Wikidata extract in `shared/data/movies.csv`
//! (17,470 films 1940-2014): imdb_id, title, year, certification_us, runtime_min, genres, released,
//! directors, cast_top5, languages, countries; list fields are ", "-separated.

use std::io::Read;

use crate::{Error, Result};

/// The embedded data set.
pub(crate) const MOVIES_CSV_GZ: &[u8] = include_bytes!("../../data/movies.csv.gz");

const HEADER: &str = "imdb_id,title,year,certification_us,runtime_min,genres,released,directors,cast_top5,languages,countries";

/// One film of the data set. Genres are indices into the catalogue's genre table.
#[derive(Debug)]
pub(crate) struct Film {
    /// "tt0113277": the builtin id and the IMDb id.
    pub imdb_id: Box<str>,
    pub title: Box<str>,
    pub year: i32,
    /// US certification; None when the data has none (unrated).
    pub certification: Option<Box<str>>,
    pub runtime: Option<u32>,
    pub genres: Vec<u16>,
    /// YYYY-MM-DD.
    pub released: Option<Box<str>>,
    pub directors: Vec<Box<str>>,
    pub cast: Vec<Box<str>>,
    pub languages: Vec<Box<str>>,
    pub countries: Vec<Box<str>>,
}

/// Films plus the genre names their indices point into.
pub(crate) struct Loaded {
    pub films: Vec<Film>,
    pub genres: Vec<Box<str>>,
}

/// Decompresses and parses a gzipped CSV in the data set's layout.
pub(crate) fn load_gz(gz: &[u8]) -> Result<Loaded> {
    let mut text = String::with_capacity(gz.len() * 3);
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .map_err(|e| Error::invalid("builtin catalogue data", format!("cannot decompress: {e}")))?;
    parse_csv(&text)
}

/// Parses CSV text in the data set's layout.
pub(crate) fn parse_csv(text: &str) -> Result<Loaded> {
    let mut rows = CsvRows {
        rest: text,
        fields: Vec::with_capacity(11),
    };
    match rows.next_row() {
        Some(header) if header.join(",") == HEADER => {}
        _ => {
            return Err(Error::invalid(
                "builtin catalogue data",
                "unexpected header",
            ));
        }
    }
    let mut films = Vec::with_capacity(18_000);
    let mut genres: Vec<Box<str>> = Vec::new();
    let mut line = 1;
    while let Some(f) = rows.next_row() {
        line += 1;
        if f.len() != 11 {
            return Err(Error::invalid(
                "builtin catalogue data",
                format!("row {line} has {} fields", f.len()),
            ));
        }
        let year = f[2].parse().map_err(|_| {
            Error::invalid(
                "builtin catalogue data",
                format!("row {line} has year \"{}\"", f[2]),
            )
        })?;
        let genre_ids = list(&f[5])
            .map(|g| match genres.iter().position(|x| **x == *g) {
                Some(i) => i as u16,
                None => {
                    genres.push(g);
                    (genres.len() - 1) as u16
                }
            })
            .collect();
        films.push(Film {
            imdb_id: f[0].clone().into_boxed_str(),
            title: f[1].clone().into_boxed_str(),
            year,
            certification: non_empty(&f[3]),
            runtime: f[4].parse().ok(),
            genres: genre_ids,
            released: non_empty(&f[6]),
            directors: list(&f[7]).collect(),
            cast: list(&f[8]).collect(),
            languages: list(&f[9]).collect(),
            countries: list(&f[10]).collect(),
        });
    }
    Ok(Loaded { films, genres })
}

fn non_empty(s: &str) -> Option<Box<str>> {
    (!s.is_empty()).then(|| s.into())
}

fn list(s: &str) -> impl Iterator<Item = Box<str>> + '_ {
    s.split(", ")
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(Box::from)
}

/// A minimal RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF line ends.
struct CsvRows<'a> {
    rest: &'a str,
    fields: Vec<String>,
}

impl CsvRows<'_> {
    fn next_row(&mut self) -> Option<Vec<String>> {
        if self.rest.is_empty() {
            return None;
        }
        self.fields.clear();
        let bytes = self.rest.as_bytes();
        let mut i = 0;
        loop {
            let mut field = String::new();
            if bytes.get(i) == Some(&b'"') {
                i += 1;
                loop {
                    let end = self.rest[i..].find('"').map_or(bytes.len(), |p| i + p);
                    field.push_str(&self.rest[i..end]);
                    i = end + 1;
                    if bytes.get(i) == Some(&b'"') {
                        field.push('"');
                        i += 1;
                    } else {
                        break;
                    }
                }
            } else {
                let end = self.rest[i..]
                    .find([',', '\n', '\r'])
                    .map_or(bytes.len(), |p| i + p);
                field.push_str(&self.rest[i..end]);
                i = end;
            }
            self.fields.push(field);
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
        self.rest = &self.rest[i.min(bytes.len())..];
        Some(std::mem::take(&mut self.fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_quotes_and_lists() {
        let csv = format!(
            "{HEADER}\ntt1,\"Say \"\"Hi\"\", Bob\",1999,PG,90,\"Comedy, Drama\",1999-01-02,Ann,\"B, C\",English,France\r\n\
             tt2,Plain,2000,,,Drama,,,,,\n"
        );
        let loaded = parse_csv(&csv).unwrap();
        assert_eq!(loaded.films.len(), 2);
        let f = &loaded.films[0];
        assert_eq!(&*f.title, "Say \"Hi\", Bob");
        assert_eq!(f.certification.as_deref(), Some("PG"));
        assert_eq!(f.cast.len(), 2);
        assert_eq!(loaded.genres.len(), 2);
        let g = &loaded.films[1];
        assert_eq!(
            (g.certification.is_none(), g.runtime, g.genres.clone()),
            (true, None, vec![1])
        );
    }

    #[test]
    fn refuses_a_wrong_header() {
        assert!(parse_csv("id,title\n").is_err());
    }
}
