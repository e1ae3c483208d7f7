//! The TMDB fake's fixed data set: a few films and shows with their genres, certifications, credits,
//! companies, keywords and providers, and TMDB's own lists (genres, certifications, providers).

/// One film or show.
pub(crate) struct Title {
    pub id: u64,
    pub tv: bool,
    pub title: &'static str,
    /// release_date (films) or first_air_date (shows).
    pub date: &'static str,
    pub genres: &'static [u32],
    pub overview: &'static str,
    pub language: &'static str,
    pub vote_average: f32,
    pub vote_count: u32,
    pub poster: &'static str,
    pub runtime: u32,
    /// (region, certification); an empty certification is how TMDB says "none".
    pub ratings: &'static [(&'static str, &'static str)],
    pub cast: &'static [&'static str],
    /// Directors (films) or creators (shows).
    pub directors: &'static [&'static str],
    pub companies: &'static [u32],
    pub keywords: &'static [u32],
    /// (region, provider id).
    pub providers: &'static [(&'static str, u32)],
    pub recommendations: &'static [u64],
    pub seasons: u32,
    pub country: &'static str,
    pub imdb_id: &'static str,
}

pub(crate) const TITLES: &[Title] = &[
    Title {
        id: 603,
        tv: false,
        title: "The Matrix",
        date: "1999-03-30",
        genres: &[28, 878],
        overview: "A hacker learns the truth about his reality.",
        language: "en",
        vote_average: 8.2,
        vote_count: 26_000,
        poster: "/f89U3ADr1oiB1s9GkdPOEpXUk5H.jpg",
        runtime: 136,
        ratings: &[("US", "R"), ("GB", "15"), ("DE", "16")],
        cast: &["Keanu Reeves", "Laurence Fishburne", "Carrie-Anne Moss"],
        directors: &["Lana Wachowski", "Lilly Wachowski"],
        companies: &[174],
        keywords: &[310],
        providers: &[("US", 8), ("GB", 8)],
        recommendations: &[949],
        seasons: 0,
        country: "US",
        imdb_id: "tt0133093",
    },
    Title {
        id: 949,
        tv: false,
        title: "Heat",
        date: "1995-12-15",
        genres: &[80, 18, 28, 53],
        overview: "A group of high-end professional thieves meets its match.",
        language: "en",
        vote_average: 7.9,
        vote_count: 7_000,
        poster: "/umSVjVdbVwtx5ryCA2QXL44Durm.jpg",
        runtime: 170,
        ratings: &[("US", "R"), ("GB", "15")],
        cast: &["Al Pacino", "Robert De Niro", "Val Kilmer"],
        directors: &["Michael Mann"],
        companies: &[174],
        keywords: &[10084],
        providers: &[("US", 9)],
        recommendations: &[603],
        seasons: 0,
        country: "US",
        imdb_id: "tt0113277",
    },
    Title {
        id: 862,
        tv: false,
        title: "Toy Story",
        date: "1995-10-30",
        genres: &[16, 12, 10751, 35],
        overview: "Toys come to life when people are not around.",
        language: "en",
        vote_average: 8.0,
        vote_count: 18_000,
        poster: "/uXDfjJbdP4ijW5hWSBrPrlKpxab.jpg",
        runtime: 81,
        ratings: &[("US", "G"), ("GB", "U")],
        cast: &["Tom Hanks", "Tim Allen"],
        directors: &["John Lasseter"],
        companies: &[3],
        keywords: &[],
        providers: &[("US", 337), ("GB", 337)],
        recommendations: &[12],
        seasons: 0,
        country: "US",
        imdb_id: "tt0114709",
    },
    Title {
        id: 12,
        tv: false,
        title: "Finding Nemo",
        date: "2003-05-30",
        genres: &[16, 10751],
        overview: "A clownfish searches the ocean for his son.",
        language: "en",
        vote_average: 7.8,
        vote_count: 19_000,
        poster: "/eHuGQ10FUzK1mdOY69wF5pGgEf5.jpg",
        runtime: 100,
        ratings: &[("US", ""), ("GB", "U")],
        cast: &["Albert Brooks", "Ellen DeGeneres"],
        directors: &["Andrew Stanton"],
        companies: &[3],
        keywords: &[],
        providers: &[("US", 337)],
        recommendations: &[862],
        seasons: 0,
        country: "US",
        imdb_id: "tt0266543",
    },
    Title {
        id: 1399,
        tv: true,
        title: "Game of Thrones",
        date: "2011-04-17",
        genres: &[10765, 18, 10759],
        overview: "Noble families fight for the Iron Throne.",
        language: "en",
        vote_average: 8.5,
        vote_count: 24_000,
        poster: "/1XS1oqL89opfnbLl8WnZY1O1uJx.jpg",
        runtime: 60,
        ratings: &[("US", "TV-MA"), ("DE", "16")],
        cast: &["Emilia Clarke", "Kit Harington"],
        directors: &["David Benioff", "D. B. Weiss"],
        companies: &[],
        keywords: &[],
        providers: &[("US", 1899)],
        recommendations: &[82728],
        seasons: 8,
        country: "US",
        imdb_id: "tt0944947",
    },
    Title {
        id: 82728,
        tv: true,
        title: "Bluey",
        date: "2018-10-01",
        genres: &[16, 10762, 35],
        overview: "A Blue Heeler puppy turns everyday family life into adventures.",
        language: "en",
        vote_average: 8.6,
        vote_count: 600,
        poster: "/b9mY0X5T20ZqkkGq8VgRfm7NdWY.jpg",
        runtime: 7,
        ratings: &[("US", "TV-Y"), ("AU", "G")],
        cast: &["Dave McCormack", "Melanie Zanetti"],
        directors: &["Joe Brumm"],
        companies: &[],
        keywords: &[],
        providers: &[("US", 337)],
        recommendations: &[],
        seasons: 3,
        country: "AU",
        imdb_id: "tt7678620",
    },
    // Two shows with one title, so a request by title has to ask which one is meant.
    Title {
        id: 2316,
        tv: true,
        title: "The Office",
        date: "2005-03-24",
        genres: &[35],
        overview: "A mockumentary about the employees of a paper company in Scranton.",
        language: "en",
        vote_average: 8.6,
        vote_count: 4_500,
        poster: "/7DJKHzAi83BmQrWLrYYOqcoKfhR.jpg",
        runtime: 22,
        ratings: &[("US", "TV-14")],
        cast: &["Steve Carell", "Rainn Wilson"],
        directors: &["Greg Daniels"],
        companies: &[],
        keywords: &[],
        providers: &[],
        recommendations: &[],
        seasons: 9,
        country: "US",
        imdb_id: "tt0386676",
    },
    Title {
        id: 2996,
        tv: true,
        title: "The Office",
        date: "2001-07-09",
        genres: &[35],
        overview: "A mockumentary about the employees of a paper merchant in Slough.",
        language: "en",
        vote_average: 8.1,
        vote_count: 1_100,
        poster: "/p7U6AwuGbZOAy3yQGf3rNqm4Bqh.jpg",
        runtime: 30,
        ratings: &[("US", "TV-MA"), ("GB", "15")],
        cast: &["Ricky Gervais", "Martin Freeman"],
        directors: &["Ricky Gervais", "Stephen Merchant"],
        companies: &[],
        keywords: &[],
        providers: &[],
        recommendations: &[],
        seasons: 2,
        country: "GB",
        imdb_id: "tt0290978",
    },
];

pub(crate) const MOVIE_GENRES: &[(u32, &str)] = &[
    (28, "Action"),
    (12, "Adventure"),
    (16, "Animation"),
    (35, "Comedy"),
    (80, "Crime"),
    (99, "Documentary"),
    (18, "Drama"),
    (10751, "Family"),
    (14, "Fantasy"),
    (36, "History"),
    (27, "Horror"),
    (10402, "Music"),
    (9648, "Mystery"),
    (10749, "Romance"),
    (878, "Science Fiction"),
    (10770, "TV Movie"),
    (53, "Thriller"),
    (10752, "War"),
    (37, "Western"),
];

pub(crate) const TV_GENRES: &[(u32, &str)] = &[
    (10759, "Action & Adventure"),
    (16, "Animation"),
    (35, "Comedy"),
    (80, "Crime"),
    (99, "Documentary"),
    (18, "Drama"),
    (10751, "Family"),
    (10762, "Kids"),
    (9648, "Mystery"),
    (10763, "News"),
    (10764, "Reality"),
    (10765, "Sci-Fi & Fantasy"),
    (10766, "Soap"),
    (10767, "Talk"),
    (10768, "War & Politics"),
    (37, "Western"),
];

/// (region, certification, meaning, order).
pub(crate) const MOVIE_CERTIFICATIONS: &[(&str, &str, &str, u32)] = &[
    ("US", "NR", "No rating information.", 0),
    ("US", "G", "All ages admitted.", 1),
    (
        "US",
        "PG",
        "Some material may not be suitable for children.",
        2,
    ),
    (
        "US",
        "PG-13",
        "Some material may be inappropriate for children under 13.",
        3,
    ),
    (
        "US",
        "R",
        "Under 17 requires accompanying parent or adult guardian.",
        4,
    ),
    ("US", "NC-17", "No one 17 and under admitted.", 5),
    ("GB", "U", "Suitable for all.", 1),
    ("GB", "PG", "Parental guidance.", 2),
    (
        "GB",
        "12A",
        "Suitable for 12 years and over; younger with an adult.",
        3,
    ),
    ("GB", "12", "Suitable for 12 years and over.", 4),
    ("GB", "15", "Suitable only for 15 years and over.", 5),
    ("GB", "18", "Suitable only for adults.", 6),
];

pub(crate) const TV_CERTIFICATIONS: &[(&str, &str, &str, u32)] = &[
    ("US", "NR", "No rating information.", 0),
    ("US", "TV-Y", "Appropriate for all children.", 1),
    ("US", "TV-Y7", "Designed for children age 7 and above.", 2),
    ("US", "TV-G", "Suitable for all ages.", 3),
    ("US", "TV-PG", "Parental guidance suggested.", 4),
    ("US", "TV-14", "Parents strongly cautioned.", 5),
    ("US", "TV-MA", "Mature audience only.", 6),
];

pub(crate) const KEYWORDS: &[(u32, &str)] = &[
    (310, "artificial intelligence"),
    (9715, "superhero"),
    (10084, "heist"),
    (1562, "hostage"),
    (9748, "revenge"),
];

pub(crate) const COMPANIES: &[(u32, &str, &str)] = &[
    (3, "Pixar", "US"),
    (2, "Walt Disney Pictures", "US"),
    (174, "Warner Bros. Pictures", "US"),
    (25120, "Warner Bros. Television", "US"),
];

/// (provider id, name, regions).
pub(crate) const PROVIDERS: &[(u32, &str, &[&str])] = &[
    (8, "Netflix", &["US", "GB"]),
    (9, "Amazon Prime Video", &["US", "GB"]),
    (337, "Disney Plus", &["US", "GB"]),
    (1899, "Max", &["US"]),
    (103, "All 4", &["GB"]),
];

pub(crate) const COLLECTIONS: &[(u64, &str, &str)] = &[
    (2344, "The Matrix Collection", "The Matrix films."),
    (10194, "Toy Story Collection", "The Toy Story films."),
];

pub(crate) fn genre_name(id: u32) -> &'static str {
    MOVIE_GENRES
        .iter()
        .chain(TV_GENRES)
        .find(|(g, _)| *g == id)
        .map_or("Unknown", |(_, n)| n)
}

/// Backdrop paths (fanart) of the titles that have one; the others answer `null`, as TMDB does.
const BACKDROPS: &[(u64, &str)] = &[
    (949, "/rfEXNlql4CafRmtgp2VXQWQ5i5C.jpg"),
    (1399, "/2OMB0ynKlyIenMJWI2Dy9IWT4c.jpg"),
];

pub(crate) fn backdrop(id: u64) -> Option<&'static str> {
    BACKDROPS.iter().find(|(i, _)| *i == id).map(|(_, p)| *p)
}

/// One episode the fake knows.
pub(crate) struct Episode {
    pub show: u64,
    pub season: u32,
    pub episode: u32,
    pub name: &'static str,
    pub overview: &'static str,
    pub air_date: &'static str,
}

/// The episodes the fake answers; any other is TMDB's 404.
pub(crate) const EPISODES: &[Episode] = &[
    Episode {
        show: 1399,
        season: 1,
        episode: 1,
        name: "Winter Is Coming",
        overview: "Lord Stark is troubled by reports of a Night's Watch deserter & <others>.",
        air_date: "2011-04-17",
    },
    Episode {
        show: 1399,
        season: 1,
        episode: 2,
        name: "The Kingsroad",
        overview: "While Bran recovers from his fall, Ned takes only his daughters to King's Landing.",
        air_date: "2011-04-24",
    },
];
