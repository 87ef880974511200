//! What one move by black makes along one line, read from a precomputed table.
//!
//! The ten cells at distances 1 to 5 on both sides of a point decide everything the renju rules
//! ask about that line: a five or an overline through the point needs at most five stones on a
//! side, a five completing a four lies within four cells, and the completion points of a
//! straight four made within three cells lie within four. So each window of ten cells, seen
//! from black's side (empty, black, or blocked by white or the edge), is looked up in a table of
//! 3^10 entries built once.

use std::sync::LazyLock;

use crate::board::{BLACK, Board, EMPTY};
use crate::{Direction, Point};

/// Cells read on each side of the centre.
pub(crate) const REACH: i32 = 5;
const WINDOW: usize = 2 * REACH as usize + 1;
const CENTER: usize = REACH as usize;
const ENTRIES: usize = 59_049; // 3^10

// Layout of one entry.
const FIVE: u16 = 1;
const OVERLINE: u16 = 1 << 1;
const FOURS_SHIFT: u16 = 2; // two bits: 0, 1, or 2 for "two or more"
const THREE_SHIFT: u16 = 4; // eight bits, one per offset -4..=-1, 1..=4

/// What black placing a stone on the centre of a line makes along that line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct LineShape(u16);

impl LineShape {
    /// Exactly five in a row through the centre.
    pub(crate) fn five(self) -> bool {
        self.0 & FIVE != 0
    }

    /// Six or more in a row through the centre.
    pub(crate) fn overline(self) -> bool {
        self.0 & OVERLINE != 0
    }

    /// How many fours through the centre (a straight four counts once), capped at 2.
    pub(crate) fn fours(self) -> u32 {
        ((self.0 >> FOURS_SHIFT) & 3) as u32
    }

    /// Offsets along the line of the empty points that would turn this line into a straight four
    /// through the centre: the candidate threes, before the recursive renju test.
    pub(crate) fn straight_four_points(self) -> impl Iterator<Item = i32> {
        let mask = (self.0 >> THREE_SHIFT) & 0xff;
        (0..8).filter(move |b| mask & (1 << b) != 0).map(bit_offset)
    }
}

fn bit_offset(bit: i32) -> i32 {
    if bit < 4 { bit - 4 } else { bit - 3 }
}

fn offset_bit(offset: i32) -> i32 {
    if offset < 0 { offset + 4 } else { offset + 3 }
}

// Cell values in a window, from black's point of view.
const W_EMPTY: u8 = 0;
const W_BLACK: u8 = 1;
const W_BLOCKED: u8 = 2;

static TABLE: LazyLock<Box<[LineShape]>> = LazyLock::new(|| {
    (0..ENTRIES)
        .map(|index| LineShape(shape_of(&decode(index))))
        .collect()
});

fn decode(mut index: usize) -> [u8; WINDOW] {
    let mut w = [W_EMPTY; WINDOW];
    for (i, cell) in w.iter_mut().enumerate() {
        if i == CENTER {
            *cell = W_BLACK;
            continue;
        }
        *cell = (index % 3) as u8;
        index /= 3;
    }
    w
}

// Length and ends (inclusive) of the black run through `at`.
fn run(w: &[u8; WINDOW], at: usize) -> (usize, usize) {
    let mut lo = at;
    while lo > 0 && w[lo - 1] == W_BLACK {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < WINDOW && w[hi + 1] == W_BLACK {
        hi += 1;
    }
    (lo, hi)
}

// Whether black on the empty `at` makes exactly five through both `at` and the centre. Such a
// five lies within offsets -4..=4, so the cells just beyond it are inside the window.
fn makes_five_with_center(w: &[u8; WINDOW], at: usize) -> bool {
    let mut v = *w;
    v[at] = W_BLACK;
    let (lo, hi) = run(&v, at);
    hi - lo + 1 == 5 && lo <= CENTER && CENTER <= hi
}

fn shape_of(w: &[u8; WINDOW]) -> u16 {
    let (lo, hi) = run(w, CENTER);
    let len = hi - lo + 1;
    if len >= 6 {
        return OVERLINE;
    }
    if len == 5 {
        return FIVE;
    }
    let empty = |i: usize| w[i] == W_EMPTY;
    let mut bits = 0u16;

    // Fours: the points that then complete a five through the centre. Two of them exactly five
    // apart are the two ends of one straight four, which is one four, not two.
    let completions: Vec<usize> = (1..WINDOW - 1)
        .filter(|&i| i != CENTER && empty(i) && makes_five_with_center(w, i))
        .collect();
    let fours = match completions.as_slice() {
        [a, b] if b - a == 5 => 1,
        c => c.len().min(2),
    };
    bits |= (fours as u16) << FOURS_SHIFT;

    // Candidate threes: an empty point that makes a run of exactly four through the centre and
    // itself, open at both ends, each end completing exactly five.
    for q in (CENTER - 3)..=(CENTER + 3) {
        if q == CENTER || !empty(q) {
            continue;
        }
        let mut v = *w;
        v[q] = W_BLACK;
        let (lo, hi) = run(&v, CENTER);
        let straight = hi - lo + 1 == 4
            && (lo..=hi).contains(&q)
            && v[lo - 1] == W_EMPTY
            && v[hi + 1] == W_EMPTY
            && makes_five_with_center(&v, lo - 1)
            && makes_five_with_center(&v, hi + 1);
        if straight {
            bits |= 1 << (THREE_SHIFT as i32 + offset_bit(q as i32 - CENTER as i32));
        }
    }
    bits
}

/// The table index of the line through `p` along `dir`, as if black stood on `p`.
#[inline]
pub(crate) fn window_index(board: &Board, p: Point, dir: Direction) -> usize {
    let mut index = 0usize;
    let mut scale = 1usize;
    for k in (-REACH..=REACH).filter(|&k| k != 0) {
        let c = board.cell(p.step(dir, k));
        let v = match c {
            EMPTY => W_EMPTY,
            BLACK => W_BLACK,
            _ => W_BLOCKED,
        };
        index += v as usize * scale;
        scale *= 3;
    }
    index
}

/// What black on `p` makes along `dir`.
#[inline]
pub(crate) fn shape(board: &Board, p: Point, dir: Direction) -> LineShape {
    TABLE[window_index(board, p, dir)]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Builds a window from a picture such as "..X.[*]X..": '*' is the centre.
    fn shape_str(s: &str) -> LineShape {
        let cells: Vec<u8> = s
            .chars()
            .map(|c| match c {
                'X' | '*' => W_BLACK,
                'O' | '#' => W_BLOCKED,
                _ => W_EMPTY,
            })
            .collect();
        let center = s.find('*').expect("a centre");
        let mut w = [W_BLOCKED; WINDOW];
        for (i, &c) in cells.iter().enumerate() {
            let at = i as i32 - center as i32 + CENTER as i32;
            if (0..WINDOW as i32).contains(&at) {
                w[at as usize] = c;
            }
        }
        LineShape(shape_of(&w))
    }

    #[test]
    fn fives_and_overlines() {
        assert!(shape_str("..XX*XX..").five());
        assert!(shape_str("XXXX*.").five());
        assert!(shape_str("XXX*XX").overline());
        assert!(!shape_str("XXX*XX").five());
        assert!(!shape_str(".XXX*.").five());
    }

    #[test]
    fn fours_counted_like_the_rules() {
        assert_eq!(shape_str("..XXX*...").fours(), 1);
        assert_eq!(shape_str("..XX*.X..").fours(), 1);
        // A straight four is one four.
        assert_eq!(shape_str("..XX*X...").fours(), 1);
        // Two fours on one line.
        assert_eq!(shape_str("X.X*X.X").fours(), 2);
        assert_eq!(shape_str("XXX.*.XXX").fours(), 2);
        assert_eq!(shape_str("X.XX*.X").fours(), 2);
        // A completion that would make six is no five: this is one four only.
        assert_eq!(shape_str("X.XXX*.").fours(), 1);
        assert_eq!(shape_str("OXXX*.").fours(), 1);
        assert_eq!(shape_str("OXXX*O").fours(), 0);
    }

    #[test]
    fn straight_four_points() {
        let pts = |s: &str| shape_str(s).straight_four_points().collect::<Vec<_>>();
        assert_eq!(pts("...X*X...."), vec![-2, 2]);
        assert_eq!(pts("...X*.X..."), vec![1]);
        // Blocked on one side: only a four can come of it, never a straight four.
        assert_eq!(pts("..OX*X...."), Vec::<i32>::new());
        assert_eq!(pts(".OXX*...."), Vec::<i32>::new());
        // A straight four whose end would make six is not straight.
        assert_eq!(pts("X.X*X...."), Vec::<i32>::new());
    }
}
