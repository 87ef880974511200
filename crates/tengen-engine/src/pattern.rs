//! Line patterns: what one colour makes along one line by playing a point.
//!
//! A line is the ten cells at distances 1 to 5 on both sides of a point, each empty, black, white
//! or edge, so a key of 4^10 values. What a colour makes there (a five, a four, an open three, ...)
//! depends on the rule's idea of a five, so there is one table per kind of five and colour. The
//! tables are filled lazily: only the keys that occur in play are ever classified.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Number of cells read on each side.
pub(crate) const REACH: usize = 5;
const WINDOW: usize = 2 * REACH + 1;
const CENTER: usize = REACH;
/// Number of keys: four values for each of ten cells.
pub(crate) const KEYS: usize = 1 << 20;

/// Keys of the table where both colours' fives are five or more: the cells at distance 5 never
/// change what a stone makes there (a five, four or three through the centre lies within four
/// cells of it, and a run long enough to reach the fifth cell is a five already), so the table
/// is indexed by the inner eight cells alone. At 64 KiB instead of 1 MiB it stays in the
/// processor's near caches, where the move loop's lookups were the search's costliest loads.
const COMPACT_KEYS: usize = 1 << 16;
/// The inner eight cells of a key start above the cell at offset -5.
const COMPACT_SHIFT: u32 = 2;

/// Cell values inside a key.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const EDGE: u8 = 3;

/// What a move makes along one line, weakest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Pat {
    /// Nothing of note.
    None = 0,
    /// Two that can become a three blocked on one side.
    Two = 1,
    /// Two that can become an open three.
    TwoOpen = 2,
    /// Three that can become a four.
    Three = 3,
    /// Three that can become a straight four.
    ThreeOpen = 4,
    /// Four: one point completes a five.
    Four = 5,
    /// Two fours on this one line (two completion points, not the ends of one straight four).
    FourDouble = 6,
    /// Straight four: both ends complete a five.
    FourOpen = 7,
    /// Five: the move wins.
    Five = 8,
    /// Six or more, which this rule does not count as a five.
    Overline = 9,
}

/// Number of [`Pat`] kinds.
pub(crate) const PATS: usize = 10;

const PAT_OF: [Pat; PATS] = [
    Pat::None,
    Pat::Two,
    Pat::TwoOpen,
    Pat::Three,
    Pat::ThreeOpen,
    Pat::Four,
    Pat::FourDouble,
    Pat::FourOpen,
    Pat::Five,
    Pat::Overline,
];

/// Which rows of five win, for one colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum FiveKind {
    /// Five or more.
    AtLeast,
    /// Exactly five.
    Exactly,
    /// Exactly five, not blocked by the opponent at both ends (caro).
    Unblocked,
    /// Six or more, or exactly five not blocked by the opponent at both ends (caro with
    /// overlines).
    LongOrUnblocked,
}

impl FiveKind {
    const fn index(self) -> usize {
        match self {
            FiveKind::AtLeast => 0,
            FiveKind::Exactly => 1,
            FiveKind::Unblocked => 2,
            FiveKind::LongOrUnblocked => 3,
        }
    }
}

/// Number of [`FiveKind`]s.
const KINDS: usize = 4;

const UNKNOWN: u8 = 0xff;

struct Table(Box<[AtomicU8]>);

static TABLES: [OnceLock<Table>; KINDS * KINDS] = [const { OnceLock::new() }; KINDS * KINDS];

/// A handle to the pattern table of one rule: each entry holds black's pattern in its low four
/// bits and white's in its high four, so one lookup (one cache line) serves both colours.
#[derive(Clone, Copy)]
pub(crate) struct PatTable {
    table: &'static Table,
    kinds: [FiveKind; 2],
    /// A key's index: `key >> shift & mask`, the inner eight cells alone for a compact table
    /// (see [`COMPACT_KEYS`]), the whole key otherwise. Shift and mask, not a flag, so that the
    /// move loop's lookups take no branch.
    shift: u32,
    mask: usize,
}

impl std::fmt::Debug for PatTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PatTable({:?})", self.kinds)
    }
}

impl PatTable {
    /// The table for black's and white's kinds of five.
    pub(crate) fn get(black: FiveKind, white: FiveKind) -> PatTable {
        let slot = &TABLES[black.index() * KINDS + white.index()];
        let compact = black == FiveKind::AtLeast && white == FiveKind::AtLeast;
        let len = if compact { COMPACT_KEYS } else { KEYS };
        let table = slot.get_or_init(|| Table((0..len).map(|_| AtomicU8::new(UNKNOWN)).collect()));
        PatTable {
            table,
            kinds: [black, white],
            shift: if compact { COMPACT_SHIFT } else { 0 },
            mask: len - 1,
        }
    }

    /// How far from a cell a stone of value `stone` (black or white) can change its patterns:
    /// [`REACH`] where a stone five cells away can change some colour's five, else one less
    /// (always for a compact table, see [`COMPACT_KEYS`]). A five must be exact: only a stone
    /// of that colour there can lengthen a run through the cell into an overline (to a five's
    /// owner an opponent's stone there, an empty cell and the edge are alike). Caro's five must
    /// not be blocked: any stone there can block it. With overlines, only the opponent's can: an
    /// own stone there turns a five that reaches it into a six, which wins as the five did (the
    /// empty cell beside it was an open end).
    #[inline]
    pub(crate) fn reach(&self, stone: u8) -> i32 {
        let matters = |kind: FiveKind, own: bool| match kind {
            FiveKind::AtLeast => false,
            FiveKind::Exactly => own,
            FiveKind::Unblocked => true,
            FiveKind::LongOrUnblocked => !own,
        };
        if matters(self.kinds[0], stone == BLACK) || matters(self.kinds[1], stone == WHITE) {
            REACH as i32
        } else {
            REACH as i32 - 1
        }
    }

    /// Black's and white's patterns for `key`, classified on first use. Races only ever store
    /// the same value.
    #[inline]
    pub(crate) fn lookup(&self, key: u32) -> [Pat; 2] {
        let v = self.lookup_packed(key);
        [unpack(v, 0), unpack(v, 1)]
    }

    /// Both colours' patterns for `key` in one byte (black's in the low four bits, white's in
    /// the high four): one compare tells whether either colour's pattern changed.
    #[inline]
    pub(crate) fn lookup_packed(&self, key: u32) -> u8 {
        let index = (key >> self.shift) as usize & self.mask;
        let slot = &self.table.0[index];
        let v = slot.load(Ordering::Relaxed);
        if v != UNKNOWN {
            return v;
        }
        let w = decode(key);
        let b = classify(&w, BLACK, self.kinds[0]) as u8;
        let wh = classify(&w, WHITE, self.kinds[1]) as u8;
        let v = b | wh << 4;
        slot.store(v, Ordering::Relaxed);
        v
    }
}

/// By packed byte (see [`PatTable::lookup_packed`]): bit 0 when black makes a four or a five
/// on that line, bit 1 when white does.
pub(crate) const FOUR_OR_FIVE: [u8; 256] = {
    const fn four_or_five(p: usize) -> bool {
        p >= Pat::Four as usize && p <= Pat::Five as usize
    }
    let mut t = [0; 256];
    let mut v = 0;
    while v < 256 {
        t[v] = four_or_five(v & 15) as u8 | (four_or_five(v >> 4) as u8) << 1;
        v += 1;
    }
    t
};

/// By packed byte: a one in the three-bit field of black's pattern (field `p` at bit `3p`, low
/// 32 bits) and of white's (high 32 bits). Summed over a cell's four lines it counts how many
/// lines hold each pattern, for both colours at once: what the cell's lines make together is
/// then read from the counts, without a loop over the lines.
pub(crate) const LINE_COUNTS: [u64; 256] = {
    let mut t = [0; 256];
    let mut v = 0;
    while v < 256 {
        // Nibbles past the last pattern never occur.
        if (v & 15) < PATS && (v >> 4) < PATS {
            t[v] = 1u64 << (3 * (v & 15)) | 1u64 << (32 + 3 * (v >> 4));
        }
        v += 1;
    }
    t
};

/// One colour's pattern counts over a cell's four lines (see [`LINE_COUNTS`]): four in all.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct LineCounts(u32);

impl LineCounts {
    /// The counts of the colour with index `c` in a sum of [`LINE_COUNTS`] entries.
    #[inline(always)]
    pub(crate) fn of(sum: u64, c: usize) -> LineCounts {
        LineCounts((sum >> (32 * (c & 1))) as u32)
    }

    /// How many of the lines hold `p`.
    #[inline(always)]
    pub(crate) fn count(self, p: Pat) -> u32 {
        (self.0 >> (3 * p as u32)) & 7
    }

    /// The strongest pattern among the lines counted (`Pat::None` when none are).
    #[inline(always)]
    pub(crate) fn strongest(self) -> Pat {
        // The highest bit set lies in the strongest pattern's field; with none counted, the
        // low bit stands in for `Pat::None`'s field. No branch and no division: the move loop
        // asks this twice for every pair it derives.
        const BY_BIT: [Pat; 32] = {
            let mut t = [Pat::None; 32];
            let mut bit = 0;
            while bit < 3 * PATS {
                t[bit] = PAT_OF[bit / 3];
                bit += 1;
            }
            t
        };
        BY_BIT[(31 - (self.0 | 1).leading_zeros()) as usize]
    }

    /// The counts with one line holding `p` left out (`p` must be counted).
    #[inline(always)]
    pub(crate) fn without(self, p: Pat) -> LineCounts {
        LineCounts(self.0 - (1 << (3 * p as u32)))
    }
}

/// The pattern of the colour with index `c` (0 black, 1 white) in a packed byte of
/// [`PatTable::lookup_packed`].
#[inline]
pub(crate) fn unpack(packed: u8, c: usize) -> Pat {
    // Sixteen entries, so that a four-bit index needs no bounds check.
    const BY_NIBBLE: [Pat; 16] = {
        let mut t = [Pat::None; 16];
        let mut i = 0;
        while i < PATS {
            t[i] = PAT_OF[i];
            i += 1;
        }
        t
    };
    BY_NIBBLE[((packed >> (4 * (c & 1))) & 15) as usize]
}

/// The position of offset `k` (-5..=5, not 0) inside a key.
#[inline]
pub(crate) const fn shift(k: i32) -> u32 {
    let i = if k < 0 { k + 5 } else { k + 4 };
    2 * i as u32
}

fn decode(key: u32) -> [u8; WINDOW] {
    let mut w = [EMPTY; WINDOW];
    for k in -5..=5i32 {
        if k != 0 {
            w[(k + 5) as usize] = ((key >> shift(k)) & 3) as u8;
        }
    }
    w
}

fn run(w: &[u8; WINDOW], at: usize, own: u8) -> (usize, usize) {
    let mut lo = at;
    while lo > 0 && w[lo - 1] == own {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < WINDOW && w[hi + 1] == own {
        hi += 1;
    }
    (lo, hi)
}

// Whether `own` on `at` (already placed in `w`) makes a winning five through the centre.
fn five_through_center(w: &[u8; WINDOW], at: usize, own: u8, kind: FiveKind) -> bool {
    let (lo, hi) = run(w, at, own);
    if !(lo..=hi).contains(&CENTER) {
        return false;
    }
    let len = hi - lo + 1;
    // A run of exactly five through the centre lies within 1..=9, so both neighbours exist.
    let blocked_twice = || w[lo - 1] == 3 - own && w[hi + 1] == 3 - own;
    match kind {
        FiveKind::AtLeast => len >= 5,
        FiveKind::Exactly => len == 5,
        FiveKind::Unblocked => len == 5 && !blocked_twice(),
        FiveKind::LongOrUnblocked => len > 5 || (len == 5 && !blocked_twice()),
    }
}

fn completions(w: &[u8; WINDOW], own: u8, kind: FiveKind) -> (usize, Option<(usize, usize)>) {
    let mut n = 0;
    let mut first = None;
    let mut last = 0;
    for q in 1..WINDOW - 1 {
        if q == CENTER || w[q] != EMPTY {
            continue;
        }
        let mut v = *w;
        v[q] = own;
        if five_through_center(&v, q, own, kind) {
            n += 1;
            first.get_or_insert(q);
            last = q;
        }
    }
    (n, first.map(|f| (f, last)))
}

// Four-level classification of a window whose centre already holds `own`.
fn four_level(w: &[u8; WINDOW], own: u8, kind: FiveKind) -> Pat {
    match completions(w, own, kind) {
        (0, _) => Pat::None,
        (1, _) => Pat::Four,
        _ if one_stone_stops_every_five(w, own, kind) => Pat::Four,
        (2, Some((a, b))) if b - a == 5 => Pat::FourOpen,
        _ => Pat::FourDouble,
    }
}

// Whether one opponent stone on this line leaves `own` no five to complete through the centre.
// Under caro a stone beside a five blocks it as surely as one on its point: in `O.XXXX.O` a
// stone on either empty point leaves the other's five blocked at both ends, so the four is a
// plain four (one stone stops it), not a straight four. Elsewhere an opponent's stone stops only
// the five whose point it takes, so two completion points always need two stones.
fn one_stone_stops_every_five(w: &[u8; WINDOW], own: u8, kind: FiveKind) -> bool {
    if !matches!(kind, FiveKind::Unblocked | FiveKind::LongOrUnblocked) {
        return false;
    }
    (0..WINDOW).any(|q| {
        q != CENTER && w[q] == EMPTY && {
            let mut v = *w;
            v[q] = 3 - own;
            completions(&v, own, kind).0 == 0
        }
    })
}

// The best of `level` over every empty point within four of the centre, placed for `own`.
fn best_after_one_more(w: &[u8; WINDOW], own: u8, level: impl Fn(&[u8; WINDOW]) -> Pat) -> Pat {
    let mut best = Pat::None;
    for q in 1..WINDOW - 1 {
        if q == CENTER || w[q] != EMPTY {
            continue;
        }
        let mut v = *w;
        v[q] = own;
        best = best.max(level(&v));
    }
    best
}

fn three_level(w: &[u8; WINDOW], own: u8, kind: FiveKind) -> Pat {
    match best_after_one_more(w, own, |v| four_level(v, own, kind)) {
        Pat::FourOpen => Pat::ThreeOpen,
        Pat::Four | Pat::FourDouble => Pat::Three,
        _ => Pat::None,
    }
}

/// What `own` playing the centre of `w` makes on this line.
pub(crate) fn classify(w: &[u8; WINDOW], own: u8, kind: FiveKind) -> Pat {
    let mut w = *w;
    w[CENTER] = own;
    let (lo, hi) = run(&w, CENTER, own);
    if five_through_center(&w, CENTER, own, kind) {
        return Pat::Five;
    }
    if hi - lo + 1 >= 5 {
        return Pat::Overline;
    }
    let four = four_level(&w, own, kind);
    if four != Pat::None {
        return four;
    }
    let three = three_level(&w, own, kind);
    if three != Pat::None {
        return three;
    }
    match best_after_one_more(&w, own, |v| three_level(v, own, kind)) {
        Pat::ThreeOpen => Pat::TwoOpen,
        Pat::Three => Pat::Two,
        _ => Pat::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str, kind: FiveKind) -> Pat {
        let center = s.find('*').expect("a centre");
        let mut w = [EDGE; WINDOW];
        for (i, c) in s.chars().enumerate() {
            let at = i as i32 - center as i32 + CENTER as i32;
            if (0..WINDOW as i32).contains(&at) {
                w[at as usize] = match c {
                    'X' => BLACK,
                    'O' => WHITE,
                    '#' => EDGE,
                    _ => EMPTY,
                };
            }
        }
        classify(&w, BLACK, kind)
    }

    #[test]
    fn shapes() {
        use FiveKind::*;
        assert_eq!(pat("..XX*XX..", AtLeast), Pat::Five);
        assert_eq!(pat(".XXX*XX..", AtLeast), Pat::Five);
        assert_eq!(pat(".XXX*XX..", Exactly), Pat::Overline);
        assert_eq!(pat("...X*XX...", AtLeast), Pat::FourOpen);
        assert_eq!(pat("..OX*XX...", AtLeast), Pat::Four);
        assert_eq!(pat("X.X*X.X", AtLeast), Pat::FourDouble);
        assert_eq!(pat("....*X.X....", AtLeast), Pat::ThreeOpen);
        assert_eq!(pat("...O*XX....", AtLeast), Pat::Three);
        assert_eq!(pat("....*X.....", AtLeast), Pat::TwoOpen);
        assert_eq!(pat("....*.....", AtLeast), Pat::None);
    }

    #[test]
    fn caro_five_needs_an_open_end() {
        use FiveKind::Unblocked;
        assert_eq!(pat("OXX*XXO", Unblocked), Pat::Overline);
        assert_eq!(pat("#XX*XXO", Unblocked), Pat::Five);
        assert_eq!(pat(".XX*XXO", Unblocked), Pat::Five);
    }

    #[test]
    fn caro_four_that_one_stone_stops_is_a_plain_four() {
        use FiveKind::{AtLeast, LongOrUnblocked as Long, Unblocked};
        for kind in [Unblocked, Long] {
            // Either empty point, taken, leaves the other's five blocked at both ends.
            assert_eq!(pat("O.XX*X.O", kind), Pat::Four);
            // The point beside the open end stops both: the left five is then blocked twice,
            // and the right one is taken.
            assert_eq!(pat("O.XX*X..", kind), Pat::Four);
            // Open at both far ends, or against the edge (no block): a straight four.
            assert_eq!(pat("..XX*X..", kind), Pat::FourOpen);
            assert_eq!(pat("#.XX*X..", kind), Pat::FourOpen);
            assert_eq!(pat("#.XX*X.O", kind), Pat::Four);
            // Two fours on one line that a stone on one point and the edge cannot both stop.
            assert_eq!(pat("X.X*X.X", kind), Pat::FourDouble);
            // With an opponent's stone at one far end, taking the other five's point blocks
            // this one at both ends.
            assert_eq!(pat("#X.X*X.XO", kind), Pat::Four);
        }
        // Elsewhere an opponent's stone stops only the five whose point it takes.
        assert_eq!(pat("O.XX*X.O", AtLeast), Pat::FourOpen);
        // A three with an opponent's stone at both far ends can only become such fours: no open
        // three under caro.
        assert_eq!(pat("O..X*X..O", Unblocked), Pat::Three);
        assert_eq!(pat("...X*X...", Unblocked), Pat::ThreeOpen);
    }

    #[test]
    fn caro_with_overlines_wins_by_six_and_by_a_five_with_an_open_end() {
        use FiveKind::{AtLeast, LongOrUnblocked as Long, Unblocked};
        // Fives: a six wins even blocked at both ends, exactly five only with an open end.
        assert_eq!(pat("OXX*XXO", Long), Pat::Overline);
        assert_eq!(pat("#XX*XXO", Long), Pat::Five);
        assert_eq!(pat(".XX*XXO", Long), Pat::Five);
        assert_eq!(pat("OXXX*XXO", Long), Pat::Five);
        assert_eq!(pat(".XXX*XX..", Long), Pat::Five);
        assert_eq!(pat(".XXX*XX..", Unblocked), Pat::Overline);
        // Fours: a completion into a five blocked at both ends is none, one into a six is.
        assert_eq!(pat("OXX*X.O", Long), Pat::None);
        assert_eq!(pat("OXX*X.O", AtLeast), Pat::Four);
        assert_eq!(pat("OXX*X.XO", Long), Pat::Four);
        assert_eq!(pat("OXX*X.XO", Unblocked), Pat::None);
        assert_eq!(pat("..XX*X..", Long), Pat::FourOpen);
        assert_eq!(pat("X.X*X.X", Long), Pat::FourDouble);
        // Threes, likewise.
        assert_eq!(pat("OXX*..O", Long), Pat::None);
        assert_eq!(pat("OXX*..O", AtLeast), Pat::Three);
        assert_eq!(pat("OXX*..XO", Long), Pat::Three);
        assert_eq!(pat("OXX*..XO", Unblocked), Pat::None);
        // Either four it can become is stopped by one stone, so it is no open three.
        assert_eq!(pat("O.X*X..O", Long), Pat::Three);
        assert_eq!(pat("..X*X...", Long), Pat::ThreeOpen);
        assert_eq!(pat("....*X.....", Long), Pat::TwoOpen);
    }

    #[test]
    fn the_compact_table_ignores_the_outer_cells_only_where_it_may() {
        // Every key with random inner cells and every value of the two outer cells: the
        // compact table (both fives "five or more") answers as the classification does.
        let t = PatTable::get(FiveKind::AtLeast, FiveKind::AtLeast);
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..4_000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let inner = seed & 0xffff;
            for outer in 0..16u32 {
                let key = (inner << COMPACT_SHIFT) | (outer & 3) | (outer >> 2) << shift(5);
                let w = decode(key);
                let want = [
                    classify(&w, BLACK, FiveKind::AtLeast),
                    classify(&w, WHITE, FiveKind::AtLeast),
                ];
                assert_eq!(t.lookup(key), want, "key {key:#x}");
            }
        }
        // Where a five must be exact, the outer cells matter: an overline is no five.
        assert_eq!(pat("XXXXX*....", FiveKind::Exactly), Pat::Overline);
        assert_eq!(pat("XXXXX*....", FiveKind::AtLeast), Pat::Five);
    }

    #[test]
    fn a_stone_five_cells_away_changes_nothing_where_the_reach_says_so() {
        // Every pair of kinds and random keys: a stone put on an empty outer cell changes no
        // pattern of either colour where `reach` is four for that stone.
        let kinds = [
            FiveKind::AtLeast,
            FiveKind::Exactly,
            FiveKind::Unblocked,
            FiveKind::LongOrUnblocked,
        ];
        let mut seed = 0x2545_f491_u32;
        let mut checked = [0; 2];
        for black in kinds {
            for white in kinds {
                let t = PatTable::get(black, white);
                for _ in 0..3_000 {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    let key = seed & (KEYS as u32 - 1);
                    for k in [-5, 5] {
                        if (key >> shift(k)) & 3 != u32::from(EMPTY) {
                            continue;
                        }
                        for stone in [BLACK, WHITE] {
                            let after = key | u32::from(stone) << shift(k);
                            let changed = classify(&decode(key), BLACK, black)
                                != classify(&decode(after), BLACK, black)
                                || classify(&decode(key), WHITE, white)
                                    != classify(&decode(after), WHITE, white);
                            if t.reach(stone) < 5 {
                                assert!(!changed, "{black:?} {white:?} key {key:#x} stone {stone}");
                            }
                            checked[usize::from(changed)] += 1;
                        }
                    }
                }
            }
        }
        // Some stones five cells away did change a pattern (where the reach is five).
        assert!(checked[1] > 0 && checked[0] > 0, "{checked:?}");
    }

    #[test]
    fn lookup_matches_classify() {
        let t = PatTable::get(FiveKind::Exactly, FiveKind::AtLeast);
        let key =
            (WHITE as u32) << shift(1) | (WHITE as u32) << shift(-1) | (WHITE as u32) << shift(2);
        // Three white stones around the point: white makes a straight four, black nothing.
        assert_eq!(t.lookup(key), [Pat::None, Pat::FourOpen]);
        assert_eq!(t.lookup(key), [Pat::None, Pat::FourOpen]);
    }
}
