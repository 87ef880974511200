//! `threat_points`: the fives and straight fours a colour threatens, checked on hand-made lines
//! and, for fives, against the rules library on every point of positions from random games.

use tengen_engine::{ThreatKind, threat_points};
use tengen_rules::{Board, BoardSize, Color, Point, Rule, point_name};

fn board_of(rows: &[&str]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

/// The threats as `name kind` strings, on a 9x9 picture.
fn threats(rows: &[&str], rule: Rule, color: Color) -> Vec<String> {
    let board = board_of(rows);
    threat_points(&board, rule, color)
        .into_iter()
        .map(|(p, k)| format!("{}:{k:?}", point_name(board.size(), p)))
        .collect()
}

fn row(line: &str) -> Vec<&str> {
    let mut rows = vec!["........."; 9];
    rows[4] = line;
    rows
}

#[test]
fn an_open_three_threatens_a_straight_four_at_both_ends() {
    let t = threats(&row("...XXX..."), Rule::Freestyle, Color::Black);
    assert_eq!(t, ["c5:OpenFour", "g5:OpenFour"]);
}

#[test]
fn a_split_three_threatens_at_its_gap() {
    assert_eq!(
        threats(&row("..X.XX..."), Rule::Freestyle, Color::Black),
        ["d5:OpenFour"]
    );
    assert_eq!(
        threats(&row("..XX.X..."), Rule::Freestyle, Color::Black),
        ["e5:OpenFour"]
    );
}

#[test]
fn a_blocked_three_is_no_threat_and_a_four_threatens_its_five() {
    assert!(threats(&row("..OXXX..."), Rule::Freestyle, Color::Black).is_empty());
    assert_eq!(
        threats(&row("..OXXXX.."), Rule::Freestyle, Color::Black),
        ["h5:Five"]
    );
    // A split four: its gap.
    assert_eq!(
        threats(&row(".OXX.XXO."), Rule::Freestyle, Color::Black),
        ["e5:Five"]
    );
    // The other colour's stones threaten nothing of white's.
    assert!(threats(&row("..OXXXX.."), Rule::Freestyle, Color::White).is_empty());
}

#[test]
fn an_overline_is_a_five_only_where_the_rule_counts_it() {
    let rows = row("XXX.XX...");
    assert_eq!(threats(&rows, Rule::Freestyle, Color::Black), ["d5:Five"]);
    assert!(!threats(&rows, Rule::Standard, Color::Black).contains(&"d5:Five".to_string()));
    assert!(!threats(&rows, Rule::Renju, Color::Black).contains(&"d5:Five".to_string()));
    // Caro with overlines counts it, even blocked at both ends; caro does not.
    let rows = row("OXXX.XXO.");
    assert_eq!(
        threats(&rows, Rule::CaroOverlines, Color::Black),
        ["e5:Five"]
    );
    assert!(threats(&rows, Rule::Caro, Color::Black).is_empty());
    // A five blocked at both ends is none under either, with an open end it is one.
    assert!(threats(&row("OXX.XXO.."), Rule::CaroOverlines, Color::Black).is_empty());
    assert_eq!(
        threats(&row("OXX.XX..."), Rule::CaroOverlines, Color::Black),
        ["d5:Five"]
    );
}

#[test]
fn the_unbounded_board_is_read_around_its_stones() {
    let mut board = Board::new(BoardSize::UNBOUNDED);
    for x in [-101, -100, -99] {
        board.place(Point::new(x, 40), Color::White).expect("empty");
    }
    let t = threat_points(&board, Rule::Freestyle, Color::White);
    assert_eq!(
        t,
        vec![
            (Point::new(-102, 40), ThreatKind::OpenFour),
            (Point::new(-98, 40), ThreatKind::OpenFour)
        ]
    );
}

/// On positions from random games on 15x15, a point is a `Five` threat exactly where the rules
/// library finds a five for that colour.
#[test]
fn five_threats_agree_with_the_rules_library() {
    let size = BoardSize::STANDARD;
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut checked = 0;
    for rule in Rule::ALL {
        for _ in 0..12 {
            let mut board = Board::new(size);
            // Stones clustered in the middle, so lines form.
            let stones = 20 + (next() % 40) as usize;
            for i in 0..stones {
                let p = Point::new(4 + (next() % 7) as i32, 4 + (next() % 7) as i32);
                let c = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                board.place(p, c).ok();
            }
            for color in [Color::Black, Color::White] {
                let engine: Vec<Point> = threat_points(&board, rule, color)
                    .into_iter()
                    .filter(|&(_, k)| k == ThreatKind::Five)
                    .map(|(p, _)| p)
                    .collect();
                let rules: Vec<Point> = size
                    .points()
                    .filter(|&p| board.is_empty_at(p))
                    .filter(|&p| {
                        let mut b = board.clone();
                        b.place(p, color).is_ok() && !rule.fives(&b, p, color).is_empty()
                    })
                    .collect();
                let mut rules = rules;
                rules.sort_by_key(|p| (p.y, p.x));
                assert_eq!(engine, rules, "{rule:?} {color:?}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 24 * Rule::ALL.len());
}
