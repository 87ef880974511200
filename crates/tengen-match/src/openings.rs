//! Openings: the stones a game starts from, read from a file (Piskvork's offsets or move lists),
//! the 26 renju openings, or made at random; and the board's symmetries to vary them.

use serde::Deserialize;
use tengen_rules::{BoardSize, Color, Game, Point, Rule, parse_point};

use crate::MatchError;

/// The 26 canonical renju openings (see `data/SOURCES.md`).
const RENJU26_JSON: &str = include_str!("../data/renju_26_openings.json");

/// The stones a game starts from, black's first, colours alternating.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Opening {
    /// A label for records and tables (`"2D Keigetsu"`, `"file line 3"`, `"random"`).
    pub name: String,
    /// The stones, on the match's board.
    pub moves: Vec<Point>,
}

/// A small, fast, seedable generator (SplitMix64): the runner's only randomness, so that one
/// `--seed` replays the same openings and symmetries.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is negligible for board-sized `n`).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n.max(1))) as u32
    }
}

/// The centre of a bounded board (for even sides, the point just below-right of the middle, as
/// Piskvork puts it: `width / 2, height / 2`).
fn centre(size: BoardSize) -> Result<Point, MatchError> {
    match (size.width(), size.height()) {
        (Some(w), Some(h)) => Ok(Point::new((w / 2) as i32, (h / 2) as i32)),
        _ => Err(MatchError::Board(
            "matches need a bounded board (the Gomocup protocol has no unbounded one)".into(),
        )),
    }
}

/// Checks that `moves` can be played from the empty board under `rule` without the game
/// ending (an opening must leave a game to play).
fn check_playable(size: BoardSize, rule: Rule, moves: &[Point]) -> Result<(), String> {
    let mut game = Game::new(size, rule);
    for &p in moves {
        match game.play(p) {
            Ok(None) => {}
            Ok(Some(out)) => return Err(format!("the opening already ends the game: {out}")),
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(())
}

/// Reads one line of an opening file: Piskvork's offsets from the centre
/// (`dx,dy, dx,dy, ...`, `y` down as in Gomocup coordinates) when it is all integers in pairs,
/// otherwise a move list in renju (`h8 i9 j10`) or Gomocup (`7,7`) notation, with spaces or
/// commas between moves. Empty and `#` lines are `None`.
pub fn parse_opening_line(line: &str, size: BoardSize) -> Result<Option<Vec<Point>>, String> {
    let line = line.split('#').next().unwrap_or_default().trim();
    if line.is_empty() {
        return Ok(None);
    }
    let numbers: Option<Vec<i32>> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect();
    if let Some(numbers) = numbers {
        if numbers.len() % 2 != 0 {
            return Err(format!(
                "{line:?}: an odd count of offsets (expected dx,dy pairs)"
            ));
        }
        let c = centre(size).map_err(|e| e.to_string())?;
        return Ok(Some(
            numbers.chunks(2).map(|d| c.offset(d[0], d[1])).collect(),
        ));
    }
    // A move list: renju names are separated by spaces (or commas: `h8,i9`); a Gomocup `x,y`
    // point is one token when written without spaces.
    let mut moves = Vec::new();
    for token in line.split_whitespace() {
        let token = token.trim_end_matches(',');
        match parse_point(size, token) {
            Ok(p) => moves.push(p),
            Err(first) => {
                for part in token.split(',').filter(|t| !t.is_empty()) {
                    moves.push(parse_point(size, part).map_err(|_| format!("{token:?}: {first}"))?);
                }
            }
        }
    }
    Ok(Some(moves))
}

/// Reads an opening file, one opening a line (see [`parse_opening_line`]); every opening is
/// checked to be playable under `rule` on the board.
pub fn parse_openings(text: &str, size: BoardSize, rule: Rule) -> Result<Vec<Opening>, MatchError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |why: String| MatchError::Opening { line: i + 1, why };
        if let Some(moves) = parse_opening_line(line, size).map_err(bad)? {
            check_playable(size, rule, &moves).map_err(bad)?;
            out.push(Opening {
                name: format!("line {}", i + 1),
                moves,
            });
        }
    }
    if out.is_empty() {
        return Err(MatchError::Opening {
            line: 0,
            why: "no opening in the file".into(),
        });
    }
    Ok(out)
}

/// The 100 openings of `data/balanced/` for `rule` (renju's for renju; freestyle's for the
/// others, whose first moves play alike): random shapes of 3 or 5 stones near the centre that
/// a search of the project's engine found within 40 of even with white to move (the file's
/// header says how they were made). The match runner judges nothing itself, so that it builds
/// no engine.
pub fn balanced(size: BoardSize, rule: Rule) -> Result<Vec<Opening>, MatchError> {
    let text = match rule {
        Rule::Renju => include_str!("../data/balanced/renju.txt"),
        _ => include_str!("../data/balanced/freestyle.txt"),
    };
    let mut list = parse_openings(text, size, rule)?;
    for o in &mut list {
        o.name = format!("balanced {}", o.name);
    }
    Ok(list)
}

#[derive(Deserialize)]
struct RenjuTable {
    openings: Vec<RenjuEntry>,
}

#[derive(Deserialize)]
struct RenjuEntry {
    code: String,
    name: String,
    moves: Vec<String>,
}

/// The 26 renju openings (1D to 13D, 1I to 13I), centred on the board (on 15x15 exactly as in
/// the table; elsewhere shifted so that the first stone is the centre).
pub fn renju26(size: BoardSize, rule: Rule) -> Result<Vec<Opening>, MatchError> {
    let table: RenjuTable = serde_json::from_str(RENJU26_JSON)
        .map_err(|e| MatchError::Board(format!("the embedded renju openings: {e}")))?;
    let c = centre(size)?;
    let home = BoardSize::STANDARD;
    let home_centre = Point::new(7, 7);
    let mut out = Vec::new();
    for (i, entry) in table.openings.iter().enumerate() {
        let bad = |why: String| MatchError::Opening { line: i + 1, why };
        let moves = entry
            .moves
            .iter()
            .map(|m| {
                parse_point(home, m)
                    .map(|p| c.offset(p.x - home_centre.x, p.y - home_centre.y))
                    .map_err(|e| bad(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        check_playable(size, rule, &moves).map_err(bad)?;
        out.push(Opening {
            name: format!("{} {}", entry.code, entry.name),
            moves,
        });
    }
    Ok(out)
}

/// A random opening: black on the centre, then 1 to 3 more stones (colours alternating) on
/// distinct points at most two from the centre. No side can have more than two stones, so no
/// side starts with a three or anything stronger; it is also checked to be playable under
/// `rule` (never a forbidden point). It is not judged for balance, and most such openings
/// favour black, heavily so in freestyle: [`balanced`] holds openings that were judged.
pub fn random_opening(size: BoardSize, rule: Rule, rng: &mut Rng) -> Result<Opening, MatchError> {
    let c = centre(size)?;
    for _ in 0..1000 {
        let count = 2 + rng.below(3) as usize;
        let mut moves = vec![c];
        while moves.len() < count {
            let p = c.offset(rng.below(5) as i32 - 2, rng.below(5) as i32 - 2);
            if !moves.contains(&p) {
                moves.push(p);
            }
        }
        if check_playable(size, rule, &moves).is_ok() {
            return Ok(Opening {
                name: "random".into(),
                moves,
            });
        }
    }
    Err(MatchError::Board(format!(
        "{size} is too small for random openings"
    )))
}

/// One of the board's eight symmetries (`0` the identity; 4 to 7 swap the axes): applied to the
/// opening's stones about the board's middle. A symmetry that takes a stone off the board (a
/// swap of axes on a rectangular board) leaves the opening as it is.
pub fn transform(opening: &Opening, size: BoardSize, symmetry: u32) -> Opening {
    let (Some(w), Some(h)) = (size.width(), size.height()) else {
        return opening.clone();
    };
    let (w, h) = (w as i32, h as i32);
    // Doubled coordinates about the middle, so that even sides reflect exactly.
    let map = |p: Point| {
        let (mut u, mut v) = (2 * p.x - (w - 1), 2 * p.y - (h - 1));
        if symmetry & 4 != 0 {
            (u, v) = (v, u);
        }
        if symmetry & 1 != 0 {
            u = -u;
        }
        if symmetry & 2 != 0 {
            v = -v;
        }
        Point::new((u + w - 1) / 2, (v + h - 1) / 2)
    };
    let moves: Vec<Point> = opening.moves.iter().map(|&p| map(p)).collect();
    if moves
        .iter()
        .all(|p| (0..w).contains(&p.x) && (0..h).contains(&p.y))
    {
        Opening {
            name: opening.name.clone(),
            moves,
        }
    } else {
        opening.clone()
    }
}

/// Which colour is to move after an opening of `len` stones.
pub fn to_move_after(len: usize) -> Color {
    if len % 2 == 0 {
        Color::Black
    } else {
        Color::White
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: BoardSize = BoardSize::STANDARD;

    #[test]
    fn piskvork_offsets_and_move_lists() {
        assert_eq!(
            parse_opening_line("0,0, 1,0, 1,3", S),
            Ok(Some(vec![
                Point::new(7, 7),
                Point::new(8, 7),
                Point::new(8, 10)
            ]))
        );
        assert_eq!(
            parse_opening_line("-8,-6, -7,-6", BoardSize::square(20).expect("20")),
            Ok(Some(vec![Point::new(2, 4), Point::new(3, 4)]))
        );
        // h8 is the centre of 15x15; rows count from the bottom.
        assert_eq!(
            parse_opening_line("h8 i9 j10  # a diagonal", S),
            Ok(Some(vec![
                Point::new(7, 7),
                Point::new(8, 6),
                Point::new(9, 5)
            ]))
        );
        assert_eq!(
            parse_opening_line("h8, i9", S),
            Ok(Some(vec![Point::new(7, 7), Point::new(8, 6)]))
        );
        assert_eq!(parse_opening_line("   # nothing", S), Ok(None));
        assert!(parse_opening_line("0,0, 1", S).is_err());
        assert!(parse_opening_line("h8 zz99", S).is_err());
    }

    #[test]
    fn the_shared_piskvork_file_reads() -> Result<(), MatchError> {
        let text = include_str!("../../../../shared/data/piskvork_openings.txt");
        let openings = parse_openings(text, BoardSize::square(20).expect("20"), Rule::Renju)?;
        assert_eq!(
            openings.len(),
            text.lines().filter(|l| !l.trim().is_empty()).count()
        );
        // Off-board offsets are refused.
        assert!(parse_openings("0,0, 9,9", S, Rule::Freestyle).is_err());
        // So is an opening that is already over.
        assert!(parse_openings("h8 a1 i8 a2 j8 a3 k8 a4 l8", S, Rule::Freestyle).is_err());
        Ok(())
    }

    #[test]
    fn the_renju_openings() -> Result<(), MatchError> {
        let all = renju26(S, Rule::Renju)?;
        assert_eq!(all.len(), 26);
        assert_eq!(all[0].name, "1D Kansei");
        assert!(
            all.iter()
                .all(|o| o.moves.len() == 3 && o.moves[0] == Point::new(7, 7))
        );
        let big = renju26(BoardSize::square(20).expect("20"), Rule::Freestyle)?;
        assert_eq!(big[0].moves[0], Point::new(10, 10));
        Ok(())
    }

    #[test]
    fn random_openings_are_near_the_centre_and_playable() -> Result<(), MatchError> {
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let o = random_opening(S, Rule::Renju, &mut rng)?;
            assert!((2..=4).contains(&o.moves.len()));
            assert_eq!(o.moves[0], Point::new(7, 7));
            assert!(o.moves.iter().all(|p| p.chebyshev(Point::new(7, 7)) <= 2));
        }
        Ok(())
    }

    #[test]
    fn balanced_sets_load_under_every_rule_with_white_to_move() -> Result<(), MatchError> {
        for rule in Rule::ALL {
            let list = balanced(S, rule)?;
            assert_eq!(list.len(), 100);
            for o in &list {
                assert!(o.moves.len() == 3 || o.moves.len() == 5, "{o:?}");
                assert_eq!(o.moves[0], Point::new(7, 7));
                assert!(o.moves.iter().all(|p| p.chebyshev(Point::new(7, 7)) <= 3));
            }
        }
        // Two rules with sets of their own hold different openings.
        assert_ne!(balanced(S, Rule::Freestyle)?, balanced(S, Rule::Renju)?);
        Ok(())
    }

    #[test]
    fn symmetries() {
        let o = Opening {
            name: "x".into(),
            moves: vec![Point::new(7, 7), Point::new(8, 6), Point::new(0, 1)],
        };
        assert_eq!(transform(&o, S, 0), o);
        let mirrored = transform(&o, S, 1);
        assert_eq!(
            mirrored.moves,
            [Point::new(7, 7), Point::new(6, 6), Point::new(14, 1)]
        );
        let transposed = transform(&o, S, 4);
        assert_eq!(transposed.moves[2], Point::new(1, 0));
        // All eight are distinct and each is a bijection of the board.
        let images: std::collections::HashSet<Vec<Point>> =
            (0..8).map(|s| transform(&o, S, s).moves).collect();
        assert_eq!(images.len(), 8);
        // On 20x14 a transposition would leave the board: the opening stays.
        let wide = BoardSize::rect(20, 14).expect("20x14");
        let far = Opening {
            name: "far".into(),
            moves: vec![Point::new(19, 0)],
        };
        assert_eq!(transform(&far, wide, 4), far);
        assert_eq!(transform(&far, wide, 1).moves, [Point::new(0, 0)]);
    }
}
