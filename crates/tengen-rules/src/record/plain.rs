//! The plain move list: `h8 i9 j10`, or `7,7 8,6 9,5`.
//!
//! Reading splits on whitespace and `;` (a comma cannot separate moves, since `x,y` holds one) and
//! takes each token in either notation. To read lists as people paste them it also skips move
//! numbers (`1.`, `12.h8`), `#` comments to the end of the line, spaces around the comma of `7, 7`,
//! and splits renju tokens joined by commas (`h8,i9`), which cannot be `x,y`.

use super::{Record, RecordError, checked};
use crate::{BoardSize, Coord};

pub(super) fn parse(text: &str, size: BoardSize) -> Result<Record, RecordError> {
    let mut record = Record::new(size);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or_default();
        let content = tighten_commas(content);
        let tokens = content
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|t| !t.is_empty());
        for token in tokens {
            let coord = skip_move_number(token);
            if coord.is_empty() {
                continue;
            }
            // Letters mean renju notation, which has no comma of its own: commas separate moves.
            let pieces: Vec<&str> = if coord.bytes().any(|b| b.is_ascii_alphabetic()) {
                coord.split(',').filter(|t| !t.is_empty()).collect()
            } else {
                vec![coord]
            };
            for piece in pieces {
                let point = piece
                    .parse::<Coord>()
                    .and_then(|c| c.to_point(size))
                    .map_err(|error| RecordError::Coord {
                        line,
                        move_number: record.moves.len() + 1,
                        error,
                    })?;
                record.moves.push(point);
            }
        }
    }
    record.times_ms = vec![None; record.moves.len()];
    Ok(record)
}

// `12.h8` -> `h8`, `12.` -> ``; anything else unchanged.
fn skip_move_number(token: &str) -> &str {
    match token.split_once('.') {
        Some((number, rest))
            if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) =>
        {
            rest
        }
        _ => token,
    }
}

// Drops whitespace next to a comma and turns other runs of whitespace into one space, so that
// `7 , 7` is the single token `7,7`.
fn tighten_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty() && !out.ends_with(',');
        } else {
            if space && c != ',' {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

pub(super) fn write(r: &Record) -> Result<String, RecordError> {
    let mut names = Vec::with_capacity(r.moves.len());
    for (i, &p) in r.moves.iter().enumerate() {
        let p = checked(r, i, p)?;
        // Renju notation where it exists (bounded boards), x,y on the unbounded board.
        let coord = Coord::renju(r.size, p).unwrap_or(Coord::numeric(p));
        names.push(coord.to_string());
    }
    let mut out = names.join(" ");
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CoordError, Point, RecordFormat};

    fn read(text: &str, size: BoardSize) -> Result<Vec<Point>, RecordError> {
        Record::parse(text, RecordFormat::Plain, size).map(|r| r.moves)
    }

    fn p(x: i32, y: i32) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn both_notations_numbers_and_comments() {
        let s = BoardSize::STANDARD;
        let want = vec![p(7, 7), p(8, 6), p(9, 5)];
        assert_eq!(read("h8 i9 j10", s), Ok(want.clone()));
        assert_eq!(read("H8;I9;J10\n", s), Ok(want.clone()));
        assert_eq!(read("7,7 8,6\r\n9,5", s), Ok(want.clone()));
        assert_eq!(read("7 , 7\t8 ,6 9, 5", s), Ok(want.clone()));
        assert_eq!(read("1. h8 i9 2. 9,5", s), Ok(want.clone()));
        assert_eq!(read("1.h8 2.i9 3.j10", s), Ok(want.clone()));
        assert_eq!(read("h8,i9,j10", s), Ok(want.clone()));
        assert_eq!(
            read("# a game\nh8 i9 # centre first\n\n   # more\nj10\n", s),
            Ok(want)
        );
        assert_eq!(read("", s), Ok(vec![]));
        assert_eq!(read(" \n# nothing\n1.\n", s), Ok(vec![]));
    }

    #[test]
    fn errors_name_line_and_move() {
        let s = BoardSize::STANDARD;
        let e = read("h8 i9\n1. j10 p1", s).expect_err("p1 is off 15x15");
        assert_eq!(
            e,
            RecordError::Coord {
                line: 2,
                move_number: 4,
                error: CoordError::OffBoard("p1".into(), s),
            }
        );
        assert_eq!(
            e.to_string(),
            "line 2, move 4: coordinate p1 is off the 15x15 board"
        );
        for bad in ["h8 x", "7,7,7", "15,0", "h8 -1,3", "h0", "8h", "a.b", "é8"] {
            assert!(
                matches!(read(bad, s), Err(RecordError::Coord { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            read("h8", BoardSize::UNBOUNDED),
            Err(RecordError::Coord {
                error: CoordError::RenjuOnUnbounded(_),
                ..
            })
        ));
    }

    #[test]
    fn rectangular_and_large_boards() {
        let s = BoardSize::rect(16, 14).expect("valid");
        assert_eq!(read("a1 p14", s), Ok(vec![p(0, 13), p(15, 0)]));
        assert!(read("a15", s).is_err());
        assert!(read("q1", s).is_err());
        let r = Record::parse("a1 p14 15,13", RecordFormat::Plain, s).expect("valid");
        assert_eq!(r.write(RecordFormat::Plain).as_deref(), Ok("a1 p14 p1\n"));

        let big = BoardSize::square(100).expect("valid");
        let r = Record::parse("cv100 a1 99,99 az52", RecordFormat::Plain, big).expect("valid");
        assert_eq!(r.moves, vec![p(99, 0), p(0, 99), p(99, 99), p(51, 48)]);
        let text = r.write(RecordFormat::Plain).expect("writable");
        assert_eq!(text, "cv100 a1 cv1 az52\n");
        assert_eq!(Record::parse(&text, RecordFormat::Plain, big), Ok(r));
    }

    #[test]
    fn unbounded_board_uses_numbers() {
        let s = BoardSize::UNBOUNDED;
        let r = Record::parse("0,0 -1,-1 -1000000000,1000000000", RecordFormat::Plain, s)
            .expect("valid");
        assert_eq!(r.moves[2], p(-1_000_000_000, 1_000_000_000));
        let text = r.write(RecordFormat::Plain).expect("writable");
        assert_eq!(text, "0,0 -1,-1 -1000000000,1000000000\n");
        assert_eq!(Record::parse(&text, RecordFormat::Plain, s), Ok(r));
        // Past the unbounded board's coordinate bound, and past i32.
        for far in ["1000000001,0", "-2147483648,2147483647", "0,2147483647"] {
            assert!(
                matches!(
                    read(far, s),
                    Err(RecordError::Coord {
                        error: CoordError::OffBoard(..),
                        ..
                    })
                ),
                "{far}"
            );
        }
        assert!(read("2147483648,0", s).is_err());
        assert_eq!(
            Record::new(s).write(RecordFormat::Plain).as_deref(),
            Ok("\n")
        );
    }
}
