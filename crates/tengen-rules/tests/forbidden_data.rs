//! The published renju forbidden-point suites (see `tests/data/SOURCES.md`), checked point by
//! point and map by map against the fast forbidden check.

use std::collections::BTreeMap;

use serde::Deserialize;
use tengen_rules::{
    Board, BoardSize, Color, Forbidden, Point, forbidden, forbidden_points, parse_point, point_name,
};

#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
    #[serde(default)]
    full_maps: Vec<Map>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    rows: Vec<String>,
    point: String,
    color: Option<String>,
    expected: bool,
    expected_type: Option<String>,
}

#[derive(Deserialize)]
struct Map {
    id: String,
    rows: Vec<String>,
    forbidden: BTreeMap<String, String>,
}

fn board_of<S: AsRef<str>>(rows: &[S]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

fn load(name: &str) -> Suite {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("test data present");
    serde_json::from_str(&text).expect("test data well-formed")
}

fn verdict(f: Option<Forbidden>) -> &'static str {
    f.map_or("legal", Forbidden::key)
}

fn check_cases(suite: &Suite) -> usize {
    let mut failures = Vec::new();
    for case in &suite.cases {
        let board = board_of(&case.rows);
        let p = parse_point(BoardSize::STANDARD, &case.point).expect("a valid point");
        if case.color.as_deref() == Some("white") {
            // White has no forbidden points: the case only says the point is legal for white.
            assert!(!case.expected, "{}", case.id);
            continue;
        }
        let got = verdict(forbidden(&board, p));
        // A five is legal: the data marks it apart.
        let want = match case.expected_type.as_deref() {
            Some("five") | None => "legal",
            Some(t) => t,
        };
        assert_eq!(
            want != "legal",
            case.expected,
            "{}: data disagrees with itself",
            case.id
        );
        if got != want {
            failures.push(format!(
                "{}: {} expected {want}, got {got}",
                case.id, case.point
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    suite.cases.len()
}

#[test]
fn published_forbidden_points() {
    assert_eq!(check_cases(&load("forbidden_cases.json")), 128);
}

#[test]
fn generated_false_double_threes_are_legal() {
    assert_eq!(check_cases(&load("generated_false33_cases.json")), 60);
}

#[test]
fn complete_forbidden_maps() {
    let suite = load("forbidden_cases.json");
    assert_eq!(suite.full_maps.len(), 30);
    for map in &suite.full_maps {
        let board = board_of(&map.rows);
        let got: BTreeMap<String, String> = forbidden_points(&board)
            .into_iter()
            .map(|(p, f)| (point_name(BoardSize::STANDARD, p), f.key().to_string()))
            .collect();
        assert_eq!(got, map.forbidden, "map {}", map.id);
    }
}

/// Hard cases of our own, each a rule of RIF 9.2/9.3 in its smallest form: `*` marks the point
/// black considers.
#[test]
fn own_hard_cases() {
    let cases: &[(&str, &[&str], &str)] = &[
        // A five wins even when the same move makes an overline on another line.
        (
            "five beats overline",
            &[
                "XXXX*..", "....X..", "....X..", "....X..", "....X..", "....X..", ".......",
            ],
            "legal",
        ),
        (
            "the same overline without the five",
            &[
                "XXX.*..", "....X..", "....X..", "....X..", "....X..", "....X..", ".......",
            ],
            "overline",
        ),
        // A five wins even when the same move also makes two fours.
        (
            "five beats double four",
            &["XXXX*...", "...XX...", "..X.X...", ".X..X...", "........"],
            "legal",
        ),
        (
            "the same double four without the five",
            &["XXX.*...", "...XX...", "..X.X...", ".X..X...", "........"],
            "double_four",
        ),
        // Two fours on one line: X.XXX.X with the move in the middle.
        (
            "double four on one line",
            &["X.X*X.X", "......."],
            "double_four",
        ),
        // Six in a row by filling a gap.
        ("overline by a gap", &["XXX*XX.", "......."], "overline"),
        // Two open threes.
        (
            "plain double three",
            &[
                ".......", "...X...", "...X...", ".XX*...", ".......", ".......",
            ],
            "double_three",
        ),
        // The same, one three blocked by white: only one three, legal.
        (
            "blocked three is no three",
            &[
                ".......", "...X...", "...X...", "OXX*...", ".......", ".......",
            ],
            "legal",
        ),
        // A three against the edge cannot become a straight four: legal.
        (
            "edge blocks a three",
            &[
                "...X...", "...X...", "XX*....", ".......", ".......", ".......",
            ],
            "legal",
        ),
        // Four and three at once is allowed.
        (
            "four-three is legal",
            &[
                "........", "...X....", "...X....", "...X....", ".XX*....", "........", "........",
            ],
            "legal",
        ),
    ];
    for (name, rows, want) in cases {
        let mut board = Board::new(BoardSize::STANDARD);
        let mut point = None;
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                // Offset by two so the edge is where the picture puts it only for the edge case.
                let (ox, oy) = if name.starts_with("edge")
                    || name.starts_with("double four")
                    || name.starts_with("overline")
                    || name.starts_with("five")
                    || name.starts_with("the same")
                {
                    (0, 0)
                } else {
                    (4, 4)
                };
                let p = Point::new(x as i32 + ox, y as i32 + oy);
                match c {
                    'X' => board.place(p, Color::Black).expect("free"),
                    'O' => board.place(p, Color::White).expect("free"),
                    '*' => point = Some(p),
                    _ => {}
                }
            }
        }
        let p = point.expect("a marked point");
        assert_eq!(verdict(forbidden(&board, p)), *want, "{name}");
    }
}
