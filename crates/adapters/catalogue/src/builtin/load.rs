//! Loading the shipped film data: the gzipped CSV embedded in the binary, parsed into compact [`Films`].
//!
//! The data is `data/movies.csv.gz`, a copy of the CC0 Wikidata extract in `shared/data/movies.csv`
//! (17,470 films 1940-2014): imdb_id, title, year, certification_us, runtime_min, genres, released,
//! directors, cast_top5, languages, countries; list fields are ", "-separated.

use std::{
    borrow::Cow,
    io::{BufRead, BufReader},
};

use super::{
    films::{Films, MAX_FILMS, NO_RANK, NONE, Row},
    strs::Interner,
    tables,
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

/// Parses a gzipped CSV, decompressing as it reads: only one record's text is held at a time.
pub(crate) fn parse_gz(gz: &[u8]) -> Result<Loaded> {
    let input = BufReader::with_capacity(32 * 1024, flate2::read::GzDecoder::new(gz));
    parse(input, stated_size(gz))
}

/// The decompressed size a gzip member states in its last four bytes (ISIZE, modulo 4 GiB): a
/// hint for sizing, never trusted beyond eight times the compressed size.
fn stated_size(gz: &[u8]) -> usize {
    let stated = gz
        .last_chunk::<4>()
        .map_or(0, |isize| u32::from_le_bytes(*isize) as usize);
    stated.min(gz.len().saturating_mul(8))
}

/// Parses CSV in the data set's layout, one record at a time; `size` (the text's length, or an
/// estimate) sizes the tables once.
pub(crate) fn parse(mut input: impl BufRead, size: usize) -> Result<Loaded> {
    let mut record = String::with_capacity(1024);
    let mut f = Vec::with_capacity(11);
    if !read_record(&mut input, &mut record)?
        || !(CsvRows { rest: &record }).next_row(&mut f)
        || f.join(",") != HEADER
    {
        return Err(invalid("unexpected header".into()));
    }
    let mut tables = Tables::with_capacity(size);
    let mut line = 1;
    while read_record(&mut input, &mut record)? {
        // The fields borrow this record's text, so they are collected afresh for each.
        let mut f = Vec::with_capacity(11);
        let mut rows = CsvRows { rest: &record };
        while rows.next_row(&mut f) {
            line += 1;
            tables.push(&f, line)?;
        }
    }
    let mut films = Films {
        rows: tables.films,
        lists: tables.lists,
        strs: tables.strs.into_strs(),
    };
    films.shrink_to_fit();
    Ok(Loaded {
        films,
        genres: tables.genres,
    })
}

fn invalid(why: String) -> Error {
    Error::invalid("builtin catalogue data", why)
}

/// The films read so far.
struct Tables {
    strs: Interner,
    films: Vec<Row>,
    lists: Vec<u32>,
    genres: Vec<Box<str>>,
}

impl Tables {
    /// Tables for `size` bytes of text. The shipped data holds one film per 170 bytes, a list entry
    /// per 17 bytes and a distinct string per 41 bytes, 13 bytes long on average: reserved once,
    /// with some room (untouched room costs no memory).
    fn with_capacity(size: usize) -> Tables {
        Tables {
            strs: Interner::with_capacity(size / 36, size / 3),
            films: Vec::with_capacity(size / 160),
            lists: Vec::with_capacity(size / 16),
            genres: Vec::new(),
        }
    }

    /// Adds the film of row `line`.
    fn push(&mut self, f: &[Cow<'_, str>], line: usize) -> Result<()> {
        if f.len() != 11 {
            return Err(invalid(format!("row {line} has {} fields", f.len())));
        }
        if self.films.len() == MAX_FILMS {
            return Err(invalid(format!(
                "row {line} is past the {MAX_FILMS} films it can hold"
            )));
        }
        let year = f[2]
            .parse()
            .map_err(|_| invalid(format!("row {line} has year \"{}\"", f[2])))?;
        let (strs, lists, genres) = (&mut self.strs, &mut self.lists, &mut self.genres);
        let start = lists.len();
        let mut ends = [0; 5];
        for (end, field) in ends[..4].iter_mut().zip([7, 8, 9, 10]) {
            lists.extend(list(&f[field]).map(|n| strs.intern(n)));
            *end = lists.len() - start;
        }
        let first_genre = lists.len();
        for g in list(&f[5]) {
            let id = match genres.iter().position(|x| **x == *g) {
                Some(i) => i as u32,
                None => {
                    genres.push(g.into());
                    (genres.len() - 1) as u32
                }
            };
            // A genre listed twice counts once: the genre orders and scores assume it.
            if !lists[first_genre..].contains(&id) {
                lists.push(id);
            }
        }
        ends[4] = lists.len() - start;
        let ends = ends.map(|e| u16::try_from(e).unwrap_or(u16::MAX));
        if usize::from(ends[4]) != lists.len() - start {
            return Err(invalid(format!("row {line} has too many names")));
        }
        let mut optional = |s: &str| if s.is_empty() { NONE } else { strs.intern(s) };
        let (certification, released) = (optional(&f[3]), optional(&f[6]));
        let cert_rank = tables::us_order(&f[3])
            .and_then(|o| u8::try_from(o).ok())
            .filter(|&o| o != NO_RANK)
            .unwrap_or(NO_RANK);
        self.films.push(Row {
            imdb_id: strs.intern(&f[0]),
            title: strs.intern(&f[1]),
            year,
            certification,
            cert_rank,
            runtime: f[4].parse().ok(),
            released,
            lists: u32::try_from(start).map_err(|_| invalid("too many names".into()))?,
            ends,
        });
        Ok(())
    }
}

/// Reads the next record into `record`: one line, or more while a quoted field is open (an odd
/// count of quotes so far). False at the end.
fn read_record(input: &mut impl BufRead, record: &mut String) -> Result<bool> {
    record.clear();
    loop {
        let read = input
            .read_line(record)
            .map_err(|e| invalid(format!("cannot decompress: {e}")))?;
        if read == 0 || record.bytes().filter(|&b| b == b'"').count() % 2 == 0 {
            return Ok(!record.is_empty());
        }
    }
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
    use std::io::Read;

    use super::*;
    use crate::builtin::films::List;

    #[test]
    fn parses_quotes_and_lists() {
        let csv = format!(
            "{HEADER}\ntt1,\"Say \"\"Hi\"\", Bob\",1999,PG,90,\"Comedy, Drama\",1999-01-02,Ann,\"B, C\",English,France\r\n\
             tt2,Plain,2000,,,\"Drama, Drama\",,,,,\n"
        );
        let loaded = parse(csv.as_bytes(), csv.len()).unwrap();
        assert_eq!(loaded.films.len(), 2);
        let f = loaded.films.get(0);
        assert_eq!(f.title(), "Say \"Hi\", Bob");
        assert_eq!(f.certification(), Some("PG"));
        assert_eq!(f.cert_rank(), tables::us_order("PG"));
        assert_eq!(f.names(List::Cast).collect::<Vec<_>>(), ["B", "C"]);
        assert_eq!(f.released(), Some("1999-01-02"));
        assert_eq!(loaded.genres.len(), 2);
        let g = loaded.films.get(1);
        assert_eq!(
            (g.certification(), g.cert_rank(), g.runtime(), g.genres()),
            (None, None, None, &[1][..])
        );
        assert_eq!(
            g.list(List::Directors).len() + g.list(List::Countries).len(),
            0
        );
    }

    #[test]
    fn refuses_a_wrong_header() {
        assert!(parse("id,title\n".as_bytes(), 0).is_err());
    }

    #[test]
    fn reads_a_quoted_line_break_across_small_reads() {
        let csv = format!(
            "{HEADER}\ntt1,\"Two\nLines \"\"Quoted\"\"\",1999,,,Drama,,,,,\ntt2,After,2000,,,Drama,,,,,\n"
        );
        let loaded = parse(std::io::BufReader::with_capacity(5, csv.as_bytes()), 0).unwrap();
        let titles: Vec<&str> = loaded.films.iter().map(|f| f.title()).collect();
        assert_eq!(titles, ["Two\nLines \"Quoted\"", "After"]);
    }

    #[test]
    fn the_shipped_data_states_its_size_and_parses_whole() {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(MOVIES_CSV_GZ)
            .read_to_end(&mut text)
            .unwrap();
        assert_eq!(stated_size(MOVIES_CSV_GZ), text.len());
        let rows = text.iter().filter(|&&b| b == b'\n').count() - 1;
        assert_eq!(parse_gz(MOVIES_CSV_GZ).unwrap().films.len(), rows);
    }

    #[test]
    fn a_size_stated_beyond_reason_is_not_believed() {
        let mut gz = MOVIES_CSV_GZ[..1000].to_vec();
        gz.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(stated_size(&gz), 8 * 1004);
    }

    #[test]
    fn refuses_more_films_than_positions_fit() {
        let mut csv = format!("{HEADER}\n");
        (0..=MAX_FILMS).for_each(|i| csv.push_str(&format!("tt{i},T,2000,,,Drama,,,,,\n")));
        let err = parse(csv.as_bytes(), 0)
            .err()
            .expect("an error")
            .to_string();
        assert!(err.contains("row 65538 is past the 65536 films"), "{err}");
        let fits = csv
            .lines()
            .take(MAX_FILMS + 1)
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(parse(fits.as_bytes(), 0).unwrap().films.len(), MAX_FILMS);
    }

    #[test]
    fn refuses_cut_short_data() {
        let cut = &MOVIES_CSV_GZ[..MOVIES_CSV_GZ.len() / 2];
        let err = parse_gz(cut).err().expect("an error").to_string();
        assert!(err.contains("cannot decompress"), "{err}");
    }
}
