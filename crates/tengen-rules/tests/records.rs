//! Game records across formats: round trips on random records and boards, coordinates read back
//! as printed, and readers that never panic, whatever the text.

use std::collections::HashSet;

use proptest::prelude::*;
use tengen_rules::{
    BoardSize, Coord, ForbiddenPolicy, Game, MAX_UNBOUNDED_COORD, Point, Record, RecordError,
    RecordFormat, RecordResult, Rule, parse_point, point_name,
};

fn sizes() -> impl Strategy<Value = BoardSize> {
    prop_oneof![
        1 => Just(BoardSize::UNBOUNDED),
        1 => Just(BoardSize::STANDARD),
        3 => (5u32..=100, 5u32..=100)
            .prop_map(|(w, h)| BoardSize::rect(w, h).expect("sides in range")),
        // Boards SGF can hold, so that its round trip is exercised often.
        3 => (5u32..=52, 5u32..=52)
            .prop_map(|(w, h)| BoardSize::rect(w, h).expect("sides in range")),
    ]
}

fn results() -> impl Strategy<Value = RecordResult> {
    prop::sample::select(vec![
        RecordResult::Black,
        RecordResult::White,
        RecordResult::Draw,
    ])
}

fn names() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        "[a-zA-Z0-9 ._-]{0,20}",
        // Anything at all: brackets, backslashes, line breaks, control characters, numbers.
        ".{0,20}",
        "[\\]\\\\\\[ \n\r\t?,0-9-]{0,10}",
    ])
}

// Where a patch of 65536 x 65536 points of the unbounded board is centred: at the origin, or
// against the bound of its coordinates (near the corner (max, max) or (-max, -max)).
fn unbounded_shifts() -> impl Strategy<Value = i32> {
    prop::sample::select(vec![
        0,
        MAX_UNBOUNDED_COORD - 32767,
        -MAX_UNBOUNDED_COORD + 32768,
    ])
}

// A point of a board of `size` from two arbitrary numbers.
fn point_on(size: BoardSize, a: u16, b: u16, shift: i32) -> Point {
    match (size.width(), size.height()) {
        (Some(w), Some(h)) => Point::new(i32::from(a) % w as i32, i32::from(b) % h as i32),
        _ => Point::new(i32::from(a) - 32768 + shift, i32::from(b) - 32768 + shift),
    }
}

// Distinct points on the board, with times and names and whatever else a record may hold.
fn records() -> impl Strategy<Value = Record> {
    (
        (sizes(), unbounded_shifts()),
        prop::collection::vec((any::<u16>(), any::<u16>(), any::<Option<u32>>()), 0..80),
        prop::option::of(prop::sample::select(Rule::ALL.to_vec())),
        names(),
        names(),
        prop::option::of(results()),
    )
        .prop_map(|((size, shift), raw, rule, black, white, result)| {
            let mut record = Record::new(size);
            let mut seen = HashSet::new();
            for (a, b, ms) in raw {
                let p = point_on(size, a, b, shift);
                if seen.insert(p) {
                    record.moves.push(p);
                    record.times_ms.push(ms);
                }
            }
            record.rule = rule;
            record.black = black;
            record.white = white;
            record.result = result;
            record
        })
}

fn formats() -> impl Strategy<Value = RecordFormat> {
    prop::sample::select(RecordFormat::ALL.to_vec())
}

fn can_hold(format: RecordFormat, size: BoardSize) -> bool {
    match format {
        RecordFormat::Plain => true,
        RecordFormat::Psq => !size.is_unbounded(),
        RecordFormat::Sgf => matches!(
            (size.width(), size.height()),
            (Some(w), Some(h)) if w <= 52 && h <= 52
        ),
    }
}

// Whatever a reader accepts, its writer writes, and that text reads back the same.
fn check_round_trip(text: &str, format: RecordFormat, size: BoardSize) {
    if let Ok(r) = Record::parse(text, format, size) {
        let written = r
            .write(format)
            .expect("what was read can be written in the same format");
        assert_eq!(
            Record::parse(&written, format, size),
            Ok(r.normalized(format)),
            "{format} text {written:?}"
        );
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, char),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let chars = prop_oneof![
        any::<char>(),
        prop::sample::select(vec![
            '(', ')', ';', '[', ']', '\\', ',', ':', '.', '#', '-', '\n', ' ', '0', '1', '9', 'a',
            'h', 'z', 'A', 'Z', 'B', 'W', 'x',
        ]),
    ];
    let one = prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), chars).prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), 1usize..30).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..6)
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        let at = |i: usize, len: usize| i % (len + 1);
        match *m {
            Mutation::Delete(i, n) => {
                let start = at(i, chars.len());
                let end = (start + n).min(chars.len());
                chars.drain(start..end);
            }
            Mutation::Insert(i, c) => chars.insert(at(i, chars.len()), c),
            Mutation::Duplicate(i, n) => {
                let start = at(i, chars.len());
                let end = (start + n).min(chars.len());
                let copy: Vec<char> = chars[start..end].to_vec();
                chars.splice(start..start, copy);
            }
            Mutation::Truncate(i) => chars.truncate(at(i, chars.len())),
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #[test]
    fn records_round_trip_in_every_format(r in records()) {
        for format in RecordFormat::ALL {
            match r.write(format) {
                Ok(text) => {
                    prop_assert!(can_hold(format, r.size));
                    let back = Record::parse(&text, format, r.size);
                    prop_assert_eq!(&back, &Ok(r.normalized(format)), "{} text {:?}", format, text);
                    prop_assert_eq!(RecordFormat::detect(&text), format);
                    prop_assert_eq!(Record::parse_auto(&text, r.size), back);
                    prop_assert_eq!(r.normalized(format).normalized(format), r.normalized(format));
                }
                Err(e) => {
                    prop_assert!(!can_hold(format, r.size), "{}: {}", format, e);
                    let unsupported = matches!(e, RecordError::UnsupportedBoard { .. });
                    prop_assert!(unsupported);
                }
            }
        }
    }

    #[test]
    fn replaying_distinct_moves_never_panics(r in records(), rule in prop::sample::select(Rule::ALL.to_vec())) {
        match r.replay(rule, ForbiddenPolicy::Refuse) {
            Ok(game) => prop_assert_eq!(game.moves(), &r.moves[..]),
            Err(e) => {
                prop_assert!(e.move_number >= 1 && e.move_number <= r.moves.len());
                prop_assert_eq!(e.point, point_name(r.size, r.moves[e.move_number - 1]));
            }
        }
    }

    #[test]
    fn renju_coordinates_read_back_as_printed(column in 0u32..475_254, row in 1u32..10_000) {
        let c = Coord::Renju { column, row };
        prop_assert_eq!(c.to_string().parse::<Coord>(), Ok(c));
        prop_assert_eq!(c.to_string().to_uppercase().parse::<Coord>(), Ok(c));
    }

    #[test]
    fn numeric_coordinates_read_back_as_printed(x in any::<i32>(), y in any::<i32>()) {
        let c = Coord::Numeric { x, y };
        prop_assert_eq!(c.to_string().parse::<Coord>(), Ok(c));
    }

    #[test]
    fn points_read_back_in_both_notations(
        size in sizes(),
        a in any::<u16>(),
        b in any::<u16>(),
        shift in unbounded_shifts(),
    ) {
        let p = point_on(size, a, b, shift);
        prop_assert_eq!(parse_point(size, &point_name(size, p)), Ok(p));
        prop_assert_eq!(parse_point(size, &Coord::numeric(p).to_string()), Ok(p));
        if let Some(c) = Coord::renju(size, p) {
            prop_assert_eq!(c.to_point(size), Ok(p));
        }
    }

    #[test]
    fn reading_arbitrary_text_never_panics(text in ".{0,300}", size in sizes()) {
        let _ = Record::parse_auto(&text, size);
        for format in RecordFormat::ALL {
            check_round_trip(&text, format, size);
        }
    }

    #[test]
    fn reading_format_like_text_never_panics(
        text in "(Piskvorky |\\(;)?[()\\[\\];:,.#\\\\ \n0-9a-zA-Z+-]{0,200}",
        size in sizes(),
    ) {
        let _ = Record::parse_auto(&text, size);
        for format in RecordFormat::ALL {
            check_round_trip(&text, format, size);
        }
    }

    #[test]
    fn reading_mutated_records_never_panics(
        r in records(),
        format in formats(),
        changes in mutations(),
        size in sizes(),
    ) {
        // The unbounded board in psq or SGF has no text to mutate; use the plain list instead.
        let format = if can_hold(format, r.size) { format } else { RecordFormat::Plain };
        let text = r.write(format).expect("the format holds this board");
        let text = mutate(&text, &changes);
        let _ = Record::parse_auto(&text, size);
        for size in [size, r.size] {
            check_round_trip(&text, format, size);
        }
    }
}

#[test]
fn a_played_game_survives_every_format() {
    let size = BoardSize::rect(16, 14).expect("valid");
    let mut game = Game::new(size, Rule::Standard);
    for name in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"] {
        game.play(parse_point(size, name).expect("on the board"))
            .expect("legal");
    }
    let mut record = Record::from_game(&game);
    assert_eq!(record.result, Some(RecordResult::Black));
    record.black = Some("Tengen".into());
    record.white = Some("Opponent [v2]".into());
    for format in RecordFormat::ALL {
        let text = record.write(format).expect("16x14 fits every format");
        let back = Record::parse_auto(&text, size).expect("reads back");
        assert_eq!(back, record.normalized(format), "{format}");
        let replayed = back
            .replay(Rule::Standard, ForbiddenPolicy::Lose)
            .expect("legal");
        assert_eq!(replayed.outcome(), game.outcome(), "{format}");
    }
    let plain = record.write(RecordFormat::Plain).expect("writable");
    assert_eq!(plain, "h8 h9 i8 i9 j8 j9 k8 k9 l8\n");
}
