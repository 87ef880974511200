//! Piskvork's `.psq`, the format of Gomocup games.
//!
//! ```text
//! Piskvorky 15x15, 11:11, 0
//! 8,8,1200
//! 9,7,850
//! -1
//! pbrain-black.exe
//! pbrain-white.exe
//! ```
//!
//! The header gives the board as `WxH`; what follows the size on it means nothing to us. Each move
//! is `x,y,ms` (or just `x,y`), 1-based, `x` the column from the left and `y` the row from the top,
//! `ms` the thinking time. The moves end at the first line that is not one (a line that starts as
//! one, two numbers and more fields, is a damaged move and refused); of the lines after
//! them, the first two that are text rather than numbers name black's and white's engines (in
//! whichever order Piskvork and other tools put them around the `-1` line), and the rest are
//! ignored. Blank lines are skipped everywhere.

use super::{Record, RecordError, RecordFormat, checked, syntax};
use crate::excerpt::excerpt;
use crate::{BoardSize, CoordError, Point, SizeError};

/// The word a psq record starts with.
pub(super) const MAGIC: &str = "Piskvorky";

// Written in place of a missing name when the other one is known, and read back as no name.
const NO_NAME: &str = "?";

pub(super) fn parse(text: &str) -> Result<Record, RecordError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let Some((header_line, header)) = lines.by_ref().find(|(_, l)| !l.is_empty()) else {
        return Err(syntax(
            1,
            "empty psq record (expected a `Piskvorky WxH, ...` header)",
        ));
    };
    let size = header_size(header_line, header)?;
    let mut record = Record::new(size);
    let mut names: Vec<Option<String>> = Vec::new();
    let mut in_moves = true;
    for (line, text) in lines {
        if text.is_empty() {
            continue;
        }
        if in_moves {
            if let Some(fields) = move_fields(text) {
                let (p, ms) = read_move(size, line, record.moves.len() + 1, &fields)?;
                record.moves.push(p);
                record.times_ms.push(ms);
                continue;
            }
            // A line that starts as a move but is not one is a damaged move, not the end of
            // the moves: read as the end, it would drop the rest of the game unnoticed.
            if looks_like_a_move(text) {
                return Err(syntax(
                    line,
                    format!(
                        "{} is not a move (expected x,y or x,y,ms, whole numbers)",
                        excerpt(text)
                    ),
                ));
            }
            in_moves = false;
        }
        if names.len() < 2 {
            let name = sanitize(text);
            if !name.is_empty() && !number_like(&name) {
                names.push((name != NO_NAME).then_some(name));
            }
        }
    }
    let mut names = names.into_iter();
    record.black = names.next().flatten();
    record.white = names.next().flatten();
    Ok(record)
}

fn header_size(line: usize, header: &str) -> Result<BoardSize, RecordError> {
    let rest = header
        .get(..MAGIC.len())
        .filter(|magic| magic.eq_ignore_ascii_case(MAGIC))
        .and_then(|_| header.get(MAGIC.len()..))
        .ok_or_else(|| syntax(line, "expected the psq header `Piskvorky WxH, ...`"))?;
    let token = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|t| !t.is_empty())
        .ok_or_else(|| syntax(line, "the psq header has no board size (like 15x15)"))?;
    let (w, h) = token.split_once(['x', 'X']).unwrap_or((token, token));
    let side = |n: &str| {
        n.parse::<u32>().map_err(|_| RecordError::Size {
            line,
            error: SizeError::Syntax(excerpt(token)),
        })
    };
    BoardSize::rect(side(w)?, side(h)?).map_err(|error| RecordError::Size { line, error })
}

// The fields of a move line, `x,y,ms` or `x,y`, all integers; `None` for any other line.
fn move_fields(text: &str) -> Option<Vec<&str>> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    ((2..=3).contains(&fields.len()) && fields.iter().all(|f| integer(f))).then_some(fields)
}

fn read_move(
    size: BoardSize,
    line: usize,
    move_number: usize,
    fields: &[&str],
) -> Result<(Point, Option<u32>), RecordError> {
    // 1-based to 0-based; a number too large for i32 is simply off the board.
    let coord = |t: &str| {
        t.parse::<i64>()
            .ok()
            .and_then(|v| i32::try_from(v.checked_sub(1)?).ok())
    };
    let point = match (coord(fields[0]), coord(fields[1])) {
        (Some(x), Some(y)) if size.contains(Point::new(x, y)) => Point::new(x, y),
        _ => {
            return Err(RecordError::Coord {
                line,
                move_number,
                error: CoordError::OffBoard(excerpt(&format!("{},{}", fields[0], fields[1])), size),
            });
        }
    };
    let ms = match fields.get(2) {
        None => None,
        Some(t) => Some(t.parse::<u32>().map_err(|_| {
            syntax(
                line,
                format!(
                    "thinking time {} is not a number of milliseconds (0 to {})",
                    excerpt(t),
                    u32::MAX
                ),
            )
        })?),
    };
    Ok((point, ms))
}

// Two whole numbers first, then more than a move holds or a time that is not a number.
// (`1,Freestyle` and `-1`, which some tools write after the moves, are not.)
fn looks_like_a_move(text: &str) -> bool {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    fields.len() >= 3 && integer(fields[0]) && integer(fields[1])
}

// An optional sign and at least one digit: a field of a move line, or a line of numbers.
fn integer(t: &str) -> bool {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

// Lines such as `-1` or `1,Freestyle` after the moves are not names.
fn number_like(text: &str) -> bool {
    text.split(',').next().is_some_and(|f| integer(f.trim()))
}

// A name must stay on its line and read back the same.
fn sanitize(name: &str) -> String {
    let one_line: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    one_line.trim().to_string()
}

/// The name as psq reads it back: one line of text, not a number and not the `?` placeholder.
pub(super) fn clean_name(name: &str) -> Option<String> {
    let name = sanitize(name);
    (!name.is_empty() && !number_like(&name) && name != NO_NAME).then_some(name)
}

pub(super) fn write(r: &Record) -> Result<String, RecordError> {
    let (Some(w), Some(h)) = (r.size.width(), r.size.height()) else {
        return Err(RecordError::UnsupportedBoard {
            format: RecordFormat::Psq,
            size: r.size,
        });
    };
    let mut out = format!("{MAGIC} {w}x{h}, 11:11, 0\n");
    for (i, &p) in r.moves.iter().enumerate() {
        let p = checked(r, i, p)?;
        let ms = r.times_ms.get(i).copied().flatten().unwrap_or(0);
        out.push_str(&format!("{},{},{ms}\n", p.x + 1, p.y + 1));
    }
    let black = r.black.as_deref().and_then(clean_name);
    let white = r.white.as_deref().and_then(clean_name);
    if black.is_some() || white.is_some() {
        out.push_str("-1\n");
        for name in [black, white] {
            out.push_str(name.as_deref().unwrap_or(NO_NAME));
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Record, RecordError> {
        Record::parse(text, RecordFormat::Psq, BoardSize::STANDARD)
    }

    fn p(x: i32, y: i32) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn a_gomocup_game() {
        let text = "Piskvorky 20x20, 11:11, 0\r\n10,10,0\r\n11,9,1203\r\n\r\n12,8,77\r\n\
                    -1\r\npbrain-embryo.zip\r\npbrain-yixin.zip\r\n3\r\n";
        let r = read(text).expect("valid");
        assert_eq!(r.size, BoardSize::square(20).expect("valid"));
        assert_eq!(r.moves, vec![p(9, 9), p(10, 8), p(11, 7)]);
        assert_eq!(r.times_ms, vec![Some(0), Some(1203), Some(77)]);
        assert_eq!(r.black.as_deref(), Some("pbrain-embryo.zip"));
        assert_eq!(r.white.as_deref(), Some("pbrain-yixin.zip"));
        assert_eq!((r.rule, r.result), (None, None));
        let out = r.write(RecordFormat::Psq).expect("writable");
        assert_eq!(
            out,
            "Piskvorky 20x20, 11:11, 0\n10,10,0\n11,9,1203\n12,8,77\n-1\n\
             pbrain-embryo.zip\npbrain-yixin.zip\n"
        );
        assert_eq!(read(&out), Ok(r));
    }

    #[test]
    fn trailing_lines_in_other_orders() {
        // Names before the -1 line, then a line of numbers and words.
        let r = read(
            "piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\nAlphaZero 1\nAlphaZero 2\n-1\n1,Freestyle\n",
        )
        .expect("valid");
        assert_eq!(r.moves.len(), 2);
        assert_eq!(r.black.as_deref(), Some("AlphaZero 1"));
        assert_eq!(r.white.as_deref(), Some("AlphaZero 2"));
        // Only numbers after the moves; moves without times.
        let r = read("Piskvorky 15x15, 11:11, 0\n8,8\n 9 , 9 \n-1\n0\n").expect("valid");
        assert_eq!(r.moves, vec![p(7, 7), p(8, 8)]);
        assert_eq!(r.times_ms, vec![None, None]);
        assert_eq!((r.black, r.white), (None, None));
        // The moves end at the first other line, even if moves follow.
        let r = read("Piskvorky 15x15\n8,8,5\nend\n9,9,0\nwhite\nthird\n").expect("valid");
        assert_eq!(r.moves, vec![p(7, 7)]);
        assert_eq!(r.black.as_deref(), Some("end"));
        assert_eq!(r.white.as_deref(), Some("white"));
        // A header alone is an empty game.
        assert_eq!(
            read("Piskvorky 15x15, 11:11, 0"),
            Ok(Record::new(BoardSize::STANDARD))
        );
    }

    #[test]
    fn names_round_trip_one_at_a_time() {
        let mut r = Record::new(BoardSize::STANDARD);
        r.white = Some("only white".into());
        let text = r.write(RecordFormat::Psq).expect("writable");
        assert_eq!(text, "Piskvorky 15x15, 11:11, 0\n-1\n?\nonly white\n");
        assert_eq!(read(&text), Ok(r.clone()));
        r.white = None;
        r.black = Some("two\nlines".into());
        let text = r.write(RecordFormat::Psq).expect("writable");
        assert_eq!(
            read(&text).expect("valid").black.as_deref(),
            Some("two lines")
        );
        r.black = Some("42".into());
        assert_eq!(
            r.write(RecordFormat::Psq).as_deref(),
            Ok("Piskvorky 15x15, 11:11, 0\n")
        );
    }

    #[test]
    fn rectangular_and_large_boards() {
        let r = read("Piskvorky 16x14, 11:11, 0\n16,1,0\n1,14,0\n").expect("valid");
        assert_eq!(r.size, BoardSize::rect(16, 14).expect("valid"));
        assert_eq!(r.moves, vec![p(15, 0), p(0, 13)]);
        assert!(matches!(
            read("Piskvorky 16x14, 11:11, 0\n1,15,0\n"),
            Err(RecordError::Coord { line: 2, .. })
        ));
        assert!(read("Piskvorky 16x14, 11:11, 0\n17,1,0\n").is_err());
        let big = read("Piskvorky 100x100, 11:11, 0\n100,100,1\n1,1,2\n").expect("valid");
        assert_eq!(big.moves, vec![p(99, 99), p(0, 0)]);
        let text = big.write(RecordFormat::Psq).expect("writable");
        assert!(text.starts_with("Piskvorky 100x100, 11:11, 0\n100,100,1\n"));
        assert_eq!(read(&text), Ok(big));
    }

    #[test]
    fn malformed_records() {
        let err = |t: &str| read(t).expect_err(t);
        // A damaged move is refused where it stands, not taken for the end of the moves.
        for damaged in ["8,8,abc", "9,9,1,2,3"] {
            let e = err(&format!(
                "Piskvorky 15x15, 0\n8,8,100\n{damaged}\n9,9\n-1\n"
            ));
            assert!(matches!(e, RecordError::Syntax { line: 3, .. }), "{e}");
            assert!(e.to_string().contains("is not a move"), "{e}");
        }
        // What tools write after the moves still ends them.
        let r = read("Piskvorky 15x15, 0\n8,8,100\n1,Freestyle\n-1\n").expect("valid");
        assert_eq!(r.moves.len(), 1);
        assert!(matches!(err(""), RecordError::Syntax { line: 1, .. }));
        assert!(matches!(
            err("\n\n  \n"),
            RecordError::Syntax { line: 1, .. }
        ));
        assert!(matches!(err("h8 i9"), RecordError::Syntax { line: 1, .. }));
        assert!(matches!(
            err("\nPiskvorky"),
            RecordError::Syntax { line: 2, .. }
        ));
        assert!(matches!(
            err("Piskvorky"),
            RecordError::Syntax { line: 1, .. }
        ));
        assert!(matches!(err("Piskvorky , 11:11"), RecordError::Size { .. }));
        assert!(matches!(
            err("Piskvorky 4x4, 11:11, 0"),
            RecordError::Size {
                line: 1,
                error: SizeError::OutOfRange(4)
            }
        ));
        assert!(matches!(
            err("Piskvorky 101x15, 0"),
            RecordError::Size { .. }
        ));
        assert!(matches!(
            err("Piskvorky axb, 0"),
            RecordError::Size {
                error: SizeError::Syntax(_),
                ..
            }
        ));
        assert!(matches!(
            err("Piskvorky 99999999999x5"),
            RecordError::Size { .. }
        ));
        let e = err("Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n");
        assert_eq!(
            e,
            RecordError::Coord {
                line: 3,
                move_number: 2,
                error: CoordError::OffBoard("16,1".into(), BoardSize::STANDARD),
            }
        );
        for bad in ["0,1", "1,0", "-1,5", "99999999999999999999999,1", "5,5,-1"] {
            let text = format!("Piskvorky 15x15, 11:11, 0\n{bad}\n");
            assert!(
                matches!(
                    err(&text),
                    RecordError::Coord { line: 2, .. } | RecordError::Syntax { line: 2, .. }
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            err("Piskvorky 15x15, 11:11, 0\n5,5,4294967296\n"),
            RecordError::Syntax { line: 2, .. }
        ));
    }

    #[test]
    fn unbounded_is_refused() {
        let mut r = Record::new(BoardSize::UNBOUNDED);
        r.moves.push(p(0, 0));
        assert_eq!(
            r.write(RecordFormat::Psq),
            Err(RecordError::UnsupportedBoard {
                format: RecordFormat::Psq,
                size: BoardSize::UNBOUNDED,
            })
        );
        assert!(matches!(
            err_unbounded("Piskvorky unbounded, 0"),
            RecordError::Size { .. }
        ));
    }

    fn err_unbounded(text: &str) -> RecordError {
        Record::parse(text, RecordFormat::Psq, BoardSize::UNBOUNDED).expect_err("no unbounded psq")
    }
}
