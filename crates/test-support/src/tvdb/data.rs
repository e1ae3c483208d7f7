//! The TVDB fake's fixed data set: two series (with seasons, episodes, cast and artwork) and one
//! movie, with TVDB's own ids for genres, people types, season types and artwork types.
//! Overviews are written for the fake; ids of seasons, episodes, people, artworks and content
//! ratings are invented.

/// A credit: `peopleType` with its TVDB type id (1 Director, 3 Actor, 6 Creator).
pub(crate) struct Credit {
    pub id: u64,
    pub people_id: u64,
    pub person: &'static str,
    pub people_type: &'static str,
    pub type_id: u32,
    /// The character played; empty for crew.
    pub character: &'static str,
    pub sort: u32,
}

/// A season of one season type: (id, type id, type name, type slug).
pub(crate) struct Season {
    pub id: u64,
    pub number: u32,
    pub season_type: (u32, &'static str, &'static str),
}

pub(crate) const AIRED_ORDER: (u32, &str, &str) = (1, "Aired Order", "official");
pub(crate) const DVD_ORDER: (u32, &str, &str) = (2, "DVD Order", "dvd");

/// An episode in aired order.
pub(crate) struct Episode {
    pub id: u64,
    pub season: u32,
    pub number: u32,
    pub absolute: u32,
    pub name: &'static str,
    pub aired: &'static str,
    pub runtime: u32,
    pub overview: &'static str,
}

/// An artwork: TVDB artwork type 2 series poster, 3 series background, 14 movie poster,
/// 15 movie background.
pub(crate) struct Art {
    pub id: u64,
    pub kind: u32,
    pub image: &'static str,
    pub width: u32,
    pub height: u32,
}

/// A company: (id, name, slug, country, TVDB company type id: 1 network, 3 production).
pub(crate) type Company = (u64, &'static str, &'static str, &'static str, u32);

/// One series or movie.
pub(crate) struct Record {
    pub id: u64,
    pub movie: bool,
    pub name: &'static str,
    pub slug: &'static str,
    pub aliases: &'static [&'static str],
    pub year: &'static str,
    /// firstAired (series) or the first release (movies).
    pub first_aired: &'static str,
    pub last_aired: &'static str,
    pub overview: &'static str,
    pub language: &'static str,
    pub country: &'static str,
    /// averageRuntime (series) or runtime (movies), minutes.
    pub runtime: u32,
    /// (status id, name): series 1 Continuing, 2 Ended; movies 5 Released.
    pub status: (u32, &'static str),
    pub image: &'static str,
    pub score: f64,
    /// The network (series) or production company (movies).
    pub company: Company,
    /// (TVDB genre id, name, slug).
    pub genres: &'static [(u32, &'static str, &'static str)],
    /// (id, name, country, order).
    pub ratings: &'static [(u64, &'static str, &'static str, u32)],
    pub imdb: &'static str,
    pub tmdb: &'static str,
    pub credits: &'static [Credit],
    pub seasons: &'static [Season],
    pub episodes: &'static [Episode],
    pub artworks: &'static [Art],
}

pub(crate) const RECORDS: &[Record] = &[
    Record {
        id: 280619,
        movie: false,
        name: "The Expanse",
        slug: "the-expanse",
        aliases: &["Expanse"],
        year: "2015",
        first_aired: "2015-12-14",
        last_aired: "2017-02-01",
        overview: "Centuries from now, with the solar system settled, a detective, a ship's officer and a UN politician are drawn into a conspiracy that could start a war.",
        language: "eng",
        country: "usa",
        runtime: 45,
        status: (1, "Continuing"),
        image: "https://artworks.thetvdb.com/banners/posters/280619-1.jpg",
        score: 61_250.0,
        company: (71, "Syfy", "syfy", "usa", 1),
        genres: &[
            (12, "Drama", "drama"),
            (2, "Science Fiction", "science-fiction"),
        ],
        ratings: &[(9, "TV-14", "usa", 4), (45, "15", "gbr", 5)],
        imdb: "tt3230854",
        tmdb: "63639",
        credits: &[
            Credit {
                id: 8_001,
                people_id: 310_001,
                person: "Steven Strait",
                people_type: "Actor",
                type_id: 3,
                character: "James Holden",
                sort: 0,
            },
            Credit {
                id: 8_002,
                people_id: 310_002,
                person: "Dominique Tipper",
                people_type: "Actor",
                type_id: 3,
                character: "Naomi Nagata",
                sort: 1,
            },
            Credit {
                id: 8_003,
                people_id: 310_003,
                person: "Mark Fergus",
                people_type: "Creator",
                type_id: 6,
                character: "",
                sort: 0,
            },
        ],
        seasons: &[
            Season {
                id: 640_100,
                number: 0,
                season_type: AIRED_ORDER,
            },
            Season {
                id: 640_101,
                number: 1,
                season_type: AIRED_ORDER,
            },
            Season {
                id: 640_102,
                number: 2,
                season_type: AIRED_ORDER,
            },
            Season {
                id: 640_201,
                number: 1,
                season_type: DVD_ORDER,
            },
        ],
        episodes: &[
            Episode {
                id: 5_300_101,
                season: 1,
                number: 1,
                absolute: 1,
                name: "Dulcinea",
                aired: "2015-12-14",
                runtime: 44,
                overview: "An ice hauler answers a distress call while a detective on Ceres is handed a missing-person case.",
            },
            Episode {
                id: 5_300_102,
                season: 1,
                number: 2,
                absolute: 2,
                name: "The Big Empty",
                aired: "2015-12-15",
                runtime: 44,
                overview: "The survivors drift in a shuttle with failing air and little hope of rescue.",
            },
            Episode {
                id: 5_300_201,
                season: 2,
                number: 1,
                absolute: 11,
                name: "Safe",
                aired: "2017-02-01",
                runtime: 44,
                overview: "The crew plans a strike on a hidden station as old loyalties are tested.",
            },
        ],
        artworks: &[
            Art {
                id: 90_001,
                kind: 3,
                image: "https://artworks.thetvdb.com/banners/fanart/original/280619-1.jpg",
                width: 1920,
                height: 1080,
            },
            Art {
                id: 90_002,
                kind: 2,
                image: "https://artworks.thetvdb.com/banners/posters/280619-1.jpg",
                width: 680,
                height: 1000,
            },
        ],
    },
    Record {
        id: 353546,
        movie: false,
        name: "Bluey",
        slug: "bluey",
        aliases: &["Bluey (2018)"],
        year: "2018",
        first_aired: "2018-10-01",
        last_aired: "2018-10-01",
        overview: "A cheerful puppy turns everyday family life into games with her little sister and her parents.",
        language: "eng",
        country: "aus",
        runtime: 7,
        status: (1, "Continuing"),
        image: "https://artworks.thetvdb.com/banners/posters/353546-1.jpg",
        score: 24_800.0,
        company: (1_201, "ABC Kids", "abc-kids", "aus", 1),
        genres: &[
            (17, "Animation", "animation"),
            (16, "Children", "children"),
            (11, "Family", "family"),
        ],
        ratings: &[(2, "TV-Y", "usa", 1)],
        imdb: "tt7678620",
        tmdb: "82728",
        credits: &[],
        seasons: &[Season {
            id: 760_101,
            number: 1,
            season_type: AIRED_ORDER,
        }],
        episodes: &[Episode {
            id: 6_800_101,
            season: 1,
            number: 1,
            absolute: 1,
            name: "Magic Xylophone",
            aired: "2018-10-01",
            runtime: 7,
            overview: "A toy that seems to freeze people in place starts a squabble between two sisters and their dad.",
        }],
        artworks: &[],
    },
    Record {
        id: 169,
        movie: true,
        name: "The Matrix",
        slug: "the-matrix",
        aliases: &["Matrix"],
        year: "1999",
        first_aired: "1999-03-31",
        last_aired: "",
        overview: "A programmer who hacks at night is shown that the world he knows is a simulation, and joins the few who fight the machines behind it.",
        language: "eng",
        country: "usa",
        runtime: 136,
        status: (5, "Released"),
        image: "https://artworks.thetvdb.com/banners/movies/169/posters/169-1.jpg",
        score: 98_500.0,
        company: (
            2_001,
            "Warner Bros. Pictures",
            "warner-bros-pictures",
            "usa",
            3,
        ),
        genres: &[
            (19, "Action", "action"),
            (2, "Science Fiction", "science-fiction"),
        ],
        ratings: &[(301, "R", "usa", 4)],
        imdb: "tt0133093",
        tmdb: "603",
        credits: &[
            Credit {
                id: 9_001,
                people_id: 320_001,
                person: "Keanu Reeves",
                people_type: "Actor",
                type_id: 3,
                character: "Neo",
                sort: 0,
            },
            Credit {
                id: 9_002,
                people_id: 320_002,
                person: "Carrie-Anne Moss",
                people_type: "Actor",
                type_id: 3,
                character: "Trinity",
                sort: 1,
            },
            Credit {
                id: 9_003,
                people_id: 320_003,
                person: "Lana Wachowski",
                people_type: "Director",
                type_id: 1,
                character: "",
                sort: 0,
            },
        ],
        seasons: &[],
        episodes: &[],
        artworks: &[Art {
            id: 91_001,
            kind: 15,
            image: "https://artworks.thetvdb.com/banners/movies/169/backgrounds/169-1.jpg",
            width: 1920,
            height: 1080,
        }],
    },
];

/// The record of a kind by id.
pub(crate) fn find(movie: bool, id: u64) -> Option<&'static Record> {
    RECORDS.iter().find(|r| r.movie == movie && r.id == id)
}

/// The series or movie a remote id (an IMDb id, or a TMDB id as digits) names.
pub(crate) fn by_remote_id(remote: &str) -> Vec<&'static Record> {
    RECORDS
        .iter()
        .filter(|r| r.imdb.eq_ignore_ascii_case(remote) || r.tmdb == remote)
        .collect()
}
