//! Smart Game Format (FF[4]) for gomoku, `GM[4]`.
//!
//! ```text
//! (;GM[4]FF[4]CA[UTF-8]SZ[15]RU[renju]PB[Alice]PW[Bob]RE[W+]
//! ;B[hh];W[ih];B[ii])
//! ```
//!
//! A point is two letters, the column then the row from the top-left corner, each `a`..`z` then
//! `A`..`Z`: 52 lines at most. `SZ[W:H]` is a rectangular board. Reading takes the main line (the
//! first variation at every branch) of the first game in the file, ignores unknown properties,
//! reads root properties from any node of the main line (the first occurrence counts), and
//! refuses what a list of moves cannot hold: setup stones, passes, moves out of turn, and games
//! other than gomoku.

use super::{Record, RecordError, RecordFormat, RecordResult, checked, clean_name, syntax};
use crate::excerpt::excerpt;
use crate::{BoardSize, Color, CoordError, Point, Rule};

// The 52 letters give 52 lines per side.
const MAX_SIDE: u32 = 52;

pub(super) fn parse(text: &str, size_hint: BoardSize) -> Result<Record, RecordError> {
    let mut s = Scanner {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        line: 1,
    };
    s.skip_whitespace();
    if s.bump() != Some(b'(') {
        return Err(syntax(s.line, "an SGF game must start with '('"));
    }
    let mut main = MainLine::default();
    let mut depth = 1usize;
    // In preorder, the main line is every node before the first ')'. Scanning (not recursing)
    // keeps any nesting depth safe.
    let mut on_main_line = true;
    let mut in_node = false;
    let mut node = 0usize;
    loop {
        s.skip_whitespace();
        let line = s.line;
        match s.bump() {
            None => return Err(syntax(line, "the SGF game ends without its closing ')'")),
            Some(b'(') => {
                depth += 1;
                in_node = false;
            }
            Some(b')') => {
                depth -= 1;
                on_main_line = false;
                in_node = false;
                if depth == 0 {
                    break;
                }
            }
            Some(b';') => {
                in_node = true;
                node += 1;
            }
            Some(first) if first.is_ascii_alphabetic() => {
                if !in_node {
                    return Err(syntax(line, "a property outside a node (missing ';')"));
                }
                // FF[3] allowed lowercase letters in names (`PlayerBlack` for `PB`); they do
                // not count.
                let mut ident = String::new();
                let mut letter = Some(first);
                while let Some(b) = letter {
                    if b.is_ascii_uppercase() {
                        ident.push(char::from(b));
                    }
                    letter = s.peek().filter(u8::is_ascii_alphabetic);
                    if letter.is_some() {
                        s.bump();
                    }
                }
                let mut values = Vec::new();
                loop {
                    s.skip_whitespace();
                    if s.peek() != Some(b'[') {
                        break;
                    }
                    s.bump();
                    values.push(s.value()?);
                }
                if values.is_empty() {
                    return Err(syntax(
                        line,
                        format!("property {} has no value", excerpt(&ident)),
                    ));
                }
                if on_main_line {
                    main.take(&ident, values, line, node)?;
                }
            }
            Some(_) => {
                let c = s
                    .text
                    .get(s.pos - 1..)
                    .and_then(|t| t.chars().next())
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                return Err(syntax(line, format!("unexpected {c:?} in SGF")));
            }
        }
    }
    // Anything after the first game (more games of a collection) is ignored.
    main.finish(size_hint)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.bump();
        }
    }

    // A value's text, just after its '[': `\` escapes the next character, and `\` before a line
    // break removes both (a soft line break).
    fn value(&mut self) -> Result<String, RecordError> {
        let start = self.line;
        let unclosed = || syntax(start, "a property value is never closed with ']'");
        let mut out = Vec::new();
        loop {
            match self.bump().ok_or_else(unclosed)? {
                b']' => break,
                b'\\' => match self.bump().ok_or_else(unclosed)? {
                    b'\n' => {
                        if self.peek() == Some(b'\r') {
                            self.bump();
                        }
                    }
                    b'\r' => {
                        if self.peek() == Some(b'\n') {
                            self.bump();
                        }
                    }
                    b => out.push(b),
                },
                b => out.push(b),
            }
        }
        // Only whole ASCII characters were removed from valid UTF-8, so this loses nothing.
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

struct RawMove {
    color: Color,
    value: String,
    line: usize,
    node: usize,
}

// What the main line says, before it is checked against the board.
#[derive(Default)]
struct MainLine {
    game: Option<(usize, String)>,
    size: Option<(usize, String)>,
    rule: Option<(usize, String)>,
    black: Option<String>,
    white: Option<String>,
    result: Option<String>,
    moves: Vec<RawMove>,
}

impl MainLine {
    fn take(
        &mut self,
        ident: &str,
        values: Vec<String>,
        line: usize,
        node: usize,
    ) -> Result<(), RecordError> {
        let count = values.len();
        let first = values.into_iter().next().unwrap_or_default();
        let color = match ident {
            "B" => Color::Black,
            "W" => Color::White,
            "AB" | "AW" | "AE" => {
                return Err(RecordError::SetupStones {
                    line,
                    property: excerpt(ident),
                });
            }
            "GM" => {
                self.game.get_or_insert((line, first));
                return Ok(());
            }
            "SZ" => {
                self.size.get_or_insert((line, first));
                return Ok(());
            }
            "RU" => {
                self.rule.get_or_insert((line, first));
                return Ok(());
            }
            "PB" => {
                self.black.get_or_insert(first);
                return Ok(());
            }
            "PW" => {
                self.white.get_or_insert(first);
                return Ok(());
            }
            "RE" => {
                self.result.get_or_insert(first);
                return Ok(());
            }
            _ => return Ok(()),
        };
        if count != 1 {
            return Err(syntax(
                line,
                format!("move {ident} has {count} values (a move is one point)"),
            ));
        }
        self.moves.push(RawMove {
            color,
            value: first,
            line,
            node,
        });
        Ok(())
    }

    fn finish(self, size_hint: BoardSize) -> Result<Record, RecordError> {
        if let Some((line, game)) = self.game {
            if game.trim().parse::<u32>() != Ok(4) {
                return Err(RecordError::NotGomoku {
                    line,
                    game: excerpt(&game),
                });
            }
        }
        let size = match self.size {
            Some((line, text)) => read_size(line, &text)?,
            None if fits(size_hint) => size_hint,
            // SGF's default for gomoku.
            None => BoardSize::STANDARD,
        };
        let mut record = Record::new(size);
        record.rule = match self.rule {
            Some((line, text)) if !text.trim().is_empty() => {
                Some(read_rule(&text).ok_or_else(|| RecordError::UnknownRule {
                    line,
                    rule: excerpt(&text),
                })?)
            }
            _ => None,
        };
        record.black = self.black.as_deref().and_then(clean_name);
        record.white = self.white.as_deref().and_then(clean_name);
        record.result = self.result.as_deref().and_then(read_result);
        let mut last_node = None;
        for (i, m) in self.moves.into_iter().enumerate() {
            let move_number = i + 1;
            if last_node == Some(m.node) {
                return Err(syntax(m.line, "two moves in one node"));
            }
            last_node = Some(m.node);
            let expected = Color::of_ply(i);
            if m.color != expected {
                return Err(RecordError::OutOfTurn {
                    line: m.line,
                    move_number,
                    expected,
                });
            }
            let value = m.value.trim();
            if value.is_empty() {
                return Err(syntax(
                    m.line,
                    format!("move {move_number} is a pass, which gomoku does not have"),
                ));
            }
            let point = read_point(value).ok_or_else(|| {
                syntax(
                    m.line,
                    format!(
                        "cannot read SGF move {:?} (expected two letters, like hh)",
                        excerpt(value)
                    ),
                )
            })?;
            if !size.contains(point) {
                return Err(RecordError::Coord {
                    line: m.line,
                    move_number,
                    error: CoordError::OffBoard(value.to_string(), size),
                });
            }
            record.moves.push(point);
        }
        record.times_ms = vec![None; record.moves.len()];
        Ok(record)
    }
}

fn fits(size: BoardSize) -> bool {
    matches!((size.width(), size.height()), (Some(w), Some(h)) if w <= MAX_SIDE && h <= MAX_SIDE)
}

fn read_size(line: usize, text: &str) -> Result<BoardSize, RecordError> {
    let t = text.trim();
    let (w, h) = t.split_once(':').unwrap_or((t, t));
    let side = |n: &str| {
        n.trim().parse::<u32>().map_err(|_| RecordError::Size {
            line,
            error: crate::SizeError::Syntax(excerpt(text)),
        })
    };
    let size =
        BoardSize::rect(side(w)?, side(h)?).map_err(|error| RecordError::Size { line, error })?;
    if fits(size) {
        Ok(size)
    } else {
        Err(RecordError::UnsupportedBoard {
            format: RecordFormat::Sgf,
            size,
        })
    }
}

// The rule's own names and aliases, then the usual words inside longer names ("RIF renju",
// "Gomoku (standard)"). An unknown rule is no rule rather than an error: the moves are still good.
fn read_rule(text: &str) -> Option<Rule> {
    if let Ok(rule) = text.parse::<Rule>() {
        return Some(rule);
    }
    let t = text.to_ascii_lowercase();
    // Piskvork's "Caro with overlines", where "caro" alone is its "standard Caro".
    if t.contains("caro") && t.contains("overline") {
        return Some(Rule::CaroOverlines);
    }
    // Renju's opening rules name renju; gomoku's (swap, swap2, pro) name gomoku, read as
    // freestyle as the plain word is.
    [
        ("renju", Rule::Renju),
        ("rif", Rule::Renju),
        ("yamaguchi", Rule::Renju),
        ("taraguchi", Rule::Renju),
        ("soosorv", Rule::Renju),
        ("sakata", Rule::Renju),
        ("caro", Rule::Caro),
        ("standard", Rule::Standard),
        ("exact", Rule::Standard),
        ("free", Rule::Freestyle),
        ("gomoku", Rule::Freestyle),
        ("swap", Rule::Freestyle),
        ("pro", Rule::Freestyle),
    ]
    .into_iter()
    .find(|(word, _)| t.contains(word))
    .map(|(_, rule)| rule)
}

// `B+`, `B+R`, `W+T`..., `0` or `Draw`; anything else (`?`, `Void`) says nothing.
fn read_result(text: &str) -> Option<RecordResult> {
    let t = text.trim().to_ascii_uppercase();
    if t.starts_with("B+") || t == "B" || t.starts_with("BLACK") {
        Some(RecordResult::Black)
    } else if t.starts_with("W+") || t == "W" || t.starts_with("WHITE") {
        Some(RecordResult::White)
    } else if t == "0" || t.starts_with("DRAW") || t == "JIGO" {
        Some(RecordResult::Draw)
    } else {
        None
    }
}

fn read_point(value: &str) -> Option<Point> {
    let index = |b: u8| match b {
        b'a'..=b'z' => Some(i32::from(b - b'a')),
        b'A'..=b'Z' => Some(i32::from(b - b'A') + 26),
        _ => None,
    };
    match *value.as_bytes() {
        [x, y] => Some(Point::new(index(x)?, index(y)?)),
        _ => None,
    }
}

fn letter(i: i32) -> char {
    let b = match u8::try_from(i) {
        Ok(i @ 0..=25) => b'a' + i,
        Ok(i @ 26..=51) => b'A' + (i - 26),
        // Callers check the point is on a board of at most 52 lines.
        _ => b'?',
    };
    char::from(b)
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

pub(super) fn write(r: &Record) -> Result<String, RecordError> {
    let (Some(w), Some(h)) = (r.size.width(), r.size.height()) else {
        return Err(RecordError::UnsupportedBoard {
            format: RecordFormat::Sgf,
            size: r.size,
        });
    };
    if !fits(r.size) {
        return Err(RecordError::UnsupportedBoard {
            format: RecordFormat::Sgf,
            size: r.size,
        });
    }
    let mut out = String::from("(;GM[4]FF[4]CA[UTF-8]");
    if w == h {
        out.push_str(&format!("SZ[{w}]"));
    } else {
        out.push_str(&format!("SZ[{w}:{h}]"));
    }
    if let Some(rule) = r.rule {
        out.push_str(&format!("RU[{}]", rule.name()));
    }
    if let Some(name) = &r.black {
        out.push_str(&format!("PB[{}]", escape(name)));
    }
    if let Some(name) = &r.white {
        out.push_str(&format!("PW[{}]", escape(name)));
    }
    if let Some(result) = r.result {
        out.push_str(match result {
            RecordResult::Black => "RE[B+]",
            RecordResult::White => "RE[W+]",
            RecordResult::Draw => "RE[0]",
        });
    }
    for (i, &p) in r.moves.iter().enumerate() {
        let p = checked(r, i, p)?;
        // Ten moves a line keeps long games readable.
        if i % 10 == 0 {
            out.push('\n');
        }
        let color = if i % 2 == 0 { 'B' } else { 'W' };
        out.push_str(&format!(";{color}[{}{}]", letter(p.x), letter(p.y)));
    }
    out.push_str(")\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SizeError;

    fn read(text: &str) -> Result<Record, RecordError> {
        Record::parse(text, RecordFormat::Sgf, BoardSize::STANDARD)
    }

    fn p(x: i32, y: i32) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn a_full_record() {
        let text = "(;GM[4]FF[4]SZ[15]RU[Renju]PB[Alice]PW[Bob]RE[B+R];B[hh];W[ih];B[ii])";
        let r = read(text).expect("valid");
        assert_eq!(r.size, BoardSize::STANDARD);
        assert_eq!(r.rule, Some(Rule::Renju));
        assert_eq!(r.moves, vec![p(7, 7), p(8, 7), p(8, 8)]);
        assert_eq!(r.times_ms, vec![None; 3]);
        assert_eq!(r.black.as_deref(), Some("Alice"));
        assert_eq!(r.white.as_deref(), Some("Bob"));
        assert_eq!(r.result, Some(RecordResult::Black));
        let out = r.write(RecordFormat::Sgf).expect("writable");
        assert_eq!(
            out,
            "(;GM[4]FF[4]CA[UTF-8]SZ[15]RU[renju]PB[Alice]PW[Bob]RE[B+]\n;B[hh];W[ih];B[ii])\n"
        );
        assert_eq!(read(&out), Ok(r));
    }

    #[test]
    fn robust_reading() {
        // Whitespace everywhere, escapes, unknown and multi-valued properties, FF[3] long names,
        // a soft line break, variations (only the first counts), a second game ignored.
        let text = "\u{feff}  ( ; GM [4] FF[3] SZ [15]\n AP[x:1][y] PlayerBlack[A\\]l\\\\ice] \
                    PW[Bo\\\nb] C[a comment (with parens; and [brackets\\])]\n\
                    ;B[hh] (;W[ih];B[ii](;W[jj])(;W[kk]))(;W[aa])) (;B[aa])";
        let r = read(text).expect("valid");
        assert_eq!(r.moves, vec![p(7, 7), p(8, 7), p(8, 8), p(9, 9)]);
        assert_eq!(r.black.as_deref(), Some("A]l\\ice"));
        assert_eq!(r.white.as_deref(), Some("Bob"));
        let r2 = read(&r.write(RecordFormat::Sgf).expect("writable")).expect("valid");
        assert_eq!(r2, r);
        // The main line may be empty, and a move may sit in the root node.
        assert_eq!(read("(;GM[4]SZ[15])").expect("valid").moves, vec![]);
        assert_eq!(read("(;SZ[15]B[aa];W[bb])").expect("valid").moves.len(), 2);
    }

    #[test]
    fn rules_and_results() {
        let rule = |ru: &str| read(&format!("(;RU[{ru}])")).expect("valid").rule;
        assert_eq!(rule("freestyle"), Some(Rule::Freestyle));
        assert_eq!(rule("Gomoku"), Some(Rule::Freestyle));
        assert_eq!(rule("FREE"), Some(Rule::Freestyle));
        assert_eq!(rule("exact"), Some(Rule::Standard));
        assert_eq!(rule("Standard Gomoku"), Some(Rule::Standard));
        assert_eq!(rule("RIF"), Some(Rule::Renju));
        assert_eq!(rule("caro"), Some(Rule::Caro));
        assert_eq!(rule("Standard Caro"), Some(Rule::Caro));
        assert_eq!(rule("caro-overlines"), Some(Rule::CaroOverlines));
        assert_eq!(rule("Caro with overlines"), Some(Rule::CaroOverlines));
        assert_eq!(rule("Yamaguchi"), Some(Rule::Renju));
        assert_eq!(rule("swap2"), Some(Rule::Freestyle));
        assert_eq!(rule(""), None);
        // A rule not played here is refused, not read as freestyle.
        let e = read("(;GM[4]\nRU[chess];B[hh])").expect_err("not a rule of ours");
        assert_eq!(
            e.to_string(),
            "line 2: the SGF rule RU[chess] is not one played here (freestyle, standard, renju, caro or caro-overlines)"
        );
        let result = |re: &str| read(&format!("(;RE[{re}])")).expect("valid").result;
        assert_eq!(result("W+"), Some(RecordResult::White));
        assert_eq!(result("W+Time"), Some(RecordResult::White));
        assert_eq!(result("b+"), Some(RecordResult::Black));
        assert_eq!(result("0"), Some(RecordResult::Draw));
        assert_eq!(result("Draw"), Some(RecordResult::Draw));
        assert_eq!(result("?"), None);
        assert_eq!(result("Void"), None);
        for res in [RecordResult::Black, RecordResult::White, RecordResult::Draw] {
            let mut r = Record::new(BoardSize::STANDARD);
            r.result = Some(res);
            for rule in Rule::ALL {
                r.rule = Some(rule);
                assert_eq!(
                    read(&r.write(RecordFormat::Sgf).expect("writable")),
                    Ok(r.clone())
                );
            }
        }
    }

    #[test]
    fn board_sizes() {
        let r = read("(;SZ[16:14];B[pa];W[an])").expect("valid");
        assert_eq!(r.size, BoardSize::rect(16, 14).expect("valid"));
        assert_eq!(r.moves, vec![p(15, 0), p(0, 13)]);
        let out = r.write(RecordFormat::Sgf).expect("writable");
        assert!(out.contains("SZ[16:14]"));
        assert_eq!(read(&out), Ok(r));
        assert!(matches!(
            read("(;SZ[16:14];B[ao])"),
            Err(RecordError::Coord { move_number: 1, .. })
        ));

        // Upper-case letters past z, up to 52 lines.
        let r = read("(;SZ[52];B[ZZ];W[Aa];B[zA])").expect("valid");
        assert_eq!(r.moves, vec![p(51, 51), p(26, 0), p(25, 26)]);
        assert_eq!(read(&r.write(RecordFormat::Sgf).expect("writable")), Ok(r));
        let big = BoardSize::square(100).expect("valid");
        assert_eq!(
            read("(;SZ[100])"),
            Err(RecordError::UnsupportedBoard {
                format: RecordFormat::Sgf,
                size: big
            })
        );
        assert!(read("(;SZ[53:20])").is_err());
        let mut r = Record::new(big);
        r.moves.push(p(0, 0));
        let e = r.write(RecordFormat::Sgf).expect_err("too big");
        assert!(e.to_string().contains("52"), "{e}");
        assert!(
            Record::new(BoardSize::UNBOUNDED)
                .write(RecordFormat::Sgf)
                .is_err()
        );

        // Without SZ, the caller's board if SGF can hold it, else SGF's 15x15.
        let s = BoardSize::rect(20, 10).expect("valid");
        assert_eq!(
            Record::parse("(;B[aa])", RecordFormat::Sgf, s)
                .expect("valid")
                .size,
            s
        );
        for hint in [big, BoardSize::UNBOUNDED] {
            let r = Record::parse("(;B[aa])", RecordFormat::Sgf, hint).expect("valid");
            assert_eq!(r.size, BoardSize::STANDARD);
        }
        assert!(matches!(
            read("(;SZ[4])"),
            Err(RecordError::Size {
                error: SizeError::OutOfRange(4),
                ..
            })
        ));
        assert!(matches!(read("(;SZ[x])"), Err(RecordError::Size { .. })));
    }

    #[test]
    fn malformed_records() {
        let err = |t: &str| read(t).expect_err(t);
        assert!(matches!(err(""), RecordError::Syntax { line: 1, .. }));
        assert!(matches!(err("h8"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[hh]"), RecordError::Syntax { .. }));
        assert!(matches!(
            err("(;B[hh];W[ii](;B[jj])"),
            RecordError::Syntax { .. }
        ));
        assert!(matches!(
            err("(;B[hh\n\n"),
            RecordError::Syntax { line: 1, .. }
        ));
        assert!(matches!(err("(;B[hh\\"), RecordError::Syntax { .. }));
        assert!(matches!(err("(B[hh])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B)"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[hh]é)"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[hh]W[ii])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[hh][ii])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[h])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[h8])"), RecordError::Syntax { .. }));
        assert!(matches!(err("(;B[hhh])"), RecordError::Syntax { .. }));
        assert!(matches!(
            err("(;B[hh]\n;W[ii]\n;W[jj])"),
            RecordError::OutOfTurn {
                line: 3,
                move_number: 3,
                expected: Color::Black
            }
        ));
        let e = err("(;W[hh])");
        assert_eq!(
            e.to_string(),
            "line 1, move 1: white moved, but it was black's turn"
        );
        assert!(matches!(
            err("(;AB[hh][ii];W[jj])"),
            RecordError::SetupStones { .. }
        ));
        assert!(matches!(
            err("(;GM[1];B[pd])"),
            RecordError::NotGomoku { .. }
        ));
        assert!(matches!(
            err("(;B[hh];W[tt])"),
            RecordError::Coord {
                line: 1,
                move_number: 2,
                error: CoordError::OffBoard(..)
            }
        ));
        // Nesting far deeper than any stack would allow is only an error.
        let deep = format!("(;{}", "(".repeat(100_000));
        assert!(matches!(err(&deep), RecordError::Syntax { .. }));
        let deep = format!("(;B[hh]{}{}", "(;".repeat(50_000), ")".repeat(50_001));
        assert_eq!(read(&deep).expect("valid").moves.len(), 1);
    }
}
