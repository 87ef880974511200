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

fn board_of(rows: &[String]) -> Board {
    let mut b = Board::new(BoardSize::STANDARD);
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let color = match c {
                'X' => Color::Black,
                'O' => Color::White,
                _ => continue,
            };
            b.place(Point::new(x as i32, y as i32), color)
                .expect("a valid test board");
        }
    }
    b
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
