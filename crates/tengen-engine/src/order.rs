//! The static part of move ordering under renju, standard and caro: what a stone on an empty cell
//! would make for each colour, and where it lies against the last two stones, as indices into a
//! table of weights fitted to the moves played in games (`scripts/tune/fit_order.py`).
//! Self-play against the hand-set order (pattern weights): renju +35 Elo at 40,000 nodes a move
//! (H1), standard +49 and caro +32 at 100,000 (H1); freestyle's fit (without the places) scored
//! +20 ± 28 in 600 games and +5 ± 34 in 399 at 150 ms a move, no decision, so freestyle keeps
//! the hand-set order.

use tengen_rules::Color;

use crate::pattern::{PATS, Pat};
use crate::position::{PAIRS, Position, Sq, line_pair};

/// How many table indices one cell has: four line patterns per colour, a line pair per colour,
/// and its place against the last two stones.
pub(crate) const ORDER_FEATURES: usize = 12;

/// Places against a recent stone: on one of its lines or off them, 1 to 4 points away
/// (Chebyshev), or farther (or no such stone).
const PLACES: usize = 9;

/// The place of a cell more than four points from a stone.
pub(crate) const FAR: u8 = (PLACES - 1) as u8;

/// Where each feature's weights start in the table.
const OWN_PAT: usize = 0;
const OPP_PAT: usize = OWN_PAT + PATS;
const OWN_PAIR: usize = OPP_PAT + PATS;
const OPP_PAIR: usize = OWN_PAIR + PAIRS;
const LAST_PLACE: usize = OPP_PAIR + PAIRS;
const PREV_PLACE: usize = LAST_PLACE + PLACES;

/// Size of one table of ordering weights.
pub(crate) const ORDER_WEIGHTS: usize = PREV_PLACE + PLACES;

/// The table indices of a stone of the side to move on the empty `sq`, whose line patterns are
/// `own` for the side to move and `opp` for the opponent. `last` and `prev` are the last stone
/// put (the opponent's, as a rule) and the one before it.
pub(crate) fn order_features(
    pos: &Position,
    sq: Sq,
    own: [Pat; 4],
    opp: [Pat; 4],
    last: Option<Sq>,
    prev: Option<Sq>,
) -> [u16; ORDER_FEATURES] {
    let mut f = [0u16; ORDER_FEATURES];
    for d in 0..4 {
        f[d] = (OWN_PAT + own[d] as usize) as u16;
        f[4 + d] = (OPP_PAT + opp[d] as usize) as u16;
    }
    f[8] = (OWN_PAIR + line_pair(own) as usize) as u16;
    f[9] = (OPP_PAIR + line_pair(opp) as usize) as u16;
    f[10] = (LAST_PLACE + place(pos, sq, last)) as u16;
    f[11] = (PREV_PLACE + place(pos, sq, prev)) as u16;
    f
}

/// Where `sq` lies against the stone on `stone` (see [`place_of`]); [`FAR`] when there is no
/// stone.
fn place(pos: &Position, sq: Sq, stone: Option<Sq>) -> usize {
    let Some(stone) = stone else {
        return FAR as usize;
    };
    let (a, b) = (pos.point(sq), pos.point(stone));
    place_of(a.x - b.x, a.y - b.y) as usize
}

/// The place of a cell `dx` columns and `dy` rows from a stone: 0-3 on one of its lines 1-4
/// points away, 4-7 off its lines 1-4 points away, [`FAR`] farther (or on the stone).
fn place_of(dx: i32, dy: i32) -> u8 {
    let (dx, dy) = (dx.abs(), dy.abs());
    let dist = dx.max(dy);
    if dist == 0 || dist > 4 {
        return FAR;
    }
    let on_line = dx == 0 || dy == 0 || dx == dy;
    (dist as u8 - 1) + if on_line { 0 } else { 4 }
}

/// Which table a position's samples are fitted to: 0 freestyle, 1 renju with black to move, 2
/// renju with white to move (black's moves being restricted), 3 standard, 4 caro (with or
/// without overlines).
pub(crate) fn table_kind(rule: tengen_rules::Rule, side: Color) -> usize {
    use tengen_rules::Rule;
    match (rule, side) {
        (Rule::Freestyle, _) => 0,
        (Rule::Renju, Color::Black) => 1,
        (Rule::Renju, Color::White) => 2,
        (Rule::Standard, _) => 3,
        (Rule::Caro | Rule::CaroOverlines, _) => 4,
    }
}

/// One fitted weight table, laid out for scoring in the search: the line weights of both
/// colours summed per packed pattern byte, by the colour to move.
pub(crate) struct OrderTable {
    weights: [i32; ORDER_WEIGHTS],
    /// By colour to move (black 0, white 1), by packed pattern byte.
    lines: [[i32; 256]; 2],
}

impl OrderTable {
    fn new(weights: [i32; ORDER_WEIGHTS]) -> OrderTable {
        let mut lines = [[0; 256]; 2];
        for (c, side) in [Color::Black, Color::White].into_iter().enumerate() {
            for (byte, slot) in lines[c].iter_mut().enumerate() {
                let own = crate::pattern::unpack(byte as u8, crate::position::ci(side));
                let opp = crate::pattern::unpack(byte as u8, crate::position::ci(side.opponent()));
                *slot = weights[OWN_PAT + own as usize] + weights[OPP_PAT + opp as usize];
            }
        }
        OrderTable { weights, lines }
    }

    /// The fitted table the search orders by under `rule` with `side` to move, if the rule has
    /// one (all but freestyle), read once from the embedded files.
    pub(crate) fn for_rule(rule: tengen_rules::Rule, side: Color) -> Option<&'static OrderTable> {
        static TABLES: std::sync::OnceLock<[OrderTable; EMBEDDED_TABLES.len()]> =
            std::sync::OnceLock::new();
        let tables =
            TABLES.get_or_init(|| EMBEDDED_TABLES.map(|text| OrderTable::new(parse_table(text))));
        match table_kind(rule, side) {
            0 => None,
            kind => Some(&tables[kind - 1]),
        }
    }

    /// The static ordering score of a stone of the side to move on the empty `sq`, the last
    /// two stones being `last` and `prev`: the sum of the weights of its
    /// [`order_features`], read from tables.
    #[inline]
    pub(crate) fn score(&self, pos: &Position, sq: Sq, last: Option<Sq>, prev: Option<Sq>) -> i32 {
        let me = pos.side();
        let lines = &self.lines[crate::position::ci(me)];
        let p = pos.packed_pats(sq);
        let w = &self.weights;
        lines[p[0] as usize]
            + lines[p[1] as usize]
            + lines[p[2] as usize]
            + lines[p[3] as usize]
            + w[OWN_PAIR + pos.pair_at(sq, me) as usize]
            + w[OPP_PAIR + pos.pair_at(sq, me.opponent()) as usize]
            + w[LAST_PLACE + place_fast(pos, sq, last)]
            + w[PREV_PLACE + place_fast(pos, sq, prev)]
    }
}

/// [`place`] read from the position's table of places by cell difference.
#[inline(always)]
fn place_fast(pos: &Position, sq: Sq, stone: Option<Sq>) -> usize {
    match stone {
        Some(stone) => pos.place_of_diff(sq as isize - stone as isize) as usize,
        None => FAR as usize,
    }
}

/// The places (see [`place_of`]) of every cell difference from `-reach` to `reach`, `reach`
/// being four rows and four columns on a grid `stride` wide: the difference of two cells within
/// four points of each other both ways is unique, as the grid is wider than nine.
pub(crate) fn places_by_diff(stride: isize) -> Vec<u8> {
    let reach = 4 * stride + 4;
    let mut places = vec![FAR; (2 * reach + 1) as usize];
    for dy in -4..=4isize {
        for dx in -4..=4isize {
            places[(dy * stride + dx + reach) as usize] = place_of(dx as i32, dy as i32);
        }
    }
    places
}

/// The fitted tables' files, by [`table_kind`] less one (freestyle has none).
const EMBEDDED_TABLES: [&str; 4] = [
    include_str!("../data/order/order_renju_black.txt"),
    include_str!("../data/order/order_renju_white.txt"),
    include_str!("../data/order/order_standard.txt"),
    include_str!("../data/order/order_caro.txt"),
];

/// One weight a line; the embedded files are written by the fit and checked by a test.
fn parse_table(text: &str) -> [i32; ORDER_WEIGHTS] {
    let mut w = [0; ORDER_WEIGHTS];
    for (slot, line) in w.iter_mut().zip(text.lines()) {
        *slot = line.trim().parse().unwrap_or(0);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::{Board, BoardSize, Rule};

    /// The search's table reads give the sum of the weights of the features the fit saw, on
    /// every empty cell of positions from random games under each rule with tables, both
    /// colours to move.
    #[test]
    fn the_fast_score_is_the_sum_of_the_features_weights() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for rule in [Rule::Renju, Rule::Standard, Rule::Caro] {
            for game in 0..20 {
                let mut board = Board::new(BoardSize::STANDARD);
                let mut pos = Position::new(&board, rule, Color::Black);
                for _ in 0..(10 + game * 2) {
                    let p = crate::position::random_point(&mut seed, 3, 9);
                    let sq = pos.sq(p).expect("on the board");
                    if !pos.is_empty(sq) {
                        continue;
                    }
                    board.place(p, pos.side()).expect("an empty point");
                    pos.make(sq);
                }
                let me = pos.side();
                let table = OrderTable::for_rule(rule, me).expect("the rule has tables");
                let (last, prev) = (pos.last_move(), pos.move_before_last());
                for &sq in pos.playable() {
                    if !pos.is_empty(sq) {
                        continue;
                    }
                    let f = order_features(
                        &pos,
                        sq,
                        pos.pats(sq, me),
                        pos.pats(sq, me.opponent()),
                        last,
                        prev,
                    );
                    let slow: i32 = f.iter().map(|&i| table.weights[i as usize]).sum();
                    assert_eq!(
                        table.score(&pos, sq, last, prev),
                        slow,
                        "pairs {} {} / {} {}, places {:?} / {} {}",
                        pos.pair_at(sq, me),
                        pos.pair_at(sq, me.opponent()),
                        f[8] as usize - OWN_PAIR,
                        f[9] as usize - OPP_PAIR,
                        (place_fast(&pos, sq, last), place_fast(&pos, sq, prev)),
                        f[10] as usize - LAST_PLACE,
                        f[11] as usize - PREV_PLACE,
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 7_500);
    }

    #[test]
    fn the_embedded_tables_are_whole() {
        for text in EMBEDDED_TABLES {
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), ORDER_WEIGHTS);
            assert!(lines.iter().all(|l| l.trim().parse::<i32>().is_ok()));
        }
        // An open three of one's own orders before a bare cell in every table.
        for rule in [Rule::Renju, Rule::Standard, Rule::Caro, Rule::CaroOverlines] {
            for side in [Color::Black, Color::White] {
                let w = &OrderTable::for_rule(rule, side).expect("a table").weights;
                assert!(w[OWN_PAT + Pat::ThreeOpen as usize] > w[OWN_PAT + Pat::None as usize]);
            }
        }
        assert!(OrderTable::for_rule(Rule::Freestyle, Color::Black).is_none());
    }
}
