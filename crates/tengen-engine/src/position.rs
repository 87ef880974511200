//! The engine's board: stones on a padded grid and on every line of it, two bits a cell, so that
//! the key of the line around any cell in any direction is read off one word or two; from the
//! keys, each empty cell's patterns for both colours, kept up to date move by move.

use tengen_rules::{Board, BoardSize, Color, MAX_UNBOUNDED_COORD, Point, Rule};

use crate::pattern::{
    BLACK, EDGE, EMPTY, FOUR_OR_FIVE, FiveKind, LINE_COUNTS, LineCounts, PATS, Pat, PatTable,
    REACH, WHITE, shift, unpack,
};

/// A stone put, the counters before it, and where its changes start in the undo logs.
#[derive(Clone, Debug)]
struct Frame {
    sq: Sq,
    colour: Color,
    pats: u32,
    combos: u32,
    pairs: u32,
    /// The length of the near-stone list.
    near: u32,
    pat_counts: [[i32; PATS]; 2],
    pair_counts: [[i32; PAIRS]; 2],
    combo_counts: [[u32; COMBOS]; 2],
}

/// The counters the evaluation reads, of one position with its side to move: the present one
/// ([`Position::counts`]) or the one before ([`Position::parent_counts`]).
#[derive(Clone, Copy)]
pub(crate) struct Counts<'a> {
    side: Color,
    pat: &'a [[i32; PATS]; 2],
    pair: &'a [[i32; PAIRS]; 2],
    combo: &'a [[u32; COMBOS]; 2],
}

impl Counts<'_> {
    /// The side to move.
    #[inline(always)]
    pub(crate) fn side(&self) -> Color {
        self.side
    }

    /// The same stones with the other side to move.
    #[inline(always)]
    pub(crate) fn other_side_to_move(self) -> Self {
        Counts {
            side: self.side.opponent(),
            ..self
        }
    }

    /// How many (empty cell, direction) pairs give `c` each pattern, by `Pat as usize`.
    #[inline(always)]
    pub(crate) fn pat_counts(&self, c: Color) -> &[i32; PATS] {
        &self.pat[ci(c)]
    }

    /// How many empty cells give `c` each [`line_pair`] code.
    #[inline(always)]
    pub(crate) fn pair_counts(&self, c: Color) -> &[i32; PAIRS] {
        &self.pair[ci(c)]
    }

    /// How many empty cells give `c` the combined threat `k`.
    #[inline(always)]
    pub(crate) fn combo_count(&self, c: Color, k: Combo) -> u32 {
        self.combo[ci(c)][k as usize]
    }

    /// Whether `c` may have a four to make somewhere (see [`Position::may_have_four`]).
    #[inline(always)]
    pub(crate) fn may_have_four(&self, c: Color) -> bool {
        threat_counts_of(self.pat)[1][ci(c)] > 0
    }

    /// See [`Position::fork_count`].
    #[inline(always)]
    pub(crate) fn fork_count(&self, c: Color) -> u32 {
        self.combo_count(c, Combo::DoubleThree) + self.combo_count(c, Combo::FourThree)
    }

    /// See [`Position::threat_mask`].
    #[inline(always)]
    pub(crate) fn threat_mask(&self) -> usize {
        let (me, op) = (self.side, self.side.opponent());
        let has = |c: Color, k: Combo| (self.combo_count(c, k) > 0) as usize;
        has(me, Combo::Three)
            | has(me, Combo::Four) << 1
            | has(me, Combo::DoubleThree) << 2
            | has(me, Combo::FourThree) << 3
            | has(op, Combo::Three) << 4
            | has(op, Combo::Four) << 5
            | has(op, Combo::DoubleThree) << 6
            | has(op, Combo::FourThree) << 7
            | has(op, Combo::FlexFour) << 8
    }
}

/// Per colour, how many (empty cell, direction) pairs of `pat` counts make a five, a four (of
/// any kind) and a straight four.
#[inline(always)]
fn threat_counts_of(pat: &[[i32; PATS]; 2]) -> [[u32; 2]; 3] {
    let n = |c: usize, p: Pat| pat[c][p as usize] as u32;
    let fours = |c| n(c, Pat::Four) + n(c, Pat::FourDouble) + n(c, Pat::FourOpen);
    [
        [n(0, Pat::Five), n(1, Pat::Five)],
        [fours(0), fours(1)],
        [n(0, Pat::FourOpen), n(1, Pat::FourOpen)],
    ]
}

/// Number of [`Combo`] kinds.
pub(crate) const COMBOS: usize = 7;

/// What a move makes across its four lines together, weakest first. Counted per colour over the
/// empty cells, it tells the evaluation which threats are one move from a win.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub(crate) enum Combo {
    /// No four and no open three.
    None = 0,
    /// One open three.
    Three = 1,
    /// One four.
    Four = 2,
    /// Two open threes: a straight four next on one of them unless a stone stops both.
    DoubleThree = 3,
    /// A four and an open three: the block of the four leaves a straight four to make.
    FourThree = 4,
    /// A straight four or two fours: wins whatever the answer.
    FlexFour = 5,
    /// A five.
    Five = 6,
}

impl Combo {
    /// The combination of four line patterns; `restricted` for black under renju, whose double
    /// threes, double fours and overlines are forbidden (counted as nothing; the exact test with
    /// its recursion is left to the move generator).
    #[inline]
    pub(crate) fn of(pats: [Pat; 4], restricted: bool) -> Combo {
        let mut fours = 0u32;
        let mut threes = 0u32;
        let mut open_four = false;
        let mut overline = false;
        for p in pats {
            match p {
                Pat::Five => return Combo::Five,
                Pat::FourOpen => {
                    fours += 1;
                    open_four = true;
                }
                Pat::FourDouble => fours += 2,
                Pat::Four => fours += 1,
                Pat::ThreeOpen => threes += 1,
                Pat::Overline => overline = true,
                _ => {}
            }
        }
        if restricted && (overline || fours >= 2 || threes >= 2) {
            return Combo::None;
        }
        Combo::of_parts(fours, threes, open_four)
    }

    /// The combination of a cell's lines from their pattern counts: the same as
    /// [`Combo::of`], without a loop over the lines (the move loop's form).
    #[inline(always)]
    pub(crate) fn of_counts(n: LineCounts, restricted: bool) -> Combo {
        if n.count(Pat::Five) > 0 {
            return Combo::Five;
        }
        let fours = n.count(Pat::Four) + 2 * n.count(Pat::FourDouble) + n.count(Pat::FourOpen);
        let threes = n.count(Pat::ThreeOpen);
        if restricted && (n.count(Pat::Overline) > 0 || fours >= 2 || threes >= 2) {
            return Combo::None;
        }
        Combo::of_parts(fours, threes, n.count(Pat::FourOpen) > 0)
    }

    #[inline(always)]
    fn of_parts(fours: u32, threes: u32, open_four: bool) -> Combo {
        match (fours, threes) {
            _ if open_four || fours >= 2 => Combo::FlexFour,
            (1, t) if t >= 1 => Combo::FourThree,
            (1, _) => Combo::Four,
            (0, t) if t >= 2 => Combo::DoubleThree,
            (0, 1) => Combo::Three,
            _ => Combo::None,
        }
    }
}

/// Number of line-pair codes: see [`line_pair`].
pub(crate) const PAIRS: usize = 26;

/// The cell's code when fewer than two of its lines hold a two or better (or one holds a
/// straight four or more, which the search decides, not the evaluation).
pub(crate) const NO_PAIR: u8 = 25;

/// What a colour's stone on an empty cell would make on its two strongest lines together:
/// `strongest * 5 + second` over two, open two, three, open three, four (a double four on one
/// line counts as a four), or [`NO_PAIR`]. One line's pattern says little about a point that
/// also lies on a second one; the pair is what makes a point worth playing, and the
/// evaluation weighs each pair on its own.
/// The definition, kept beside [`line_pair_of_counts`], the form the move loop uses.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn line_pair(pats: [Pat; 4]) -> u8 {
    let (mut first, mut second) = (Pat::None, Pat::None);
    for p in pats {
        if p > first {
            second = first;
            first = p;
        } else if p > second {
            second = p;
        }
    }
    pair_code(first, second)
}

/// [`line_pair`] from a cell's pattern counts, without a loop over the lines (the move loop's
/// form).
#[inline(always)]
pub(crate) fn line_pair_of_counts(n: LineCounts) -> u8 {
    let first = n.strongest();
    pair_code(first, n.without(first).strongest())
}

#[inline(always)]
fn pair_code(first: Pat, second: Pat) -> u8 {
    PAIR_CODES[first as usize * PATS + second as usize]
}

/// [`pair_code`] by (strongest, second) pattern: one load where the move loop derives a
/// cell's pair after each change.
const PAIR_CODES: [u8; PATS * PATS] = {
    // The pair's five ranks, by pattern order: two, open two, three, open three, four (a double
    // four with them).
    const fn rank(p: usize) -> Option<u8> {
        if p < Pat::Two as usize || p > Pat::FourDouble as usize {
            return None;
        }
        let r = (p - Pat::Two as usize) as u8;
        Some(if r > 4 { 4 } else { r })
    }
    let mut t = [NO_PAIR; PATS * PATS];
    let mut i = 0;
    while i < PATS * PATS {
        if let (Some(a), Some(b)) = (rank(i / PATS), rank(i % PATS)) {
            t[i] = a * 5 + b;
        }
        i += 1;
    }
    t
};

/// [`Position::line_of_diff`]'s mark for a difference off the four lines (or beyond five).
const OFF_LINES: u8 = u8::MAX;

/// The table behind [`Position::line_of_diff`] for a grid `stride` cells wide: a difference
/// `dy * stride + dx` with `|dx| <= 5` has one reading when the stride is above ten, as every
/// padded grid's is.
fn lines_by_diff(stride: isize) -> Vec<u8> {
    let reach = REACH as isize;
    let span = reach * stride + reach;
    let mut table = vec![OFF_LINES; (2 * span + 1) as usize];
    let deltas = [1, stride, stride + 1, 1 - stride];
    for (d, &delta) in deltas.iter().enumerate() {
        for k in (-reach..=reach).filter(|&k| k != 0) {
            table[(delta * k + span) as usize] = (d * 16) as u8 + (k + 5) as u8;
        }
    }
    table
}

/// The key (see [`shift`]) of the cell at the middle of eleven cells, two bits each, the first
/// lowest: the five on each side without the middle one.
#[inline(always)]
fn key_of_window(window: u64) -> u32 {
    let w = window as u32;
    w & 0x3ff | (w >> 2) & (0x3ff << 10)
}

/// Extra rows and columns of edge around a bounded board, so line reads never leave the grid.
const PAD: i32 = REACH as i32;
/// Room left around the stones of the unbounded board, which the engine sees as a finite window.
const UNBOUNDED_MARGIN: i32 = 24;

/// A cell of the padded grid.
pub(crate) type Sq = usize;

/// Index of a colour in per-colour arrays.
#[inline]
pub(crate) const fn ci(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

const fn code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

#[inline]
fn zobrist(sq: Sq, c: Color) -> u64 {
    // SplitMix64 of the cell and colour: a fixed random number per (cell, colour) without a table
    // whose size would depend on the board.
    splitmix64((sq as u64) << 1 | ci(c) as u64)
}

/// The hash of an empty board under `rule`. The same stones make other threats under another
/// rule (a forbidden point, an overline that is no five), and one engine, with one table,
/// serves games under every rule (the web app's engines do), so each rule keys its positions
/// apart. Freestyle's is zero: its keys are what they were before the rule was keyed.
fn rule_key(rule: Rule) -> u64 {
    match rule {
        Rule::Freestyle => 0,
        other => splitmix64(1 << 32 | other as u64),
    }
}

/// The hash term of the window's size: a cell's key is its index, which names another point on
/// a board of another width, and the window's edges make other threats of the same stones. One
/// table serves games on every board (the web app's engines do), so each size keys its positions
/// apart. Where the window lies on an unbounded board does not count: the cells outside it read
/// as edge, so the same stones in a window of the same size are the same position. The 15x15
/// board's is zero: its keys are what they were before the size was keyed.
fn window_key(w: i32, h: i32) -> u64 {
    if (w, h) == (15, 15) {
        return 0;
    }
    splitmix64(2 << 32 ^ (w as u32 as u64) << 16 ^ h as u32 as u64)
}

/// SplitMix64's output for state `x`: a bijection that scatters neighbouring inputs far apart,
/// for the Zobrist keys and for seeding the levels' random choices.
#[inline]
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The engine's position.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    rule: Rule,
    size: BoardSize,
    /// Grid width including padding.
    stride: i32,
    /// Board point of grid cell (PAD, PAD).
    origin: Point,
    cells: Vec<u8>,
    /// Every line of the grid in each direction, two bits a cell (the cell values of a key),
    /// edge beyond the grid: a stone changes one word a direction, and the key of any cell is
    /// read off its line (see [`Position::key`]).
    lines: Vec<u64>,
    /// Where each cell sits in `lines`, `line_bits[sq * 4 + dir]`: the bit of its value.
    line_bits: Vec<u32>,
    /// Patterns of empty cells, `pats[sq * 4 + dir]`, both colours in one byte as the pattern
    /// table packs them (black's in the low four bits).
    pats: Vec<u8>,
    /// Stones within two cells (king distance), for candidate moves.
    near: Vec<u8>,
    /// The playable cells with `near > 0`, in the order they came near a stone, so that move
    /// generation costs the same on 15x15 and 100x100.
    near_list: Vec<Sq>,
    /// Per colour, how many (empty cell, direction) pairs hold each pattern: the evaluation's
    /// raw material, and for threat searches the fives and fours to make (a zero lets them stop
    /// without looking at a single cell).
    pat_counts: [[i32; PATS]; 2],
    /// Each empty cell's combined threat per colour (`combos[sq * 2 + colour]`, a [`Combo`]), and
    /// per colour how many cells hold each kind: what the lines make together, which no single
    /// line shows (a four with an open three, two open threes).
    combos: Vec<Combo>,
    combo_counts: [[u32; COMBOS]; 2],
    /// Each empty cell's [`line_pair`] code per colour (`pairs[sq * 2 + colour]`), and per
    /// colour how many cells hold each code.
    pairs: Vec<u8>,
    pair_counts: [[i32; PAIRS]; 2],
    /// Black's double threes and double fours count as nothing under renju: they are forbidden.
    black_restricted: bool,
    /// Lean moves keep only what threat searches read (patterns and their counts, the hash):
    /// the combinations and pairs and their counts stay as they were before the first lean
    /// move, and are exact again once it is taken back.
    lean: bool,
    /// What each stone put changed, so that taking it back restores instead of recomputing:
    /// the old patterns and combinations (index, value), and per stone the counters before it.
    undo_pats: Vec<(u32, u8)>,
    undo_combos: Vec<(u32, Combo)>,
    undo_pairs: Vec<(u32, u8)>,
    frames: Vec<Frame>,
    /// Move ordering's place of a cell against another, by their difference.
    places: Vec<u8>,
    /// The line and offset of a cell against another, by their difference (see
    /// [`Position::line_of_diff`]): `d * 16 + k + 5`, or [`OFF_LINES`].
    lines_by_diff: Vec<u8>,
    table: PatTable,
    /// Steps between neighbours along the four directions.
    pub(crate) deltas: [isize; 4],
    side: Color,
    hash: u64,
    playable: Vec<Sq>,
    stones: u32,
    area: u32,
}

impl Position {
    /// The position of `board` with `side` to move under `rule`.
    pub(crate) fn new(board: &Board, rule: Rule, side: Color) -> Position {
        let size = board.size();
        let (origin, w, h) = match (size.width(), size.height()) {
            (Some(w), Some(h)) => (Point::new(0, 0), w as i32, h as i32),
            _ => {
                let (lo, hi) = board
                    .extent()
                    .unwrap_or((Point::new(0, 0), Point::new(0, 0)));
                // The window ends where the board does: beyond the coordinate bound is edge,
                // and the padding outside the window already reads as edge.
                let m = MAX_UNBOUNDED_COORD;
                let x0 = (lo.x - UNBOUNDED_MARGIN).max(-m);
                let y0 = (lo.y - UNBOUNDED_MARGIN).max(-m);
                let x1 = (hi.x + UNBOUNDED_MARGIN).min(m);
                let y1 = (hi.y + UNBOUNDED_MARGIN).min(m);
                (Point::new(x0, y0), x1 - x0 + 1, y1 - y0 + 1)
            }
        };
        let stride = w + 2 * PAD;
        let rows = h + 2 * PAD;
        let n = (stride * rows) as usize;
        let kind_of = |c: Color| match rule {
            Rule::Freestyle => FiveKind::AtLeast,
            Rule::Standard => FiveKind::Exactly,
            Rule::Renju if c == Color::Black => FiveKind::Exactly,
            Rule::Renju => FiveKind::AtLeast,
            Rule::Caro => FiveKind::Unblocked,
            Rule::CaroOverlines => FiveKind::LongOrUnblocked,
        };
        let mut pos = Position {
            rule,
            size,
            stride,
            origin,
            cells: vec![EDGE; n],
            lines: Vec::new(),
            line_bits: vec![0; n * 4],
            pats: vec![0; n * 4],
            near: vec![0; n],
            near_list: Vec::new(),
            // Every cell's four lines start with nothing.
            pat_counts: {
                let mut counts = [[0; PATS]; 2];
                counts[0][Pat::None as usize] = (n * 4) as i32;
                counts[1][Pat::None as usize] = (n * 4) as i32;
                counts
            },
            combos: vec![Combo::None; n * 2],
            // Every cell starts with no threat.
            combo_counts: [[n as u32, 0, 0, 0, 0, 0, 0]; 2],
            pairs: vec![NO_PAIR; n * 2],
            pair_counts: {
                let mut counts = [[0; PAIRS]; 2];
                counts[0][NO_PAIR as usize] = n as i32;
                counts[1][NO_PAIR as usize] = n as i32;
                counts
            },
            black_restricted: rule == Rule::Renju,
            lean: false,
            undo_pats: Vec::new(),
            undo_combos: Vec::new(),
            undo_pairs: Vec::new(),
            frames: Vec::new(),
            places: crate::order::places_by_diff(stride as isize),
            lines_by_diff: lines_by_diff(stride as isize),
            table: PatTable::get(kind_of(Color::Black), kind_of(Color::White)),
            deltas: [1, stride as isize, stride as isize + 1, 1 - stride as isize],
            side: Color::Black,
            hash: rule_key(rule) ^ window_key(w, h),
            playable: Vec::new(),
            stones: 0,
            area: (w * h) as u32,
        };
        pos.lay_out_lines(rows);
        for y in 0..h {
            for x in 0..w {
                let sq = ((y + PAD) * stride + x + PAD) as usize;
                pos.cells[sq] = EMPTY;
                pos.playable.push(sq);
                for d in 0..4 {
                    pos.set_line_cell(sq, d, EMPTY);
                }
            }
        }
        for &sq in &pos.playable.clone() {
            pos.refresh(sq);
        }
        for (p, c) in board.stones() {
            if let Some(sq) = pos.sq(p) {
                pos.put(sq, c);
            }
        }
        pos.frames.clear();
        pos.undo_pats.clear();
        pos.undo_combos.clear();
        pos.undo_pairs.clear();
        pos.side = side;
        pos
    }

    // Gives every cell of the grid its place on its line in each direction, each line a
    // segment of whole words with edge cells past both ends, all cells edge to begin with.
    fn lay_out_lines(&mut self, rows: i32) {
        let stride = self.stride;
        // A stone's window starts ten cells before it (a key five cells away, and that key's
        // own five), five before the grid's padding: the margin keeps it on the stone's line.
        // What a window holds past the padding is never part of a key.
        const MARGIN: i32 = 8;
        let longest = stride.max(rows);
        let segment_words = (2 * (longest + 2 * MARGIN) + 63) / 64;
        // Per direction: its line of a cell and the cell's index along it.
        let place = |d: usize, x: i32, y: i32| match d {
            0 => (y, x),
            1 => (x, y),
            2 => (x - y + rows - 1, y),
            _ => (x + y, x),
        };
        let line_counts = [rows, stride, stride + rows - 1, stride + rows - 1];
        let mut first_line = 0;
        for (d, &count) in line_counts.iter().enumerate() {
            for y in 0..rows {
                for x in 0..stride {
                    let (line, index) = place(d, x, y);
                    let bit =
                        ((first_line + line) * segment_words * 64 + 2 * (MARGIN + index)) as u32;
                    self.line_bits[(y * stride + x) as usize * 4 + d] = bit;
                }
            }
            first_line += count;
        }
        // One word more, so a read of two words never leaves the vector.
        self.lines = vec![u64::MAX; (first_line * segment_words + 1) as usize];
    }

    // Writes value `v` of `sq` on its line in direction `d` (over an empty cell, or empty over
    // a stone or the edge).
    #[inline(always)]
    fn set_line_cell(&mut self, sq: Sq, d: usize, v: u8) {
        let bit = self.line_bits[sq * 4 + d];
        let word = &mut self.lines[(bit >> 6) as usize];
        *word = *word & !(3 << (bit & 63)) | (v as u64) << (bit & 63);
    }

    // The 32 cells of `sq`'s line in direction `d` from `before` cells before it on, two bits
    // each, the first lowest.
    #[inline(always)]
    fn line_window(&self, sq: Sq, d: usize, before: u32) -> u64 {
        let bit = self.line_bits[sq * 4 + d] - 2 * before;
        let w = (bit >> 6) as usize;
        let pair = u128::from(self.lines[w]) | u128::from(self.lines[w + 1]) << 64;
        (pair >> (bit & 63)) as u64
    }

    // The key of `sq` along `d`: the five cells on each side, as `shift` places them.
    #[inline(always)]
    fn key(&self, sq: Sq, d: usize) -> u32 {
        key_of_window(self.line_window(sq, d, REACH as u32))
    }

    /// The rule.
    pub(crate) fn rule(&self) -> Rule {
        self.rule
    }

    /// The side to move.
    #[inline]
    pub(crate) fn side(&self) -> Color {
        self.side
    }

    /// The Zobrist hash of stones and side to move.
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        if self.side == Color::White {
            !self.hash
        } else {
            self.hash
        }
    }

    /// The [`Position::hash`] after the side to move plays `sq`.
    #[inline]
    pub(crate) fn hash_after(&self, sq: Sq) -> u64 {
        let raw = self.hash ^ zobrist(sq, self.side);
        if self.side == Color::Black { !raw } else { raw }
    }

    /// Whether no empty point is left.
    pub(crate) fn full(&self) -> bool {
        self.stones >= self.area
    }

    /// The grid cell of a board point, if the engine's window holds it.
    pub(crate) fn sq(&self, p: Point) -> Option<Sq> {
        let x = p.x - self.origin.x;
        let y = p.y - self.origin.y;
        let w = self.stride - 2 * PAD;
        let h = self.cells.len() as i32 / self.stride - 2 * PAD;
        (x >= 0 && y >= 0 && x < w && y < h).then(|| ((y + PAD) * self.stride + x + PAD) as Sq)
    }

    /// The board point of a grid cell.
    pub(crate) fn point(&self, sq: Sq) -> Point {
        let sq = sq as i32;
        Point::new(
            sq % self.stride - PAD + self.origin.x,
            sq / self.stride - PAD + self.origin.y,
        )
    }

    /// Every playable cell of the window.
    pub(crate) fn playable(&self) -> &[Sq] {
        &self.playable
    }

    /// The board size the position came from.
    pub(crate) fn size(&self) -> BoardSize {
        self.size
    }

    /// The stone on a cell: EMPTY, BLACK, WHITE or EDGE.
    #[inline]
    pub(crate) fn cell(&self, sq: Sq) -> u8 {
        self.cells[sq]
    }

    /// Whether a cell is empty and playable.
    #[inline]
    pub(crate) fn is_empty(&self, sq: Sq) -> bool {
        self.cells[sq] == EMPTY
    }

    /// What `c` on the empty `sq` makes along direction `d`.
    #[inline]
    pub(crate) fn pat(&self, sq: Sq, c: Color, d: usize) -> Pat {
        unpack(self.pats[sq * 4 + d], ci(c))
    }

    /// Whether `c` on the empty `sq` makes a four or a five on some line.
    #[inline]
    pub(crate) fn makes_four(&self, sq: Sq, c: Color) -> bool {
        self.four_or_five_mask(sq) & (1 << ci(c)) != 0
    }

    // Bit 0: black makes a four or a five on `sq`; bit 1: white does.
    #[inline(always)]
    fn four_or_five_mask(&self, sq: Sq) -> u8 {
        let p = self.packed_pats(sq);
        FOUR_OR_FIVE[p[0] as usize]
            | FOUR_OR_FIVE[p[1] as usize]
            | FOUR_OR_FIVE[p[2] as usize]
            | FOUR_OR_FIVE[p[3] as usize]
    }

    /// What `c` would make on the empty `sq` along direction `d` if a stone of `stone` stood
    /// `k` cells away along that line (on an empty cell): one table read instead of a move and
    /// its undo, for the open-three defence test.
    #[inline]
    pub(crate) fn pat_with_stone(&self, sq: Sq, c: Color, d: usize, k: i32, stone: Color) -> Pat {
        let key = self.key(sq, d) | (code(stone) as u32) << shift(k);
        self.table.lookup(key)[ci(c)]
    }

    /// The four patterns of `c` on `sq`.
    #[inline]
    pub(crate) fn pats(&self, sq: Sq, c: Color) -> [Pat; 4] {
        self.pats_of(sq, ci(c))
    }

    // The four patterns of the colour with index `c` on `sq`.
    #[inline(always)]
    fn pats_of(&self, sq: Sq, c: usize) -> [Pat; 4] {
        let p = self.packed_pats(sq);
        [
            unpack(p[0], c),
            unpack(p[1], c),
            unpack(p[2], c),
            unpack(p[3], c),
        ]
    }

    /// Recomputes the patterns of the empty `sq` along `d`, keeping the counts.
    #[inline(always)]
    fn set_pats(&mut self, sq: Sq, d: usize, key: u32) {
        let slot = sq * 4 + d;
        let new = self.table.lookup_packed(key);
        // Some stones change nothing at a distance, for either colour: one compare of the
        // packed byte says so, and the recount below stays out of the loop's way.
        let old = self.pats[slot];
        if old == new {
            return;
        }
        if self.lean {
            // Only the patterns and their counts.
            self.pats[slot] = new;
            self.undo_pats.push((slot as u32, old));
            for c in 0..2 {
                self.pat_counts[c][unpack(old, c) as usize] -= 1;
                self.pat_counts[c][unpack(new, c) as usize] += 1;
            }
        } else {
            self.pats_changed(sq, slot, new);
        }
    }

    // The patterns of the empty `sq` at `slot` become `new`: the counts, combinations and
    // pairs follow, and the old byte goes to the undo log.
    #[inline(never)]
    fn pats_changed(&mut self, sq: Sq, slot: usize, new: u8) {
        let old = std::mem::replace(&mut self.pats[slot], new);
        self.undo_pats.push((slot as u32, old));
        let counts = self.line_counts(sq);
        for c in 0..2 {
            let (old, new) = (unpack(old, c), unpack(new, c));
            if old == new {
                continue;
            }
            self.pat_counts[c][old as usize] -= 1;
            self.pat_counts[c][new as usize] += 1;
            let n = LineCounts::of(counts, c);
            // Only open threes and up (and overlines) take part in a combination.
            if old.max(new) >= Pat::ThreeOpen {
                self.set_combo(sq, c, n);
            }
            // Nones and ones below a two take no part in a pair.
            if old.max(new) >= Pat::Two {
                self.set_pair(sq, c, n);
            }
        }
    }

    /// The packed pattern bytes of `sq`'s four lines (both colours in each, black's in the low
    /// four bits).
    #[inline(always)]
    pub(crate) fn packed_pats(&self, sq: Sq) -> [u8; 4] {
        let p = &self.pats[sq * 4..sq * 4 + 4];
        [p[0], p[1], p[2], p[3]]
    }

    // Both colours' pattern counts over the four lines of `sq` (see `LINE_COUNTS`).
    #[inline(always)]
    fn line_counts(&self, sq: Sq) -> u64 {
        let p = self.packed_pats(sq);
        LINE_COUNTS[p[0] as usize]
            + LINE_COUNTS[p[1] as usize]
            + LINE_COUNTS[p[2] as usize]
            + LINE_COUNTS[p[3] as usize]
    }

    // Re-derives the line pair of `c` (an index) on the empty `sq`, whose counts are `n`.
    #[inline]
    fn set_pair(&mut self, sq: Sq, c: usize, n: LineCounts) {
        let new = line_pair_of_counts(n);
        let slot = sq * 2 + c;
        let old = std::mem::replace(&mut self.pairs[slot], new);
        if old != new {
            self.undo_pairs.push((slot as u32, old));
            self.pair_counts[c][old as usize] -= 1;
            self.pair_counts[c][new as usize] += 1;
        }
    }

    // Re-derives the combined threat of `c` (an index) on the empty `sq` from its four lines.
    #[inline]
    fn set_combo(&mut self, sq: Sq, c: usize, n: LineCounts) {
        let new = Combo::of_counts(n, c == 0 && self.black_restricted);
        let old = std::mem::replace(&mut self.combos[sq * 2 + c], new);
        if old != new {
            self.undo_combos.push(((sq * 2 + c) as u32, old));
            self.combo_counts[c][old as usize] -= 1;
            self.combo_counts[c][new as usize] += 1;
        }
    }

    fn refresh(&mut self, sq: Sq) {
        for d in 0..4 {
            self.set_pats(sq, d, self.key(sq, d));
        }
    }

    // An occupied cell holds no patterns: its weights leave the sums.
    fn clear_pats(&mut self, sq: Sq) {
        for d in 0..4 {
            let slot = sq * 4 + d;
            let old = std::mem::replace(&mut self.pats[slot], 0);
            self.undo_pats.push((slot as u32, old));
            for c in 0..2 {
                self.pat_counts[c][unpack(old, c) as usize] -= 1;
                self.pat_counts[c][Pat::None as usize] += 1;
            }
        }
        if self.lean {
            return;
        }
        for c in 0..2 {
            let old = std::mem::replace(&mut self.combos[sq * 2 + c], Combo::None);
            self.undo_combos.push(((sq * 2 + c) as u32, old));
            self.combo_counts[c][old as usize] -= 1;
            self.combo_counts[c][Combo::None as usize] += 1;
            let old = std::mem::replace(&mut self.pairs[sq * 2 + c], NO_PAIR);
            self.undo_pairs.push(((sq * 2 + c) as u32, old));
            self.pair_counts[c][old as usize] -= 1;
            self.pair_counts[c][NO_PAIR as usize] += 1;
        }
    }

    /// Turns lean moves on or off (see the field); returns the setting before. Threat searches
    /// that read nothing but patterns and the five and four counts move lean: about half of a
    /// move's bookkeeping is the evaluation's, which they never ask for.
    pub(crate) fn set_lean(&mut self, lean: bool) -> bool {
        std::mem::replace(&mut self.lean, lean)
    }

    /// Per colour, how many (empty cell, direction) pairs make a five, a four (of any kind)
    /// and a straight four.
    #[inline(always)]
    fn threat_counts(&self) -> [[u32; 2]; 3] {
        threat_counts_of(&self.pat_counts)
    }

    /// The counters of this position, as the evaluation reads them.
    #[inline(always)]
    pub(crate) fn counts(&self) -> Counts<'_> {
        Counts {
            side: self.side,
            pat: &self.pat_counts,
            pair: &self.pair_counts,
            combo: &self.combo_counts,
        }
    }

    /// The counters of the position before the last move: before the last stone, with its
    /// player to move, or after a pass the same stones with the side that passed to move.
    /// `None` when no stone was put since the position was set up (a search's root). Not for
    /// lean moves, whose frames keep stale combinations and pairs, nor inside a probe's
    /// [`Position::place`].
    #[inline]
    pub(crate) fn parent_counts(&self) -> Option<Counts<'_>> {
        let f = self.frames.last()?;
        if f.colour == self.side {
            // The side to move put the last stone: a pass came after it.
            return Some(self.counts().other_side_to_move());
        }
        Some(Counts {
            side: f.colour,
            pat: &f.pat_counts,
            pair: &f.pair_counts,
            combo: &f.combo_counts,
        })
    }

    /// How many empty cells give `c` the combined threat `k`.
    #[inline]
    pub(crate) fn combo_count(&self, c: Color, k: Combo) -> u32 {
        self.combo_counts[ci(c)][k as usize]
    }

    /// Which combined threats each side has on some empty cell, as nine bits: for the side to
    /// move an open three, a four, a double three and a four-three (bits 0 to 3), for the
    /// opponent the same (bits 4 to 7) and a straight four or double four (bit 8; the side to
    /// move's own is a win the search settles before it evaluates). Black's forbidden points
    /// under renju count as nothing, as in [`Combo::of`]. The evaluation weighs each mask.
    pub(crate) fn threat_mask(&self) -> usize {
        self.counts().threat_mask()
    }

    /// How many empty cells give `c` a double three or a four-three: the forks the evaluation
    /// weighs.
    #[inline]
    pub(crate) fn fork_count(&self, c: Color) -> u32 {
        self.counts().fork_count(c)
    }

    /// Whether `c` has a five to make somewhere.
    #[inline]
    pub(crate) fn has_five(&self, c: Color) -> bool {
        self.threat_counts()[0][ci(c)] > 0
    }

    /// Whether `c` may have a four to make somewhere (for black under renju, perhaps only on
    /// forbidden points).
    #[inline]
    pub(crate) fn may_have_four(&self, c: Color) -> bool {
        self.threat_counts()[1][ci(c)] > 0
    }

    /// Whether `c` may have a straight four to make somewhere.
    #[inline]
    pub(crate) fn may_have_open_four(&self, c: Color) -> bool {
        self.threat_counts()[2][ci(c)] > 0
    }

    /// Whether `c` may have a straight four or a double four to make somewhere: when not, no
    /// point wins in three for `c` (the move generator's `FlexFour`, and for the opponent its
    /// forced answers to an open three). Exact but for black under renju, where it counts every
    /// straight four, forbidden or not. Not for lean moves, which leave the combinations behind.
    #[inline]
    pub(crate) fn may_have_flex_four(&self, c: Color) -> bool {
        debug_assert!(!self.lean);
        if c == Color::Black && self.black_restricted {
            self.may_have_open_four(c)
        } else {
            self.combo_count(c, Combo::FlexFour) > 0
        }
    }

    /// The last stone put, if any.
    pub(crate) fn last_move(&self) -> Option<Sq> {
        self.frames.last().map(|f| f.sq)
    }

    /// The [`line_pair`] code of `c` on the empty `sq` (kept move by move, but for lean moves).
    #[inline(always)]
    pub(crate) fn pair_at(&self, sq: Sq, c: Color) -> u8 {
        if self.lean {
            line_pair(self.pats(sq, c))
        } else {
            self.pairs[sq * 2 + ci(c)]
        }
    }

    /// Where a cell `diff` cells after another lies against it, as move ordering sees it (see
    /// `order::places_by_diff`).
    #[inline(always)]
    pub(crate) fn place_of_diff(&self, diff: isize) -> u8 {
        let reach = (self.places.len() / 2) as isize;
        if diff.abs() > reach {
            return crate::order::FAR;
        }
        self.places[(diff + reach) as usize]
    }

    /// The direction `d` and the offset `k` (±1 to ±5) with `diff == deltas[d] * k`, if a cell
    /// `diff` cells after another lies on one of its four lines within five points.
    #[inline(always)]
    pub(crate) fn line_of_diff(&self, diff: isize) -> Option<(usize, i32)> {
        let reach = (self.lines_by_diff.len() / 2) as isize;
        if diff.abs() > reach {
            return None;
        }
        match self.lines_by_diff[(diff + reach) as usize] {
            OFF_LINES => None,
            v => Some(((v >> 4) as usize, (v & 15) as i32 - 5)),
        }
    }

    /// The stone put before the last one, if any.
    pub(crate) fn move_before_last(&self) -> Option<Sq> {
        self.frames.len().checked_sub(2).map(|i| self.frames[i].sq)
    }

    /// How many (empty cell, direction) pairs give `c` each pattern, by `Pat as usize`.
    #[inline]
    pub(crate) fn pat_counts(&self, c: Color) -> &[i32; PATS] {
        &self.pat_counts[ci(c)]
    }

    /// How many empty cells give `c` each [`line_pair`] code.
    #[inline]
    pub(crate) fn pair_counts(&self, c: Color) -> &[i32; PAIRS] {
        &self.pair_counts[ci(c)]
    }

    /// Fills `out` with the empty cells near stones where `c` makes a four or a five, or where
    /// `also` does: a threat search's candidates without a copy of every cell near stones. A
    /// four always lies within two points of a stone of its own (three of its five points are
    /// stones), so no such cell is missed.
    #[inline]
    pub(crate) fn four_cells(&self, c: Color, also: Option<Color>, out: &mut Vec<Sq>) {
        let mask = (1 << ci(c)) | also.map_or(0, |o| 1 << ci(o));
        out.clear();
        // A plain loop: through a filter, whose closure the threat search left uninlined, the
        // search took 2.4% more instructions.
        for &s in &self.near_list {
            if self.cells[s] == EMPTY && self.four_or_five_mask(s) & mask != 0 {
                out.push(s);
            }
        }
    }

    /// Fills `out` with the empty cells near stones: the candidate moves.
    #[inline]
    pub(crate) fn empty_near_cells(&self, out: &mut Vec<Sq>) {
        out.clear();
        out.extend(self.near_list.iter().copied().filter(|&s| self.is_empty(s)));
    }

    fn put(&mut self, sq: Sq, c: Color) {
        self.frames.push(Frame {
            sq,
            colour: c,
            pats: self.undo_pats.len() as u32,
            combos: self.undo_combos.len() as u32,
            pairs: self.undo_pairs.len() as u32,
            near: self.near_list.len() as u32,
            pat_counts: self.pat_counts,
            pair_counts: self.pair_counts,
            combo_counts: self.combo_counts,
        });
        self.clear_pats(sq);
        self.cells[sq] = code(c);
        self.hash ^= zobrist(sq, c);
        self.stones += 1;
        self.add_to_lines(sq, code(c));
        self.mark_near(sq);
    }

    /// Plays `sq` for the side to move.
    pub(crate) fn make(&mut self, sq: Sq) {
        debug_assert!(self.is_empty(sq));
        self.put(sq, self.side);
        self.side = self.side.opponent();
    }

    /// Passes: the other side moves (a null move for pruning; pass again to take it back).
    pub(crate) fn pass(&mut self) {
        self.side = self.side.opponent();
    }

    /// Takes back the last move.
    pub(crate) fn unmake(&mut self) {
        if self.frames.is_empty() {
            return;
        }
        self.side = self.side.opponent();
        self.lift();
    }

    // Takes back the last stone put (there is one): every pattern and counter it changed goes
    // back to the value logged, newest first, so no pattern is looked up again. The frame is
    // read where it lies and then dropped, not moved out first (a copy of its counts the
    // fewer).
    fn lift(&mut self) {
        let frame = &self.frames[self.frames.len() - 1];
        let (sq, c, near) = (frame.sq, frame.colour, frame.near);
        let (pats, combos, pairs) = (frame.pats, frame.combos, frame.pairs);
        self.cells[sq] = EMPTY;
        self.hash ^= zobrist(sq, c);
        self.stones -= 1;
        for d in 0..4 {
            self.set_line_cell(sq, d, EMPTY);
        }
        self.unmark_near(sq, near);
        // Newest first, then the logs cut back: plain loops over the logs' tails take a sixth
        // fewer instructions than draining them.
        for &(slot, old) in self.undo_pats[pats as usize..].iter().rev() {
            self.pats[slot as usize] = old;
        }
        self.undo_pats.truncate(pats as usize);
        for &(slot, old) in self.undo_combos[combos as usize..].iter().rev() {
            self.combos[slot as usize] = old;
        }
        self.undo_combos.truncate(combos as usize);
        for &(slot, old) in self.undo_pairs[pairs as usize..].iter().rev() {
            self.pairs[slot as usize] = old;
        }
        self.undo_pairs.truncate(pairs as usize);
        let frame = &self.frames[self.frames.len() - 1];
        self.pat_counts = frame.pat_counts;
        self.pair_counts = frame.pair_counts;
        self.combo_counts = frame.combo_counts;
        self.frames.truncate(self.frames.len() - 1);
    }

    /// Puts a stone of `c` on `sq` without changing the side to move (for probes such as the
    /// recursive forbidden-point test); undo with [`Position::unplace`].
    pub(crate) fn place(&mut self, sq: Sq, c: Color) {
        self.put(sq, c);
    }

    /// Takes back a stone put by [`Position::place`].
    pub(crate) fn unplace(&mut self, sq: Sq, c: Color) {
        if let Some(frame) = self.frames.last() {
            debug_assert!(frame.sq == sq && frame.colour == c, "unplace out of order");
            self.lift();
        }
    }

    // Writes the stone of value `v` on `sq`'s four lines and looks up the patterns of the empty
    // cells around it (a stone taken back restores them from the undo log instead).
    fn add_to_lines(&mut self, sq: Sq, v: u8) {
        // Cells farther than the table's reach keep their patterns.
        let reach = self.table.reach(v);
        for d in 0..4 {
            self.set_line_cell(sq, d, v);
            // Cells -10 to +10 along the line: every key within reach of the stone.
            let window = self.line_window(sq, d, 2 * REACH as u32);
            let delta = self.deltas[d];
            // A plain counted loop: the move's costliest, where an iterator over a filtered
            // inclusive range cost a tenth of the move's instructions.
            let mut k = -reach;
            while k <= reach {
                let at = 2 * (k + REACH as i32) as u32;
                if k != 0 && (window >> (at + 2 * REACH as u32)) & 3 == EMPTY as u64 {
                    let t = (sq as isize + delta * k as isize) as usize;
                    self.set_pats(t, d, key_of_window(window >> at));
                }
                k += 1;
            }
        }
    }

    // Counts the stone on `sq` in the near counts of the cells within two points, and lists the
    // cells it brings near a stone for the first time, at the end of the list, row by row and
    // left to right. Edge cells count too but never join the list. Each row's five counts move
    // as one word (a count never passes 25, so no carry crosses a byte).
    fn mark_near(&mut self, sq: Sq) {
        for dy in -2..=2isize {
            let first = self.near_row(sq, dy);
            let old = self.near_word(first);
            self.set_near_word(first, old + NEAR_ROW_ONES);
            // The high bit of each of the five bytes that were zero (exact: no borrow between
            // bytes).
            let low7 = 0x7f7f_7f7f_7f7f_7f7f;
            let mut fresh = !(((old & low7) + low7) | old) & NEAR_ROW_ONES << 7;
            while fresh != 0 {
                let t = first + (fresh.trailing_zeros() / 8) as usize;
                if self.cells[t] != EDGE {
                    self.near_list.push(t);
                }
                fresh &= fresh - 1;
            }
        }
    }

    // Takes the stone on `sq`, the last one put, out of the near counts. The cells whose count
    // falls to zero are exactly those its `mark_near` listed, at the end of the list (stones
    // come off in the reverse order they went on), so cutting the list back to its length
    // before that stone restores it, order and all.
    fn unmark_near(&mut self, sq: Sq, listed_before: u32) {
        for dy in -2..=2isize {
            let first = self.near_row(sq, dy);
            let old = self.near_word(first);
            self.set_near_word(first, old - NEAR_ROW_ONES);
        }
        self.near_list.truncate(listed_before as usize);
    }

    // The first of the five cells of row `dy` (-2 to 2) around `sq`: within the padding of a
    // playable cell, so the eight bytes read from it lie inside the grid.
    #[inline(always)]
    fn near_row(&self, sq: Sq, dy: isize) -> usize {
        (sq as isize + dy * self.stride as isize - 2) as usize
    }

    #[inline(always)]
    fn near_word(&self, first: usize) -> u64 {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&self.near[first..first + 8]);
        u64::from_le_bytes(bytes)
    }

    #[inline(always)]
    fn set_near_word(&mut self, first: usize, word: u64) {
        self.near[first..first + 8].copy_from_slice(&word.to_le_bytes());
    }
}

/// One in each of the low five bytes: a row of near counts, moved by one.
const NEAR_ROW_ONES: u64 = 0x01_0101_0101;

/// The next point of a fixed pseudo-random walk (xorshift) in the `span` x `span` square whose
/// corner is (`lo`, `lo`): the tests' way to reach positions dense with threats.
#[cfg(test)]
pub(crate) fn random_point(seed: &mut u64, lo: i32, span: u64) -> Point {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    Point::new(
        lo + (*seed % span) as i32,
        lo + (*seed / span % span) as i32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::BoardSize;

    /// A stone on the same cell index of boards of other sizes is another position, and keys
    /// apart; the same stones moved across an unbounded board are the same position.
    #[test]
    fn each_board_size_keys_the_same_cells_apart() {
        let standard = Position::new(
            &tengen_rules::Board::new(BoardSize::STANDARD),
            Rule::Freestyle,
            Color::White,
        );
        let cell = standard.sq(Point::new(7, 7)).expect("on the board");
        let mut keys = std::collections::HashSet::new();
        for size in [
            BoardSize::STANDARD,
            BoardSize::square(19).expect("a size"),
            BoardSize::rect(15, 20).expect("a size"),
            BoardSize::rect(20, 15).expect("a size"),
        ] {
            let empty = Position::new(
                &tengen_rules::Board::new(size),
                Rule::Freestyle,
                Color::White,
            );
            let mut board = tengen_rules::Board::new(size);
            board
                .place(empty.point(cell), Color::Black)
                .expect("an empty point");
            let pos = Position::new(&board, Rule::Freestyle, Color::White);
            assert_eq!(pos.sq(empty.point(cell)), Some(cell), "{size:?}");
            keys.insert(pos.hash());
        }
        assert_eq!(keys.len(), 4);
        let unbounded = |x: i32| {
            let mut board = tengen_rules::Board::new(BoardSize::UNBOUNDED);
            board
                .place(Point::new(x, 0), Color::Black)
                .expect("an empty point");
            board
                .place(Point::new(x + 1, 1), Color::White)
                .expect("an empty point");
            Position::new(&board, Rule::Freestyle, Color::Black).hash()
        };
        assert_eq!(unbounded(0), unbounded(-500));
    }

    #[test]
    fn each_rule_keys_the_same_stones_apart() {
        let mut board = tengen_rules::Board::new(BoardSize::STANDARD);
        for (x, y, c) in [
            (7, 7, Color::Black),
            (8, 8, Color::White),
            (6, 8, Color::Black),
        ] {
            board.place(Point::new(x, y), c).expect("an empty point");
        }
        for side in [Color::Black, Color::White] {
            let keys: std::collections::HashSet<u64> = Rule::ALL
                .iter()
                .map(|&rule| Position::new(&board, rule, side).hash())
                .collect();
            assert_eq!(keys.len(), Rule::ALL.len(), "{side:?} to move");
        }
    }

    #[test]
    fn the_threat_mask_names_what_each_side_has() {
        // Black's open three in a row: a straight four to make at either end, a four one
        // further out, and nothing for white.
        let mut board = tengen_rules::Board::new(BoardSize::STANDARD);
        for x in 5..8 {
            board
                .place(Point::new(x, 7), Color::Black)
                .expect("an empty point");
        }
        let white = Position::new(&board, Rule::Freestyle, Color::White);
        assert_eq!(white.threat_mask(), 1 << 5 | 1 << 8);
        assert_eq!(
            crate::eval::threat_name(white.threat_mask()),
            "threat_x4_x44"
        );
        let black = Position::new(&board, Rule::Freestyle, Color::Black);
        assert_eq!(black.threat_mask(), 1 << 1);
        assert_eq!(crate::eval::threat_name(black.threat_mask()), "threat_4");
        assert_eq!(crate::eval::threat_name(0), "threat_none");
    }

    // Every colour's combination counts, recounted from the cells' patterns.
    fn recount(pos: &Position) -> [[u32; COMBOS]; 2] {
        let mut counts = [[0; COMBOS]; 2];
        let cells = pos.cells.len();
        for sq in 0..cells {
            for (c, count) in counts.iter_mut().enumerate() {
                let kind = if pos.cells[sq] == EMPTY {
                    Combo::of(pos.pats_of(sq, c), c == 0 && pos.black_restricted)
                } else {
                    Combo::None
                };
                count[kind as usize] += 1;
            }
        }
        counts
    }

    #[test]
    fn combinations_of_line_patterns() {
        use Pat::*;
        let of = |p: [Pat; 4], r| Combo::of(p, r);
        assert_eq!(of([Four, ThreeOpen, None, Two], false), Combo::FourThree);
        assert_eq!(
            of([ThreeOpen, ThreeOpen, None, None], false),
            Combo::DoubleThree
        );
        assert_eq!(of([Four, Four, None, None], false), Combo::FlexFour);
        assert_eq!(of([FourOpen, None, None, None], false), Combo::FlexFour);
        assert_eq!(of([Five, Four, Four, None], true), Combo::Five);
        // Forbidden to black under renju: no threat at all.
        assert_eq!(of([ThreeOpen, ThreeOpen, None, None], true), Combo::None);
        assert_eq!(of([Four, Four, None, None], true), Combo::None);
        assert_eq!(of([Overline, ThreeOpen, Four, None], true), Combo::None);
        // A four with one open three stays black's to play.
        assert_eq!(of([Four, ThreeOpen, None, None], true), Combo::FourThree);
        assert_eq!(of([Three, TwoOpen, Two, None], false), Combo::None);
    }

    // Every cell's four lines, each any pattern: 10^4 cases.
    fn every_four_lines() -> impl Iterator<Item = [Pat; 4]> {
        let all = || (0..PATS as u8).map(|v| unpack(v, 0));
        all().flat_map(move |a| {
            all().flat_map(move |b| all().flat_map(move |c| all().map(move |d| [a, b, c, d])))
        })
    }

    // What LINE_COUNTS sums for a cell with these lines, as both colours' patterns.
    fn counts_of(pats: [Pat; 4]) -> u64 {
        pats.iter()
            .map(|&p| LINE_COUNTS[(p as usize) | (p as usize) << 4])
            .sum()
    }

    #[test]
    fn pattern_counts_give_the_same_combination_and_pair_as_the_lines() {
        let mut checked = 0;
        for pats in every_four_lines() {
            let counts = counts_of(pats);
            for c in 0..2 {
                let n = LineCounts::of(counts, c);
                assert_eq!(line_pair_of_counts(n), line_pair(pats), "{pats:?}");
                for restricted in [false, true] {
                    assert_eq!(
                        Combo::of_counts(n, restricted),
                        Combo::of(pats, restricted),
                        "{pats:?} restricted {restricted}"
                    );
                }
            }
            checked += 1;
        }
        assert_eq!(checked, PATS.pow(4));
    }

    #[test]
    fn line_pairs_take_the_two_strongest_lines() {
        use Pat::*;
        assert_eq!(line_pair([Four, ThreeOpen, None, Two]), 4 * 5 + 3);
        assert_eq!(line_pair([Two, ThreeOpen, ThreeOpen, None]), 3 * 5 + 3);
        assert_eq!(line_pair([FourDouble, TwoOpen, None, None]), 4 * 5 + 1);
        assert_eq!(line_pair([Two, Two, None, None]), 0);
        // One line alone, or a straight four, is no pair.
        assert_eq!(line_pair([TwoOpen, None, None, None]), NO_PAIR);
        assert_eq!(line_pair([FourOpen, Three, None, None]), NO_PAIR);
    }

    #[test]
    fn keys_read_off_the_lines_are_the_cells_around() {
        // The definition: the values of the five cells on each side, edge off the grid.
        fn key_by_cells(pos: &Position, sq: Sq, d: usize) -> u32 {
            let mut key = 0;
            for k in (-PAD..=PAD).filter(|&k| k != 0) {
                let t = sq as isize + pos.deltas[d] * k as isize;
                let v = usize::try_from(t)
                    .ok()
                    .and_then(|t| pos.cells.get(t))
                    .copied()
                    .unwrap_or(EDGE);
                key |= (v as u32) << shift(k);
            }
            key
        }
        let mut unbounded = Board::new(BoardSize::UNBOUNDED);
        unbounded
            .place(Point::new(-40, 7), Color::Black)
            .expect("an empty point");
        let boards = [
            Board::new(BoardSize::square(5).expect("a size")),
            Board::new(BoardSize::rect(7, 12).expect("a size")),
            Board::new(BoardSize::STANDARD),
            Board::new(BoardSize::square(100).expect("a size")),
            unbounded,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for board in boards {
            let mut pos = Position::new(&board, Rule::Renju, Color::White);
            let playable = pos.playable().to_vec();
            let mut played = 0;
            for step in 0..120 {
                // Anywhere on the grid, edges and corners included.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let sq = playable[(seed % playable.len() as u64) as usize];
                if pos.is_empty(sq) && step % 4 != 3 {
                    pos.make(sq);
                    played += 1;
                } else if played > 0 {
                    pos.unmake();
                    played -= 1;
                }
                for &sq in &playable {
                    for d in 0..4 {
                        assert_eq!(
                            pos.key(sq, d),
                            key_by_cells(&pos, sq, d),
                            "{:?} step {step}, cell {sq}, direction {d}",
                            board.size()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn moves_and_take_backs_keep_patterns_and_counts_exact() {
        // Caro with overlines: its patterns see an opponent's stone five cells away, not an own
        // one (`PatTable::reach`).
        for rule in [Rule::Freestyle, Rule::Renju, Rule::CaroOverlines] {
            let board = Board::new(BoardSize::STANDARD);
            let mut pos = Position::new(&board, rule, Color::Black);
            // A fixed pseudo-random walk around the centre: dense enough for threes and fours.
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut played = 0;
            let mut forks_seen = 0;
            // The near-stone list before each stone on the board: a take-back restores it in
            // the same order, which move ordering's ties follow.
            let mut lists_before: Vec<Vec<Sq>> = Vec::new();
            for step in 0..400 {
                let p = random_point(&mut seed, 4, 7);
                let sq = pos.sq(p).expect("on the board");
                if pos.is_empty(sq) && played < 30 {
                    lists_before.push(pos.near_list.clone());
                    pos.make(sq);
                    played += 1;
                } else if step % 3 == 0 && played > 0 {
                    pos.unmake();
                    played -= 1;
                    assert_eq!(
                        Some(&pos.near_list),
                        lists_before.last(),
                        "{rule:?} step {step}"
                    );
                    lists_before.pop();
                }
                assert_eq!(
                    pos.combo_counts,
                    recount(&pos),
                    "{rule:?} after step {step}"
                );
                // Taking stones back restores exactly what a fresh position computes.
                let mut board = Board::new(BoardSize::STANDARD);
                for &cell in pos.playable() {
                    let colour = match pos.cell(cell) {
                        BLACK => Color::Black,
                        WHITE => Color::White,
                        _ => continue,
                    };
                    board
                        .place(pos.point(cell), colour)
                        .expect("an empty point");
                }
                let fresh = Position::new(&board, rule, pos.side());
                assert!(
                    pos.pats == fresh.pats,
                    "{rule:?} patterns after step {step}"
                );
                let (mut near, mut fresh_near) = (pos.near_list.clone(), fresh.near_list.clone());
                near.sort_unstable();
                fresh_near.sort_unstable();
                assert_eq!(
                    near, fresh_near,
                    "{rule:?} cells near stones after step {step}"
                );
                assert!(
                    pos.playable().iter().all(|&c| pos.near[c] == fresh.near[c]),
                    "{rule:?} near counts after step {step}"
                );
                assert!(
                    pos.combos == fresh.combos,
                    "{rule:?} combinations after step {step}"
                );
                assert!(
                    pos.pairs == fresh.pairs && pos.pair_counts == fresh.pair_counts,
                    "{rule:?} line pairs after step {step}"
                );
                assert_eq!(
                    (pos.pat_counts, pos.threat_counts(), pos.hash()),
                    (fresh.pat_counts, fresh.threat_counts(), fresh.hash()),
                    "{rule:?} counters after step {step}"
                );
                forks_seen += (pos.fork_count(Color::White) > 0) as u32;
            }
            // The walk must reach positions with forks, or the test shows nothing.
            assert!(forks_seen > 0, "{rule:?}: no fork ever arose");
        }
    }

    #[test]
    fn lean_moves_keep_what_threat_searches_read_and_take_back_exactly() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut full = Position::new(&Board::new(BoardSize::STANDARD), rule, Color::Black);
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut fours_seen = 0;
            for round in 0..40 {
                // A few full moves, then a run of lean ones on a copy, checked against the same
                // moves played in full, then taken back.
                let before = full.clone();
                let mut lean = full.clone();
                lean.set_lean(true);
                let mut played = 0;
                for _ in 0..12 {
                    let p = random_point(&mut seed, 3, 9);
                    let sq = full.sq(p).expect("on the board");
                    if !full.is_empty(sq) {
                        continue;
                    }
                    full.make(sq);
                    lean.make(sq);
                    played += 1;
                    assert!(lean.pats == full.pats, "{rule:?} round {round}: patterns");
                    assert_eq!(
                        (lean.threat_counts(), lean.hash()),
                        (full.threat_counts(), full.hash()),
                        "{rule:?} round {round}: counters"
                    );
                    fours_seen += (full.threat_counts()[1] != [0, 0]) as u32;
                }
                for _ in 0..played {
                    full.unmake();
                    lean.unmake();
                }
                lean.set_lean(false);
                // Taken back, the lean copy is the position it started from, to the last count.
                assert!(
                    lean.pats == before.pats
                        && lean.combos == before.combos
                        && lean.pairs == before.pairs
                        && lean.combo_counts == before.combo_counts
                        && lean.pair_counts == before.pair_counts
                        && lean.pat_counts == before.pat_counts,
                    "{rule:?} round {round}: taken back"
                );
                // Keep a few stones for the next round, so later rounds start from busier boards.
                for _ in 0..2 {
                    let p = random_point(&mut seed, 3, 9);
                    if let Some(sq) = full.sq(p).filter(|&sq| full.is_empty(sq)) {
                        full.make(sq);
                    }
                }
                if full.stones > 50 {
                    full = Position::new(&Board::new(BoardSize::STANDARD), rule, Color::Black);
                }
            }
            // The moves must make fours at times, or the counters were never put to the test.
            assert!(fours_seen > 0, "{rule:?}: no four ever arose");
        }
    }
}
