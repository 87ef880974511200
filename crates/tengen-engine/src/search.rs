//! The search: iterative deepening PVS alpha-beta over the engine's position, with a
//! transposition table, threat-aware move generation, VCF at the leaves, and multi-PV at the root.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant;

use tengen_rules::{Color, Rule};

use crate::eval::{EvalWeights, THREAT_MASKS, evaluate};
use crate::pattern::Pat;
use crate::position::{Combo, Position, Sq};
use crate::threat::{Info, info, info_of_shares, quiet_shares, shares, weight_of_shares};
use crate::tt::{Bound, Entry, NO_MOVE, Table};
use crate::{Limits, Line, Score, SearchInfo};

/// A won position's score is WIN minus the plies to the five.
pub(crate) const WIN: i32 = 30_000;
/// Scores beyond this are proven wins or losses.
pub(crate) const WIN_BOUND: i32 = WIN - 1_000;
const INF: i32 = WIN + 1;
const MAX_PLY: usize = 128;

/// What the side to move can do here.
pub(crate) enum Gen {
    /// A five right now.
    Five(Sq),
    /// Lost whatever we do, the opponent's five coming this many plies from now: two fives to
    /// make (or one we may not block), or threats no move of ours holds. The move shown delays.
    Lost(Option<Sq>, i32),
    /// A straight four or double four, with no five for the opponent to answer: won in three.
    FlexFour(Sq),
    /// The moves worth searching, best-looking first, and what forced them.
    Moves(Vec<(Sq, i32)>, Forced),
}

/// Why a node's moves are few.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Forced {
    /// Not forced.
    No,
    /// The only move blocks the opponent's four.
    Four,
    /// The moves answer the opponent's open three.
    Three,
}

/// Up to [`FivePoints::CAPACITY`] distinct points (two fives on each of four lines), without a
/// heap allocation.
#[derive(Default)]
struct FivePoints {
    points: [Sq; FivePoints::CAPACITY],
    len: usize,
}

impl FivePoints {
    const CAPACITY: usize = 8;

    fn as_slice(&self) -> &[Sq] {
        &self.points[..self.len]
    }

    fn retain(&mut self, mut keep: impl FnMut(Sq) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let sq = self.points[i];
            if keep(sq) {
                self.points[kept] = sq;
                kept += 1;
            }
        }
        self.len = kept;
    }

    fn push(&mut self, sq: Sq) {
        if !self.as_slice().contains(&sq) && self.len < self.points.len() {
            self.points[self.len] = sq;
            self.len += 1;
        }
    }
}

/// Where `attacker`'s opponent can stop, with one stone, every five `attacker` has to make on
/// `fives` (all of them): the single five point under freestyle, standard and renju (a stone
/// stops only the five whose point it takes, so two points cannot be stopped). Under caro a
/// stone beside a five that is blocked at its other end stops it too, so the four `OXXXX..`
/// has two answers, and `O.XXXX.O` one stone stops. Those points are found by trying each
/// five's point and the cells at the ends of its row. Black's forbidden points under renju are
/// the caller's to leave out.
fn five_blocks(pos: &mut Position, attacker: Color, fives: &[Sq]) -> FivePoints {
    let mut out = FivePoints::default();
    if !matches!(pos.rule(), Rule::Caro | Rule::CaroOverlines) {
        if let &[f] = fives {
            out.push(f);
        }
        return out;
    }
    let own = match attacker {
        Color::Black => crate::pattern::BLACK,
        Color::White => crate::pattern::WHITE,
    };
    // A full FivePoints may have dropped a five: the stones on the board then decide.
    let complete = fives.len() < FivePoints::CAPACITY;
    // Each candidate is tried where it is found: no list of them on this hot path (a caro
    // four's every answer).
    let mut try_block = |pos: &mut Position, t: Sq| {
        if pos.is_empty(t) && !out.as_slice().contains(&t) {
            let stops = if complete {
                let stops = stops_every_five(pos, attacker, fives, t);
                debug_assert_eq!(stops, stops_every_five_on_board(pos, attacker, t));
                stops
            } else {
                stops_every_five_on_board(pos, attacker, t)
            };
            if stops {
                out.push(t);
            }
        }
    };
    for &f in fives {
        try_block(pos, f);
        for d in 0..4 {
            if pos.pat(f, attacker, d) != Pat::Five {
                continue;
            }
            let delta = pos.deltas[d];
            for step in [-delta, delta] {
                // The row through f runs over the attacker's stones; the cell past it is an
                // end (the padding round the board stops the walk: a row has at most four).
                let mut t = f as isize + step;
                while pos.cell(t as Sq) == own {
                    t += step;
                }
                try_block(pos, t as Sq);
            }
        }
    }
    out
}

/// Whether a defender's stone on the empty `t` leaves `attacker` no five on `fives` (every
/// five point he has), read from the pattern tables: a stone changes only the lines through
/// it, and one of the other colour never makes a five. Placing the stone and reading the
/// counters (`stops_every_five_on_board`) says the same at several times the cost: under caro
/// the blocks of fours were over a third of the search's time.
fn stops_every_five(pos: &Position, attacker: Color, fives: &[Sq], t: Sq) -> bool {
    let defender = attacker.opponent();
    fives.iter().all(|&f| {
        f == t
            || pats_with_stone(pos, f, attacker, t, defender)
                .iter()
                .all(|&p| p != Pat::Five)
    })
}

/// [`stops_every_five`] by placing the stone: whether `attacker` has no five left after it.
fn stops_every_five_on_board(pos: &mut Position, attacker: Color, t: Sq) -> bool {
    let was_lean = pos.set_lean(true);
    pos.place(t, attacker.opponent());
    let stops = !pos.has_five(attacker);
    pos.unplace(t, attacker.opponent());
    pos.set_lean(was_lean);
    stops
}

/// Generates moves for the side to move.
pub(crate) fn generate(pos: &mut Position, scratch: &mut Vec<Sq>) -> Gen {
    let me = pos.side();
    let op = me.opponent();
    pos.empty_near_cells(scratch);
    if scratch.is_empty() {
        // Empty board (or a window without stones): the centre of the window. No point near
        // a stone is left only on a full board: no move then.
        let centre = pos
            .sq(pos.size().center())
            .or_else(|| pos.playable().get(pos.playable().len() / 2).copied())
            .filter(|&s| pos.is_empty(s));
        return Gen::Moves(centre.map(|s| (s, 0)).into_iter().collect(), Forced::No);
    }
    let mut op_fives: Vec<Sq> = Vec::new();
    let mut my_flex = None;
    let mut op_flex: Vec<Sq> = Vec::new();
    // Each candidate with its pattern weight for ordering, the opponent's at 4/5.
    let mut moves: Vec<(Sq, i32)> = Vec::with_capacity(scratch.len());
    for &sq in scratch.iter() {
        let shares = shares(pos, sq);
        if quiet_shares(shares) {
            let (a, b) = (weight_of_shares(shares, me), weight_of_shares(shares, op));
            moves.push((sq, a + b * 4 / 5));
            continue;
        }
        let a = info_of_shares(pos, sq, me, shares);
        if a.five {
            return Gen::Five(sq);
        }
        let b = info_of_shares(pos, sq, op, shares);
        if b.five {
            op_fives.push(sq);
        }
        if b.flex_four() {
            op_flex.push(sq);
        }
        if a.forbidden {
            continue;
        }
        if a.flex_four() && my_flex.is_none() {
            my_flex = Some(sq);
        }
        moves.push((sq, a.weight + b.weight * 4 / 5));
    }
    if !op_fives.is_empty() {
        // The opponent's fives must all be stopped by this one move (a legal one: `moves`
        // holds no forbidden point).
        let blocks: Vec<(Sq, i32)> = five_blocks(pos, op, &op_fives)
            .as_slice()
            .iter()
            .filter(|&&b| moves.iter().any(|m| m.0 == b))
            .map(|&b| (b, 0))
            .collect();
        if !blocks.is_empty() {
            return Gen::Moves(blocks, Forced::Four);
        }
        // Show a block of one of the fives when there is a legal one: the line reads naturally.
        let block = op_fives
            .iter()
            .copied()
            .find(|f| moves.iter().any(|m| m.0 == *f));
        return Gen::Lost(block.or(moves.first().map(|m| m.0)), 2);
    }
    if let Some(sq) = my_flex {
        return Gen::FlexFour(sq);
    }
    let forced = if op_flex.is_empty() {
        Forced::No
    } else {
        // The opponent threatens a straight four (or a double four). Only a four of our own or
        // a stone that leaves none of those points a winning four can hold. A stone can only
        // matter on a line through every threat point, which is cheap to test first; then
        // each survivor is tried on the board. A stone never gives the opponent a new threat,
        // so checking the old points is exact.
        let delay = op_flex
            .iter()
            .copied()
            .find(|f| moves.iter().any(|m| m.0 == *f))
            .or(moves.first().map(|m| m.0));
        // No candidate makes a five (the loop above would have returned it), so a four of our
        // own is any four-or-five the patterns show.
        moves.retain(|&(sq, _)| {
            pos.makes_four(sq, me) || op_flex.iter().all(|&f| sq == f || on_lines(pos, f, sq))
        });
        // A stone changes only the one line it shares with each threat point, read from the
        // table (17% fewer instructions over the bench, same nodes). Black's points under renju
        // may also change whether they are forbidden (a white stone can turn a forbidden point
        // into a playable one, or the reverse through the recursion), which the table cannot
        // say: such points are left to the exact test on the board.
        let exact_by_table = !(op == Color::Black && pos.rule() == Rule::Renju);
        moves.retain(|&(sq, _)| {
            if pos.makes_four(sq, me) {
                return true;
            }
            if exact_by_table {
                return op_flex
                    .iter()
                    .all(|&f| f == sq || !flex_four_with_stone(pos, f, op, sq, me));
            }
            let mut unsure = false;
            for &f in op_flex.iter().filter(|&&f| f != sq) {
                match black_flex_four_with_stone(pos, f, sq, me) {
                    Some(true) => return false,
                    Some(false) => {}
                    None => unsure = true,
                }
            }
            if !unsure {
                return true;
            }
            // A lean move: the test reads patterns alone, and half of a full move's bookkeeping
            // is the evaluation's (this test took a fifth of a renju search's time).
            let was_lean = pos.set_lean(true);
            pos.make(sq);
            let holds = op_flex
                .iter()
                .all(|&f| !pos.is_empty(f) || !info(pos, f, op).flex_four());
            pos.unmake();
            pos.set_lean(was_lean);
            holds
        });
        if moves.is_empty() {
            // Nothing holds: the opponent makes the straight four, we move, the five follows.
            return Gen::Lost(delay, 4);
        }
        Forced::Three
    };
    // The static order. Under renju, standard and caro, weights fitted to the moves played in
    // games, by what a stone makes for each side and where it lies against the last two stones:
    // renju +35 +/- 28 Elo against the pattern weights below (self-play, 583 games at 40k
    // nodes, H1), +37 +/- 30 at 150 ms a move (H1 after 512 games), though a node costs 12%
    // more; standard +49 +/- 45 (220 games at 100k nodes, H1), caro +32 +/- 34 (359 games, H1).
    // Under freestyle the pattern weights, the opponent's at 4/5 (its fit gained no decision).
    if let Some(table) = crate::order::OrderTable::for_rule(pos.rule(), me) {
        let (last, prev) = (pos.last_move(), pos.move_before_last());
        for m in &mut moves {
            m.1 = table.score(pos, m.0, last, prev);
        }
    }
    // Callers sort, after adding what they know (table move, killers, history).
    Gen::Moves(moves, forced)
}

/// Whether `c` still makes a straight four or a double four on the empty `f` once `stone` stands
/// on `sq`, read from the patterns (no forbidden test: not for black under renju).
fn flex_four_with_stone(pos: &Position, f: Sq, c: Color, sq: Sq, stone: Color) -> bool {
    Combo::of(pats_with_stone(pos, f, c, sq, stone), false) == Combo::FlexFour
}

/// The four patterns of `c` on the empty `f` once a `stone` stands on `sq`: only the line the
/// two share (if any) changes, read from the table.
fn pats_with_stone(pos: &Position, f: Sq, c: Color, sq: Sq, stone: Color) -> [Pat; 4] {
    let mut pats = pos.pats(f, c);
    if let Some((d, k)) = pos.line_of_diff(sq as isize - f as isize) {
        pats[d] = pos.pat_with_stone(f, c, d, k, stone);
    }
    pats
}

/// Under renju, whether black still wins from the empty `f` by a straight four once a white
/// `stone` stands on `sq`, where the patterns settle it (a white stone makes no black line):
/// no when they show no straight four or double four, or when they make the point forbidden;
/// yes when they show one and make it playable. `None` leaves two open threes to [`info`]'s
/// test on the board, which follows each three's recursion. Settled here, the renju middlegame
/// of `tengen bench` searched 14% more nodes a second (same nodes).
fn black_flex_four_with_stone(pos: &Position, f: Sq, sq: Sq, stone: Color) -> Option<bool> {
    let pats = pats_with_stone(pos, f, Color::Black, sq, stone);
    // A straight four or two fours, and no five (which `of` would return first).
    if Combo::of(pats, false) != Combo::FlexFour {
        return Some(false);
    }
    crate::threat::forbidden_by_patterns(pats).map(|forbidden| !forbidden)
}

fn on_lines(pos: &Position, f: Sq, sq: Sq) -> bool {
    pos.line_of_diff(sq as isize - f as isize).is_some()
}

/// [`on_lines`] by its definition, the one its table must agree with.
#[cfg(test)]
fn on_lines_by_deltas(f: Sq, sq: Sq, deltas: &[isize; 4]) -> bool {
    let diff = sq as isize - f as isize;
    deltas
        .iter()
        .any(|&d| (1..=5).any(|k| diff == d * k || diff == -d * k))
}

pub(crate) struct Searcher<'a> {
    pub pos: Position,
    tt: &'a Table,
    weights: &'a EvalWeights,
    pub nodes: u64,
    limits: Limits,
    start: Instant,
    stop: &'a AtomicBool,
    pub aborted: bool,
    killers: Vec<[u32; 2]>,
    /// By (point, side to move): how often a move there cut lately, less how often it was
    /// tried in vain before another cut.
    history: Vec<i32>,
    /// The move that last refuted each (previous move, side to move): a reply that answered a
    /// stone once often answers it again elsewhere in the tree.
    counter_moves: Vec<u32>,
    scratch: Vec<Vec<Sq>>,
    pub seldepth: u32,
    pub completed_depth: u32,
    /// How far the VCF at the leaves looks (attacker moves); 0 turns it off.
    pub leaf_vcf: u32,
    /// How many open threes the VCT tried at the root may use; 0 turns it off.
    pub root_vct: u32,
    /// A temporary node and time budget for one phase of the search (the root VCT).
    node_cap: Option<u64>,
    time_cap: Option<std::time::Duration>,
    /// 0 for the main search; a helper thread's number otherwise.
    helper_id: usize,
    /// A helper's second stop flag: set when the main search has ended.
    main_done: Option<&'a AtomicBool>,
    /// In a parallel search, the depth of the main thread's last completed iteration: the main
    /// thread writes it, the helpers read it to stay ahead.
    main_depth: Option<&'a AtomicU32>,
    /// The best line of the deepest iteration completed, with its depth (helpers' result).
    pub deepest: Option<(u32, Line)>,
    /// A pass (null move) is on the line being searched: no second one below it.
    null_before: bool,
    /// The move left out at each ply by a singular-extension search there (NO_MOVE when none).
    singular_excluded: Vec<u32>,
    /// The static evaluation of the node at each ply of the line being searched, where Step 5b
    /// computed one ([`NO_EVAL`] elsewhere).
    static_evals: Vec<i32>,
    /// The depth of the iteration under way.
    root_depth: i32,
    /// How many moves the root's last iteration had to choose from.
    root_moves: usize,
    /// Each root move's score in the iteration under way, as its search finished (the first
    /// line's: multi-PV's later lines leave it alone), and in the last completed one: the
    /// fallback when a cut-short iteration proves its first move lost (see `run`).
    root_scores: Vec<(Sq, i32)>,
    completed_root_scores: Vec<(Sq, i32)>,
    /// Step 9b's correction history: by (threat mask, side to move), how far this search's
    /// results have lately stood from the static evaluation, in 1/`CORRECTION_GRAIN` units.
    correction: Vec<i32>,
    /// Step 9b's second table, the same by (the opponent's last stone, side to move), where the
    /// rule takes it ([`corrects_by_last_stone`]).
    correction_by_last: Vec<i32>,
}

/// How far the VCF at the leaves looks, in attacker fours. Most leaves have no four to make and
/// cost nothing more for a deeper look; the rest see VCFs as long as the defence set's own check
/// (20 fours): it then holds 18 of 23 at 200k nodes instead of 16.
const LEAF_VCF: u32 = 20;

/// Mixed into a position's key for the threat search's failures, which share the VCF's
/// failure table: any odd constant that sets high bits keeps the two apart.
const VCT_KEY: u64 = 0xD6E8_FEB8_6659_FD93;

/// No static evaluation computed at this ply.
const NO_EVAL: i32 = i32::MIN;

/// Step 5c's reverse futility: at most this many plies left, and the margin per ply (an open
/// three weighs about 20).
const FUTILITY_DEPTH: i32 = 3;
const FUTILITY_MARGIN: i32 = 40;

/// Step 6b's singular extension: from this many plies left, a margin per ply below the table's
/// score.
const SINGULAR_DEPTH: i32 = 6;
const SINGULAR_MARGIN: i32 = 3;

/// Step 5e's internal iterative reduction: from this many plies left.
const IIR_DEPTH: i32 = 4;

/// Step 9b's correction history: entries in 1/64 of an evaluation unit, bounded by 64 units;
/// an entry counts for half (at most 32 units, about an open three and a half). At half, under
/// freestyle, self-play at 100k nodes a move: +51.6 +/- 49.2 Elo (H1 after 181 games) and +30.1
/// +/- 32.1 (H1 after 440), and the defence set held at the goal (77 of 81 at 1,000,000 nodes);
/// counted in full, +17.0 +/- 25.9 in 673 games (no decision) and 76 held.
const CORRECTION_GRAIN: i32 = 64;
const CORRECTION_MAX: i32 = 64 * CORRECTION_GRAIN;
const CORRECTION_APPLIED: i32 = 2 * CORRECTION_GRAIN;

/// Ordering bonus of the counter-move: above any history score, below the killers.
const COUNTER_MOVE_BONUS: i32 = 40_000;

/// The history's bound: about an open three's ordering weight and a half, so a good history lifts
/// a quiet move among its like but not above a four.
const HISTORY_MAX: i32 = 100;

/// Open threes the root VCT may use. Six instead of three once the threat search deepened
/// its threes one at a time and remembered its failures: on the defence set's positions (the
/// opponent to move) it proves 14 wins against 10. Self-play against three: 395-376 in 771
/// games at 40k nodes a move (+9 +/- 24 Elo; the VCT's budget there is 10k nodes) and 152-148
/// in 300 at 200 ms (+5 +/- 39): no gain in games, and no loss.
const ROOT_VCT_THREES: u32 = 6;

/// Nodes the root VCT may spend before the main search takes over.
const ROOT_VCT_NODES: u64 = 150_000;

impl<'a> Searcher<'a> {
    pub(crate) fn new(
        pos: Position,
        tt: &'a Table,
        weights: &'a EvalWeights,
        limits: Limits,
        stop: &'a AtomicBool,
    ) -> Searcher<'a> {
        let cells = pos.playable().iter().max().map_or(0, |m| m + 1);
        tt.mark_touched();
        Searcher {
            pos,
            tt,
            weights,
            nodes: 0,
            limits,
            start: Instant::now(),
            stop,
            aborted: false,
            killers: vec![[NO_MOVE; 2]; MAX_PLY + 1],
            history: vec![0; cells * 2],
            counter_moves: vec![NO_MOVE; cells * 2],
            scratch: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            seldepth: 0,
            completed_depth: 0,
            leaf_vcf: LEAF_VCF,
            root_vct: if limits.depth.is_some_and(|d| d <= 4) {
                0
            } else {
                ROOT_VCT_THREES
            },
            node_cap: None,
            time_cap: None,
            helper_id: 0,
            main_done: None,
            main_depth: None,
            deepest: None,
            null_before: false,
            singular_excluded: vec![NO_MOVE; MAX_PLY + 2],
            static_evals: vec![NO_EVAL; MAX_PLY + 2],
            root_depth: 0,
            root_moves: 0,
            root_scores: Vec::new(),
            completed_root_scores: Vec::new(),
            correction: vec![0; THREAT_MASKS * 2],
            // Slot 0 stands for the empty board (no last stone).
            correction_by_last: vec![0; (cells + 1) * 2],
        }
    }

    /// The main thread of a parallel search: as [`Searcher::new`], and it tells the helpers
    /// through `main_depth` how deep it has searched.
    pub(crate) fn with_helpers(mut self, main_depth: &'a AtomicU32) -> Searcher<'a> {
        self.main_depth = Some(main_depth);
        self
    }

    /// A helper for a parallel search (Lazy SMP): the same position and limits on the same
    /// table, with helper number `id` (from 1). Helpers share what they find through the table
    /// only; they skip the root VCT (the main thread runs it) and report nothing. `main_depth`
    /// is the main thread's last completed depth, which they keep ahead of. They run until
    /// `stop`, `main_done` or their own time or depth limit: a node limit counts the main
    /// thread's nodes, not theirs.
    pub(crate) fn helper(
        pos: Position,
        tt: &'a Table,
        weights: &'a EvalWeights,
        limits: Limits,
        [stop, main_done]: [&'a AtomicBool; 2],
        main_depth: &'a AtomicU32,
        id: usize,
    ) -> Searcher<'a> {
        let limits = Limits {
            multipv: 1,
            nodes: None,
            ..limits
        };
        let mut s = Searcher::new(pos, tt, weights, limits, stop);
        s.main_done = Some(main_done);
        s.main_depth = Some(main_depth);
        s.root_vct = 0;
        s.helper_id = id;
        s
    }

    fn update_history(&mut self, slot: usize, bonus: i32) {
        if let Some(h) = self.history.get_mut(slot) {
            add_with_gravity(h, bonus, HISTORY_MAX);
        }
    }

    pub(crate) fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }

    // Step 0: every node counts; every 1024 nodes, time and the stop flag are looked at. A node
    // limit is checked at every node so that a search under it repeats exactly.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || self.node_cap.is_some_and(|n| self.nodes >= n)
        {
            self.aborted = true;
        } else if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed)
                || self.main_done.is_some_and(|f| f.load(Ordering::Relaxed))
            {
                self.aborted = true;
            }
            let elapsed = self.start.elapsed();
            if self.limits.time.is_some_and(|t| elapsed >= t)
                || self.time_cap.is_some_and(|t| elapsed >= t)
            {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Negamax alpha-beta with principal variation search. Returns the score for the side to
    /// move and fills `pv`.
    pub(crate) fn search(
        &mut self,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        pv: &mut Vec<Sq>,
    ) -> i32 {
        pv.clear();
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        self.static_evals[ply.min(MAX_PLY)] = NO_EVAL;
        // Step 1: a full board is a draw.
        if self.pos.full() {
            return 0;
        }
        // Step 2: mate-distance pruning: no result here can beat a five on the next move.
        let best_possible = WIN - (ply as i32 + 1);
        if alpha >= best_possible {
            return alpha;
        }
        // Step 2b: at the horizon most positions hold no five to make and no open four for the
        // opponent to make; the counters say so without generating a move, and such a leaf
        // needs only the VCF probe and the evaluation (Step 5).
        let me = self.pos.side();
        let op = me.opponent();
        if depth <= 0
            && !self.pos.has_five(me)
            && !self.pos.has_five(op)
            && (depth <= -2 || !self.pos.may_have_open_four(op))
        {
            return self.leaf(ply, beta, pv);
        }
        // Step 3: the transposition table: a deep enough result ends the node outside PV lines.
        // It comes before the move generator, which it spares: only nodes that generated moves
        // store an entry (Step 9), so a position the generator would settle at once (a five, a
        // loss, a straight four) never finds one, and the tree is the same.
        let pv_node = beta - alpha > 1;
        let excluded = self.singular_excluded[ply.min(MAX_PLY)];
        // A search with a move left out is another node: no table cut, nothing stored.
        let key = self.pos.hash();
        let tt_entry = self.tt.probe(key);
        let tt_move = match tt_entry {
            Some(e) if excluded == NO_MOVE => {
                let score = from_tt(e.score, ply);
                if !pv_node && e.depth as i32 >= depth {
                    let cut = match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => score >= beta,
                        Bound::Upper => score <= alpha,
                    };
                    if cut {
                        return score;
                    }
                }
                e.best
            }
            _ => NO_MOVE,
        };
        // Step 4: threats decide before any search: a five wins, two opposing fives lose, a
        // straight four (with no five to answer) wins in three. Where the counters show no
        // five, straight four or double four for either side, the generator could only return
        // quiet moves, not forced ones: Step 5b's cuts run first, and a node they end never
        // generates its moves (the tree is the same).
        let quiet = !self.pos.has_five(me)
            && !self.pos.has_five(op)
            && !self.pos.may_have_flex_four(me)
            && !self.pos.may_have_flex_four(op);
        if quiet && let Some(score) = self.prune_quiet(depth, ply, beta, pv_node, excluded) {
            return score;
        }
        let mut scratch = std::mem::take(&mut self.scratch[ply.min(MAX_PLY)]);
        let generated = generate(&mut self.pos, &mut scratch);
        self.scratch[ply.min(MAX_PLY)] = scratch;
        let (mut moves, forced) = match generated {
            Gen::Five(sq) => {
                pv.push(sq);
                return WIN - (ply as i32 + 1);
            }
            Gen::Lost(sq, plies) => {
                pv.extend(sq);
                return -(WIN - (ply as i32 + plies));
            }
            Gen::FlexFour(sq) => {
                pv.push(sq);
                return WIN - (ply as i32 + 3);
            }
            Gen::Moves(m, forced) => (m, forced),
        };
        if moves.is_empty() {
            // No legal move (every free point forbidden to black): treat as a draw.
            return 0;
        }
        // Step 5: at the horizon, a VCF for the side to move is a proven win; otherwise the
        // static evaluation stands. A forced reply is searched on: the block of a four at no
        // cost in depth (the line stays narrow), the answers to an open three for two more
        // plies, so threat sequences are not cut in the middle.
        let horizon = match forced {
            Forced::No => depth <= 0,
            Forced::Four => false,
            Forced::Three => depth <= -2,
        };
        if horizon {
            return self.leaf(ply, beta, pv);
        }
        if !quiet
            && forced == Forced::No
            && let Some(score) = self.prune_quiet(depth, ply, beta, pv_node, excluded)
        {
            return score;
        }
        // Read before Step 6b's search, which runs at this same ply.
        let not_improving = self.improving(ply) == Some(false);
        let narrow = narrow_tree(self.pos.rule());
        // Step 5e: internal iterative reduction: a quiet node deep enough that the table has
        // no move for is searched a ply shallower. Without a first move to trust, most of a
        // full-depth search there goes into finding one; the next visit, with the table's
        // move, goes deeper.
        let depth = if depth >= IIR_DEPTH && tt_move == NO_MOVE && forced == Forced::No {
            depth - 1
        } else {
            depth
        };
        // Step 6: move ordering: the table's move, then killers, then the counter-move to the
        // opponent's last stone, then pattern weight + history. The counter-move measured, with
        // the deeper leaf VCF: +17 +/- 44 Elo in freestyle (self-play, 240 games, 300 ms). The
        // history kept by side and bounded, with a malus for the moves tried before a cut:
        // +53 +/- 41 in freestyle (H1 in 269 games) and +28 +/- 28 in renju (600 games),
        // self-play at 40k nodes a move.
        let killers = self.killers[ply.min(MAX_PLY)];
        // The counter-moves and the history are both kept by (point, side to move).
        let me_index = crate::position::ci(me);
        let counter_slot = self.pos.last_move().map(|prev| prev * 2 + me_index);
        let counter = counter_slot
            .and_then(|i| self.counter_moves.get(i).copied())
            .unwrap_or(NO_MOVE);
        // The moves' static order scores, before the table move, killers and history are added:
        // Step 8's policy reduction reads them. Under freestyle that reduction runs only where
        // the opponent has no fork point: where he has one, his attack may already be prepared,
        // and a defence that makes nothing of its own must not lose plies for its low score.
        let policy = (narrow
            && forced == Forced::No
            && depth >= POLICY_DEPTH
            && (policy_beside_forks(self.pos.rule()) || self.pos.fork_count(op) == 0))
            .then(|| {
                let mut statics = moves.clone();
                statics.sort_unstable_by_key(|m| m.0);
                let top = moves.iter().map(|m| m.1).max().unwrap_or(0);
                (statics, top)
            });
        for m in moves.iter_mut() {
            let s = m.0 as u32;
            if s == tt_move {
                m.1 += 1 << 24;
            } else if killers.contains(&s) {
                m.1 += 1 << 16;
            } else if s == counter {
                m.1 += COUNTER_MOVE_BONUS;
            }
            m.1 += self.history.get(m.0 * 2 + me_index).copied().unwrap_or(0);
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        // Step 6b: singular extension: when the table's move held beta at nearly this depth and
        // every other move, searched at half the depth, stays clearly below its score, the
        // move is singular (the rest of the node leans on it) and is searched a ply deeper.
        // The search with the move left out neither cuts on nor stores to the table, and gives
        // no history malus to the move it never tried. Under freestyle, self-play at 40k nodes a
        // move: +34 +/- 29 Elo in 553 games before stand pat, +27 +/- 28 in 600 after it (both
        // without an SPRT decision; together 626.5-526.5, +30 +/- 20). Under renju only with
        // Step 6c beside it: the two against neither at 200k nodes a move, +56.5 +/- 43.9 (H1
        // after 242 games).
        let mut singular = false;
        let mut negative = false;
        if let Some(e) = tt_entry.filter(|e| {
            ply > 0
                && singular_extensions(self.pos.rule())
                && (ply as i32) < 2 * self.root_depth
                && excluded == NO_MOVE
                && depth >= SINGULAR_DEPTH
                && tt_move != NO_MOVE
                && e.bound != Bound::Upper
                && e.depth as i32 >= depth - 3
                && e.score.abs() < WIN_BOUND
                && forced == Forced::No
        }) {
            let singular_beta = e.score - SINGULAR_MARGIN * depth;
            self.singular_excluded[ply.min(MAX_PLY)] = tt_move;
            let mut child = Vec::new();
            let score = self.search(
                (depth - 1) / 2,
                ply,
                singular_beta - 1,
                singular_beta,
                &mut child,
            );
            self.singular_excluded[ply.min(MAX_PLY)] = NO_MOVE;
            if self.aborted {
                return 0;
            }
            singular = score < singular_beta;
            // Step 6c: multi-cut: the search without the table's move failed high too, and above
            // beta: at least two moves hold beta here, so the node is a cut-off. The score is
            // the reduced search's bound, never a proven result (the table's score is not a
            // win or loss, so neither is `singular_beta`), and nothing is stored.
            if !singular && multi_cut(self.pos.rule()) && singular_beta >= beta {
                return singular_beta;
            }
            // Step 6d: negative extension: not singular, and the table says the node fails
            // high: another move holds nearly as well, so the table's move is not the node's
            // only defence and loses a ply ([`negative_extension`]). It is still searched
            // first.
            negative =
                !singular && negative_extension(self.pos.rule()) && from_tt(e.score, ply) >= beta;
        }
        // Step 7: breadth: far-down quiet moves rarely matter in five in a row; the depth left
        // decides how many are looked at. But a loss is proven only when every move loses: once
        // all the kept moves are proven lost, the rest are searched too (Step 8b); without it a
        // node could announce a forced loss that a move past the breadth holds. Measured: +11
        // +/- 43 Elo in freestyle (self-play, 255 games at 40k nodes), kept for sound proofs.
        let keep = if forced == Forced::No && ply > 0 {
            breadth(self.pos.rule(), depth).min(moves.len())
        } else {
            moves.len()
        };
        // Step 7a: move-count pruning (the narrow tree): within the breadth, past a count that
        // grows with the depth left (halved where the side to move is not improving), only the
        // important moves (see [`important`]) are searched. A quiet move that makes no three
        // and blocks none cannot start or stop an attack in time, which is what lets the count
        // be small; pruning by rank alone, without this exemption, lost (-59 +/- 77 Elo
        // together with the steps below, 2026-11-28).
        // (Read here, after Step 6b: where a singular search ran, it left this ply without an
        // evaluation, and the node counts as improving. That is the form measured.)
        let late = if narrow && forced == Forced::No && ply > 0 {
            move_count(depth, self.improving(ply) == Some(false)).min(keep)
        } else {
            keep
        };
        // A four and its block cost one ply together: the block is free. Under renju, far from
        // the horizon the block costs its ply too ([`four_blocks_free_within`]).
        let new_depth = if forced == Forced::Four && four_blocks_free_within(self.pos.rule(), depth)
        {
            depth
        } else {
            depth - 1
        };
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        let mut child = Vec::new();
        for (i, &(sq, _)) in moves.iter().enumerate() {
            // Step 8b: past the breadth only while every move so far is a proven loss.
            if i >= keep && best >= -WIN_BOUND {
                break;
            }
            // Past Step 7a's count, only an important move gets this far.
            let past_count = i >= late && best >= -WIN_BOUND;
            if past_count && !important(&self.pos, sq) {
                continue;
            }
            if sq as u32 == excluded {
                continue;
            }
            // Step 8's policy reduction: a ply per POLICY_GAP of the gap between the move's
            // static order score and the node's best, at most POLICY_MAX_PLIES, for a move
            // that is not important.
            let policy_plies = match &policy {
                Some((statics, top)) if i > 0 => {
                    let score = statics
                        .binary_search_by_key(&sq, |m| m.0)
                        .map_or(*top, |j| statics[j].1);
                    let plies = ((top - score).max(0) / POLICY_GAP).min(POLICY_MAX_PLIES);
                    if plies > 0 && (past_count || important(&self.pos, sq)) {
                        0
                    } else {
                        plies
                    }
                }
                _ => 0,
            };
            let new_depth = if singular && sq as u32 == tt_move {
                new_depth + 1
            } else if negative && sq as u32 == tt_move {
                new_depth - 1
            } else {
                new_depth
            };
            // The child's table slot is read first thing there: asked for now, it arrives while
            // the move is made (freestyle's middlegame: 3% more nodes a second).
            self.tt.prefetch(self.pos.hash_after(sq));
            self.pos.make(sq);
            // Step 8: PVS: the first move gets the full window, the rest a null window first,
            // late quiet moves also a reduced depth, re-searched when they beat alpha.
            let mut score;
            if i == 0 {
                score = -self.search(new_depth, ply + 1, -beta, -alpha, &mut child);
            } else {
                // Late quiet moves are searched shallower, by a reduction that grows with the
                // log of the depth left and of the move's rank, never into the horizon. Renju
                // takes more (ln × ln / 1.4 against / 1.8): +74 +/- 54 Elo, H1 after 166
                // self-play games at 40k nodes, with the history by side in place.
                let reduce = if forced == Forced::No && depth >= 3 && i >= 3 {
                    let r = ((depth as f64).ln() * (i as f64).ln() / lmr_divisor(self.pos.rule()))
                        as i32;
                    // A ply more where the side to move is not improving.
                    let r = r + i32::from(not_improving);
                    r.clamp(1, depth - 2)
                } else if forced == Forced::Three
                    && depth >= 2
                    && three_answers_reduced_from(self.pos.rule()).is_some_and(|from| i >= from)
                {
                    // Step 8a: the answers to an open three past the first few (the other
                    // blocks, fours that only delay) a ply shallower, re-searched in full when
                    // they beat alpha: the first blocks hold most such nodes.
                    1
                } else {
                    0
                };
                let reduce = if policy_plies > 0 {
                    (reduce + policy_plies).clamp(0, (depth - 2).max(0))
                } else {
                    reduce
                };
                score = -self.search(new_depth - reduce, ply + 1, -alpha - 1, -alpha, &mut child);
                // An aborted search's 0 is no score: no re-search after it (it would count a
                // node past the limit).
                if score > alpha && reduce > 0 && !self.aborted {
                    score = -self.search(new_depth, ply + 1, -alpha - 1, -alpha, &mut child);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.search(new_depth, ply + 1, -beta, -alpha, &mut child);
                }
            }
            self.pos.unmake();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = sq as u32;
                pv.clear();
                pv.push(sq);
                pv.extend_from_slice(&child);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                let k = &mut self.killers[ply.min(MAX_PLY)];
                if k[0] != sq as u32 {
                    k[1] = k[0];
                    k[0] = sq as u32;
                }
                if let Some(c) = counter_slot.and_then(|i| self.counter_moves.get_mut(i)) {
                    *c = sq as u32;
                }
                // The cut's move gains and, in a node not forced, the moves tried before it
                // lose, each by depth² (at most HISTORY_MAX), with gravity towards zero: the
                // history stays within ±HISTORY_MAX and recent cuts count more than old ones.
                let bonus = (depth.max(1) * depth.max(1)).min(HISTORY_MAX);
                if forced == Forced::No {
                    for &(tried, _) in &moves[..i] {
                        // The move a singular search leaves out was never tried here.
                        if tried as u32 != excluded {
                            self.update_history(tried * 2 + me_index, -bonus);
                        }
                    }
                }
                self.update_history(sq * 2 + me_index, bonus);
                break;
            }
        }
        if excluded != NO_MOVE {
            // A search with the table's move left out: its result is not the node's.
            return if best == -INF { alpha0 } else { best };
        }
        // Step 9: store what was learnt, with mate scores made relative to this node.
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // Step 9b: correction history: where this node had a static evaluation (Step 5b's) and
        // its moves were not forced, the search's result, when it tells which side of the
        // evaluation the truth lies on, moves the entry of the node's threat mask and side to
        // move towards the difference, more for deeper results. Steps 5 and 5b read the
        // evaluation with the entry added ([`corrects_eval`]): the static weights cannot say
        // how this position's kind of threats plays out, the search's own results can. Under
        // freestyle a second table, by the opponent's last stone, learns and adds alike.
        let static_eval = self.static_evals[ply.min(MAX_PLY)];
        if corrects_eval(self.pos.rule())
            && static_eval != NO_EVAL
            && forced == Forced::No
            && best.abs() < WIN_BOUND
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.update_correction(depth, best - static_eval);
        }
        self.tt.store(Entry {
            key,
            best: best_move,
            score: to_tt(best, ply),
            depth: depth.clamp(-1, 120) as i16,
            bound,
        });
        best
    }

    /// The slot of Step 9b's correction history for the node: its threat mask and side to move.
    fn correction_slot(&self) -> usize {
        self.pos.threat_mask() * 2 + crate::position::ci(self.pos.side())
    }

    /// The slot of Step 9b's second table for the node: the opponent's last stone (0 for none)
    /// and the side to move.
    fn last_stone_slot(&self) -> usize {
        self.pos.last_move().map_or(0, |sq| sq + 1) * 2 + crate::position::ci(self.pos.side())
    }

    /// The static evaluation with Step 9b's correction added (where the rule takes it).
    fn corrected_eval(&self) -> i32 {
        let raw = evaluate(&self.pos, self.weights);
        if !corrects_eval(self.pos.rule()) {
            return raw;
        }
        let mut correction = self.correction[self.correction_slot()];
        if corrects_by_last_stone(self.pos.rule()) {
            correction += self
                .correction_by_last
                .get(self.last_stone_slot())
                .copied()
                .unwrap_or(0);
        }
        raw + correction / CORRECTION_APPLIED
    }

    /// Moves the node's correction entries towards `diff` (the search's result less the static
    /// evaluation), weighted by the depth (full from 8 plies), with gravity towards the bound.
    fn update_correction(&mut self, depth: i32, diff: i32) {
        let limit = CORRECTION_MAX / CORRECTION_GRAIN;
        let bonus = (diff.clamp(-limit, limit) * CORRECTION_GRAIN * depth.clamp(1, 8) / 8)
            .clamp(-CORRECTION_MAX / 4, CORRECTION_MAX / 4);
        let slot = self.correction_slot();
        add_with_gravity(&mut self.correction[slot], bonus, CORRECTION_MAX);
        if corrects_by_last_stone(self.pos.rule()) {
            let slot = self.last_stone_slot();
            if let Some(entry) = self.correction_by_last.get_mut(slot) {
                add_with_gravity(entry, bonus, CORRECTION_MAX);
            }
        }
    }

    /// Whether the side to move stands better by the static evaluation than two plies before,
    /// when both nodes have one (and the rule uses it: [`uses_improving`]).
    fn improving(&self, ply: usize) -> Option<bool> {
        if !uses_improving(self.pos.rule()) {
            return None;
        }
        let now = *self.static_evals.get(ply)?;
        let before = *self.static_evals.get(ply.checked_sub(2)?)?;
        (now != NO_EVAL && before != NO_EVAL).then_some(now > before)
    }

    // Step 5b and its cuts, for a node whose moves are not forced: a score ends the node.
    fn prune_quiet(
        &mut self,
        depth: i32,
        ply: usize,
        beta: i32,
        pv_node: bool,
        excluded: u32,
    ) -> Option<i32> {
        // Step 5b: where no threat can hide (the opponent has no open three, so the node is
        // not forced, and no point that makes a four-three or a double three), a node off the
        // principal variation may end on its static evaluation. Any attack the opponent could
        // start takes him two moves at least, which the evaluation's fork terms weigh.
        let op = self.pos.side().opponent();
        if !pv_node
            && ply > 0
            && excluded == NO_MOVE
            && self.pos.fork_count(op) == 0
            && beta.abs() < WIN_BOUND
        {
            let static_eval = self.corrected_eval();
            self.static_evals[ply.min(MAX_PLY)] = static_eval;
            // Step 5c: reverse futility: near the horizon, an evaluation above beta by a margin
            // per ply left stands; a ply's margin less where the side to move is improving.
            let margin_plies = depth - i32::from(self.improving(ply) == Some(true));
            if depth <= FUTILITY_DEPTH && static_eval - FUTILITY_MARGIN * margin_plies >= beta {
                return Some(static_eval);
            }
            // Step 5d: null move: a stone never hurts its owner in five in a row (but for
            // black's rare forbidden points under renju and overlines where a five must be
            // exact), so a pass is a lower bound on the best move. When even a pass, searched
            // shallower, holds beta, the node fails high. One pass per line; a pass's "win" is
            // not taken as proven.
            if depth >= null_move_depth(self.pos.rule()) && static_eval >= beta && !self.null_before
            {
                let reduction = if narrow_tree(self.pos.rule()) {
                    3 + depth / 3
                } else {
                    2 + depth / 6
                };
                self.pos.pass();
                self.null_before = true;
                let mut child = Vec::new();
                let score =
                    -self.search(depth - 1 - reduction, ply + 1, -beta, -beta + 1, &mut child);
                self.null_before = false;
                self.pos.pass();
                if self.aborted {
                    return Some(0);
                }
                if score >= beta {
                    return Some(if score > WIN_BOUND { beta } else { score });
                }
            }
        }
        None
    }

    // Step 5 (the leaf): an evaluation at or above beta stands; below it, a VCF for the side to
    // move is a proven win, and otherwise the static evaluation stands.
    fn leaf(&mut self, ply: usize, beta: i32, pv: &mut Vec<Sq>) -> i32 {
        // Stand pat: an evaluation at or above beta already cuts, and a win by VCF would cut
        // the same way, so the probe could change the score but not the decision. Most VCF
        // probes were spent on such leaves: to depth 10 on the freestyle bench middlegame the
        // search took 7.5 billion instructions before and 1.5 after (renju 6.5 and 3.6).
        // Self-play at 40k nodes a move: freestyle +138 +/- 82 Elo (H1 after 81 games), renju
        // +118 +/- 77 (H1 after 91).
        let static_eval = self.corrected_eval();
        if static_eval >= beta {
            return static_eval;
        }
        if self.leaf_vcf > 0 {
            let mut line = Vec::new();
            if self.vcf(self.leaf_vcf, &mut line) {
                let score = WIN - (ply as i32 + self.plies_to_five(&line));
                pv.extend(line);
                return score;
            }
        }
        static_eval
    }

    /// Victory by continuous fours for the side to move, within `depth` own moves. On success
    /// `line` holds the attacker's and defender's moves up to and including the five.
    pub(crate) fn vcf(&mut self, depth: u32, line: &mut Vec<Sq>) -> bool {
        let attacker = self.pos.side();
        // Without a five or a four to make there is no VCF: most leaves, decided from the
        // counters before the failure table is read (its load was half this probe's time),
        // and not counted as a node.
        if !self.pos.has_five(attacker) && !self.pos.may_have_four(attacker) {
            line.clear();
            return false;
        }
        let key = self.pos.hash();
        if self.tt.vcf_failed(key, depth) {
            return false;
        }
        // The VCF reads only patterns and the five and four counters: its moves can be lean.
        let was_lean = self.pos.set_lean(true);
        let found = self.vcf_inner(attacker, depth, line);
        self.pos.set_lean(was_lean);
        if !found && !self.aborted {
            self.tt.store_vcf_fail(key, depth);
        }
        found
    }

    fn vcf_inner(&mut self, attacker: Color, depth: u32, line: &mut Vec<Sq>) -> bool {
        line.clear();
        if self.tick() {
            return false;
        }
        // Without a five or a four to make, there is no VCF: the common case, decided at once.
        if !self.pos.has_five(attacker) && !self.pos.may_have_four(attacker) {
            return false;
        }
        let defender = attacker.opponent();
        let mut cells = std::mem::take(&mut self.scratch[MAX_PLY]);
        let mut def_fives = FivePoints::default();
        let mut fours: Vec<(Sq, Info)> = Vec::new();
        let mut result = None;
        let look_for_def_five = self.pos.has_five(defender);
        // Most cells make no four: the pattern bytes say so before the full look.
        self.pos
            .four_cells(attacker, look_for_def_five.then_some(defender), &mut cells);
        for &sq in &cells {
            if self.pos.makes_four(sq, attacker) {
                let a = info(&mut self.pos, sq, attacker);
                if a.five {
                    result = Some(sq);
                    break;
                }
                if a.any_four() {
                    fours.push((sq, a));
                }
            }
            if look_for_def_five
                && self.pos.makes_four(sq, defender)
                && info(&mut self.pos, sq, defender).five
            {
                def_fives.push(sq);
            }
        }
        self.scratch[MAX_PLY] = cells;
        if let Some(sq) = result {
            line.push(sq);
            return true;
        }
        if depth == 0 {
            return false;
        }
        // A five threatened by the defender must be blocked, and only a four may block it.
        if def_fives.len > 0 {
            let blocks = five_blocks(&mut self.pos, defender, def_fives.as_slice());
            fours.retain(|(sq, _)| blocks.as_slice().contains(sq));
        }
        // A straight four or a double four wins at once; try those first, then the rest by weight.
        fours.sort_by_key(|(_, a)| std::cmp::Reverse((a.flex_four(), a.weight)));
        let mut sub = Vec::new();
        for (sq, _) in fours {
            self.pos.make(sq);
            let won = self.after_four(sq, attacker, depth, line, &mut sub);
            self.pos.unmake();
            if won || self.aborted {
                return won;
            }
        }
        false
    }

    // The attacker has just made a four on `sq`. The defender must answer it: the line wins if
    // the four cannot be stopped (two completion points, or a block forbidden to black), or if
    // after every block (one, but two or three under caro: see `five_blocks`) the attacker
    // still has a VCF. A defender with a five of his own wins instead. On success `line` holds
    // the moves from `sq` on, against the block that lasts longest.
    fn after_four(
        &mut self,
        sq: Sq,
        attacker: Color,
        depth: u32,
        line: &mut Vec<Sq>,
        sub: &mut Vec<Sq>,
    ) -> bool {
        let defender = attacker.opponent();
        if self.defender_has_five(defender) {
            return false;
        }
        let fives = self.five_points(sq, attacker);
        if fives.len == 0 {
            return false;
        }
        let mut blocks = five_blocks(&mut self.pos, attacker, fives.as_slice());
        // Black may not block on a forbidden point.
        blocks.retain(|b| !info(&mut self.pos, b, defender).forbidden);
        if blocks.len == 0 {
            // Nothing stops the five. The line shows a legal block and a five left after it
            // when there is one, or ends on the four.
            line.push(sq);
            let f = fives.as_slice();
            if let Some(&b) = f
                .iter()
                .find(|&&r| !info(&mut self.pos, r, defender).forbidden)
            {
                self.pos.make(b);
                let other = f
                    .iter()
                    .copied()
                    .find(|&o| o != b && info(&mut self.pos, o, attacker).five);
                self.pos.unmake();
                if let Some(o) = other {
                    line.extend([b, o]);
                }
            }
            return true;
        }
        // Every block must lose; the line kept follows the one that lasts longest.
        let mut longest: Option<(Sq, Vec<Sq>)> = None;
        for &r in blocks.as_slice() {
            self.pos.make(r);
            let ok = self.vcf(depth - 1, sub);
            self.pos.unmake();
            if !ok {
                return false;
            }
            if longest.as_ref().is_none_or(|(_, l)| sub.len() > l.len()) {
                longest = Some((r, std::mem::take(sub)));
            }
        }
        let (r, mut rest) = longest.expect("a block was tried");
        line.push(sq);
        line.push(r);
        line.append(&mut rest);
        true
    }

    // Plies from the side to move to its five along a won `line`. A line may end on a four
    // that cannot be stopped (two fives to make, or a block forbidden to black): the defender's
    // move and the five then still come, two plies the line does not show.
    fn plies_to_five(&mut self, line: &[Sq]) -> i32 {
        let Some((&last, before)) = line.split_last() else {
            return 0;
        };
        for &sq in before {
            self.pos.make(sq);
        }
        let side = self.pos.side();
        let five = info(&mut self.pos, last, side).five;
        for _ in before {
            self.pos.unmake();
        }
        line.len() as i32 + if five { 0 } else { 2 }
    }

    /// Victory by continuous threats (fours and open threes) for the side to move, within
    /// `depth` own threats beyond its fours. On success `line` holds the first threat and, after
    /// it, the line played against the longest-lasting defence (every defence loses).
    ///
    /// The open threes allowed grow one at a time up to `depth` (iterative deepening): an
    /// attack searched depth first with many threes to spend loses itself in long hopeless lines
    /// before it tries the short win, and each failed round leaves its positions in the failure table,
    /// which the next round reads. On the defence set's 20 positions, the opponent to move and
    /// five threes allowed, it proves 14 wins in 426k nodes where the plain depth-first search
    /// proved 13 in 3.9M (and with four threes 10, one of its failures spending the whole
    /// 3M-node budget on a win that three threes prove in 23k).
    pub(crate) fn vct(&mut self, depth: u32, line: &mut Vec<Sq>) -> bool {
        let attacker = self.pos.side();
        let rounds = if depth == 0 { 0..=0 } else { 1..=depth };
        for threes in rounds {
            if self.attack(attacker, threes, line) {
                return true;
            }
            if self.aborted {
                break;
            }
        }
        line.clear();
        false
    }

    fn empty_near(&self) -> Vec<Sq> {
        let mut cells = Vec::new();
        self.pos.empty_near_cells(&mut cells);
        cells
    }

    // Attacker to move. A failure is remembered in the failure table that the VCF also uses,
    // under a key of its own: the attack's result depends on the position and `depth` alone,
    // and one that fails with `depth` threes fails with fewer (every move tried with fewer is
    // tried with more, and the VCF inside gets fewer fours), so the table's "failed to this
    // depth" reads as it does for the VCF. An aborted attack proves nothing and is not stored.
    fn attack(&mut self, attacker: Color, depth: u32, line: &mut Vec<Sq>) -> bool {
        let key = self.pos.hash() ^ VCT_KEY;
        if self.tt.vcf_failed(key, depth) {
            line.clear();
            return false;
        }
        let won = self.attack_unremembered(attacker, depth, line);
        if !won && !self.aborted {
            self.tt.store_vcf_fail(key, depth);
        }
        won
    }

    fn attack_unremembered(&mut self, attacker: Color, depth: u32, line: &mut Vec<Sq>) -> bool {
        line.clear();
        if self.tick() {
            return false;
        }
        let defender = attacker.opponent();
        let cells = self.empty_near();
        let mut def_fives = Vec::new();
        let mut def_flex = false;
        let mut threats: Vec<(Sq, i32)> = Vec::new();
        for &sq in &cells {
            let a = info(&mut self.pos, sq, attacker);
            if a.five {
                line.push(sq);
                return true;
            }
            let b = info(&mut self.pos, sq, defender);
            if b.five {
                def_fives.push(sq);
            }
            def_flex |= b.flex_four();
            if !a.forbidden && (a.fours > 0 || a.threes > 0) {
                threats.push((sq, a.weight));
            }
        }
        // Step 1: a five threatened by the defender must be blocked first (see `five_blocks`);
        // the block may itself be a threat, which the defender must then answer.
        if !def_fives.is_empty() {
            let mut blocks = five_blocks(&mut self.pos, defender, &def_fives);
            blocks.retain(|b| !info(&mut self.pos, b, attacker).forbidden);
            let mut sub = Vec::new();
            for &f in blocks.as_slice() {
                self.pos.make(f);
                let won = self.defend(attacker, depth, &mut sub);
                self.pos.unmake();
                if self.aborted {
                    return false;
                }
                if won {
                    line.push(f);
                    line.append(&mut sub);
                    return true;
                }
            }
            return false;
        }
        // Step 2: fours alone may already win.
        let mut sub = Vec::new();
        if self.vcf(depth.max(1) * 4, &mut sub) {
            line.append(&mut sub);
            return true;
        }
        // Step 3: an open three is too slow against a defender who can make an open four.
        if depth == 0 || def_flex {
            return false;
        }
        // Step 4: every threat, most promising first; one that no defence refutes wins.
        threats.sort_by_key(|t| std::cmp::Reverse(t.1));
        threats.truncate(24);
        for (sq, _) in threats {
            self.pos.make(sq);
            let won = self.defend(attacker, depth - 1, &mut sub);
            self.pos.unmake();
            if self.aborted {
                return false;
            }
            if won {
                line.push(sq);
                line.append(&mut sub);
                return true;
            }
        }
        false
    }

    // Defender to move after a threat; true when every defence loses.
    fn defend(&mut self, attacker: Color, depth: u32, line: &mut Vec<Sq>) -> bool {
        line.clear();
        if self.tick() {
            return false;
        }
        let defender = attacker.opponent();
        let cells = self.empty_near();
        let mut att_fives = Vec::new();
        let mut att_flex = None;
        let mut counter_fours = Vec::new();
        for &sq in &cells {
            let b = info(&mut self.pos, sq, defender);
            if b.five {
                return false;
            }
            let a = info(&mut self.pos, sq, attacker);
            if a.five {
                att_fives.push(sq);
            }
            if a.flex_four() && att_flex.is_none() {
                att_flex = Some(sq);
            }
            if b.any_four() {
                counter_fours.push(sq);
            }
        }
        // Step 1: a four must be blocked, on its point (or beside it under caro, see
        // `five_blocks`); black may be unable to. Every block must lose.
        if !att_fives.is_empty() {
            let mut blocks = five_blocks(&mut self.pos, attacker, &att_fives);
            blocks.retain(|b| !info(&mut self.pos, b, defender).forbidden);
            return self.every_defence_loses(attacker, depth, blocks.as_slice(), line);
        }
        // Step 2: no open-four threat left: the attack has fizzled.
        let Some(f) = att_flex else {
            return false;
        };
        // Step 3: the defences: the defender's own fours, and the points on the lines through
        // the threat point (only a stone there can stop the open four being made).
        let mut defences: Vec<Sq> = cells
            .iter()
            .copied()
            .filter(|&sq| sq == f || on_lines(&self.pos, f, sq) || counter_fours.contains(&sq))
            .collect();
        defences.retain(|&sq| !info(&mut self.pos, sq, defender).forbidden);
        self.every_defence_loses(attacker, depth, &defences, line)
    }

    // Whether the attacker still wins after each of the defender's `defences`. The line kept is
    // the longest: the defender picks the defence that lasts, so the win's announced length is
    // that of the longest defence, never shorter.
    fn every_defence_loses(
        &mut self,
        attacker: Color,
        depth: u32,
        defences: &[Sq],
        line: &mut Vec<Sq>,
    ) -> bool {
        let mut sub = Vec::new();
        let mut longest: Option<Vec<Sq>> = None;
        for &d in defences {
            self.pos.make(d);
            let won = self.attack(attacker, depth, &mut sub);
            self.pos.unmake();
            if !won || self.aborted {
                return false;
            }
            if longest.as_ref().is_none_or(|l| sub.len() + 1 > l.len()) {
                let mut l = vec![d];
                l.append(&mut sub);
                longest = Some(l);
            }
        }
        line.extend(longest.unwrap_or_default());
        true
    }

    fn defender_has_five(&mut self, defender: Color) -> bool {
        self.pos.has_five(defender)
    }

    // Empty points within reach of `sq` on its four lines where `c` would make a five, at most
    // two a line (kept on the stack: the VCF asks at every four).
    fn five_points(&self, sq: Sq, c: Color) -> FivePoints {
        let mut out = FivePoints::default();
        for d in 0..4 {
            let delta = self.pos.deltas[d];
            for k in (-5..=5isize).filter(|&k| k != 0) {
                let t = (sq as isize + delta * k) as Sq;
                if self.pos.is_empty(t)
                    && self.pos.pat(t, c, d) == crate::pattern::Pat::Five
                    && !out.as_slice().contains(&t)
                    && out.len < out.points.len()
                {
                    out.points[out.len] = t;
                    out.len += 1;
                }
            }
        }
        out
    }

    /// The line shown for a root `pv` with its `score`. A decided line is played on to its five
    /// where the moves left are forced: the search's lines end where the result became certain
    /// (a straight four made, a five the loser can only delay), which a reader of a "win in 3"
    /// would have to finish in his head.
    fn line_of(&mut self, pv: &[Sq], score: i32) -> Line {
        let mut moves = pv.to_vec();
        if score.abs() > WIN_BOUND {
            let mut ended = false;
            for &sq in pv {
                let side = self.pos.side();
                ended = info(&mut self.pos, sq, side).five;
                self.pos.make(sq);
            }
            let mut made = pv.len();
            let mut scratch = Vec::new();
            // A straight four, the delay, the five: a few plies at most.
            while !ended && made < pv.len() + 8 {
                match generate(&mut self.pos, &mut scratch) {
                    Gen::Five(sq) => {
                        moves.push(sq);
                        ended = true;
                    }
                    Gen::FlexFour(sq) | Gen::Lost(Some(sq), _) => {
                        moves.push(sq);
                        self.pos.make(sq);
                        made += 1;
                    }
                    _ => break,
                }
            }
            for _ in 0..made {
                self.pos.unmake();
            }
        }
        Line {
            moves: moves.iter().map(|&s| self.pos.point(s)).collect(),
            score: Score::from_internal(score),
        }
    }

    /// Iterative deepening at the root, with `multipv` lines.
    pub(crate) fn run(&mut self, on_info: &mut dyn FnMut(&SearchInfo)) -> Vec<Line> {
        let max_depth = self.limits.depth.unwrap_or(64).clamp(1, 100) as i32;
        let multipv = self.limits.multipv.max(1);
        let mut best_lines: Vec<Line> = Vec::new();
        // Step R: a forced win by threats found at once ends the search; its budget is small
        // and only the stop flag, the time or the node limit keep the main search from running.
        if multipv == 1 && self.root_vct > 0 {
            // At most a quarter of the node limit and of the time, so the main search keeps
            // most of both.
            let budget = ROOT_VCT_NODES.min(self.limits.nodes.map_or(u64::MAX, |n| n / 4));
            self.node_cap = Some(self.nodes + budget);
            self.time_cap = self.limits.time.map(|t| t / 4);
            let mut line = Vec::new();
            let found = self.vct(self.root_vct, &mut line);
            self.node_cap = None;
            self.time_cap = None;
            let hard_stop = self.stop.load(Ordering::Relaxed)
                || self.limits.time.is_some_and(|t| self.start.elapsed() >= t)
                || self.limits.nodes.is_some_and(|n| self.nodes >= n);
            if found && !self.aborted {
                let lines = vec![Line {
                    moves: line.iter().map(|&s| self.pos.point(s)).collect(),
                    score: Score::from_internal(WIN - self.plies_to_five(&line)),
                }];
                on_info(&SearchInfo {
                    depth: 0,
                    seldepth: line.len() as u32,
                    nodes: self.nodes,
                    elapsed: self.start.elapsed(),
                    lines: lines.clone(),
                });
                return lines;
            }
            self.aborted = hard_stop;
            if hard_stop {
                return self.fallback();
            }
        }
        let mut settled = Settled::default();
        for depth in 1..=max_depth {
            // Helpers run ahead of the main thread: each starts its next iteration one or two
            // plies past the main thread's last completed one (odd helpers two), so the table
            // holds deeper results when the main thread gets there.
            if self.helper_id > 0 && depth < max_depth {
                let main = self.main_depth.map_or(0, |d| d.load(Ordering::Relaxed)) as i32;
                if depth <= main + (self.helper_id % 2) as i32 {
                    continue;
                }
            }
            let mut lines: Vec<Line> = Vec::new();
            let mut excluded: Vec<Sq> = Vec::new();
            let mut partial = None;
            self.root_depth = depth;
            // Step A's window is centred on the last completed iteration's score.
            let previous = best_lines.first().map(|l| l.score.internal());
            for _ in 0..multipv {
                let mut pv = Vec::new();
                let score = self.root(depth, &excluded, &mut pv, previous);
                if self.aborted {
                    // The root searches the previous best move first, so once that one has
                    // finished, whatever the unfinished iteration prefers is at least as good
                    // and one ply deeper (but see below).
                    if lines.is_empty() && multipv == 1 && !pv.is_empty() {
                        partial = Some(self.line_of(&pv, score));
                    }
                    break;
                }
                let Some(&first) = pv.first() else { break };
                excluded.push(first);
                lines.push(self.line_of(&pv, score));
            }
            if self.aborted {
                if let Some(line) = partial {
                    // Unless the first move was proven lost: the rest, not searched yet at this
                    // depth, may hold, so the best of the last completed iteration not proven
                    // lost is played instead (the first move stays when all are). Without this
                    // a clock cut short right there played a move just proven to lose.
                    let lost = line.score.internal() <= -WIN_BOUND;
                    best_lines = vec![if lost {
                        self.best_unrefuted_root_move().unwrap_or(line)
                    } else {
                        line
                    }];
                    break;
                }
                // A partial iteration still counts when its first line finished and improved on
                // the previous best move's score. It goes first; the line the last completed
                // iteration had for the same move, if any, goes (each move once).
                if let (Some(new), Some(old)) = (lines.first(), best_lines.first()) {
                    if new.score.internal() > old.score.internal() {
                        let new = new.clone();
                        best_lines.retain(|l| l.moves.first() != new.moves.first());
                        best_lines.insert(0, new);
                        best_lines.truncate(multipv);
                    }
                } else if best_lines.is_empty() {
                    best_lines = lines;
                }
                break;
            }
            // Each later line is searched with the earlier best moves left out, and may still
            // come back with a better score (the table has learnt more by then): best first.
            lines.sort_by_key(|l| std::cmp::Reverse(l.score.internal()));
            best_lines = lines;
            self.completed_depth = depth as u32;
            if self.helper_id == 0 {
                if let Some(d) = self.main_depth {
                    d.store(depth as u32, Ordering::Relaxed);
                }
            }
            if let Some(line) = best_lines.first() {
                self.deepest = Some((depth as u32, line.clone()));
            }
            on_info(&SearchInfo {
                depth: depth as u32,
                seldepth: self.seldepth,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                lines: best_lines.clone(),
            });
            // A proven result needs no deeper look.
            if !best_lines.is_empty() && best_lines.iter().all(|l| l.score.is_decisive()) {
                break;
            }
            // Step T: under a game clock (a soft limit), the next iteration starts only while
            // the time used is below the soft limit, scaled by how settled the search is: a
            // move with no alternative is played at once, a best move that has held for three
            // iterations gets less time, one that just changed or whose score just fell gets
            // more (the hard limit, checked at every node, still bounds it).
            if let (Some(soft), 0, Some(line)) =
                (self.limits.soft_time, self.helper_id, best_lines.first())
            {
                let scale = settled.update(line, self.root_moves);
                if self.start.elapsed().as_secs_f64() >= soft.as_secs_f64() * scale {
                    break;
                }
            }
            // Time: the next iteration starts whenever time is left. Cut short, it still counts
            // once its first move (the previous best) has finished, above, so the rest of the
            // budget is never wasted. Measured against stopping at half the budget: +12 +/- 62
            // Elo in freestyle and +64 +/- 64 in renju (self-play, 120 games each, 300 ms).
        }
        if best_lines.is_empty() {
            return self.fallback();
        }
        best_lines
    }

    // The fallback for a first root move proven lost in a cut-short iteration: of the moves
    // not proven lost (in the last completed iteration or the one under way), the first in the
    // last completed iteration's order whose score there was within SCORE_FALL of the best of
    // them. Those scores are null-window bounds, many of them at the window itself; the order
    // (the table's move, then the generator's) tells the close ones apart better.
    fn best_unrefuted_root_move(&self) -> Option<Line> {
        let lost_now = |sq: Sq| {
            self.root_scores
                .iter()
                .any(|&(s, score)| s == sq && score <= -WIN_BOUND)
        };
        let open: Vec<(Sq, i32)> = self
            .completed_root_scores
            .iter()
            .copied()
            .filter(|&(sq, score)| score > -WIN_BOUND && !lost_now(sq))
            .collect();
        let top = open.iter().map(|m| m.1).max()?;
        open.iter()
            .find(|m| m.1 >= top - SCORE_FALL)
            .map(|&(sq, score)| Line {
                moves: vec![self.pos.point(sq)],
                score: Score::from_internal(score),
            })
    }

    // When a search is stopped before its first iteration ends, the best-looking legal move,
    // so that a caller always has a move to play.
    fn fallback(&mut self) -> Vec<Line> {
        let mut scratch = Vec::new();
        let sq = match generate(&mut self.pos, &mut scratch) {
            Gen::Five(sq) | Gen::FlexFour(sq) => Some(sq),
            Gen::Lost(sq, _) => sq,
            Gen::Moves(m, _) => m.iter().max_by_key(|m| m.1).map(|m| m.0),
        };
        sq.map(|sq| Line {
            moves: vec![self.pos.point(sq)],
            score: Score::Eval(evaluate(&self.pos, self.weights)),
        })
        .into_iter()
        .collect()
    }

    fn root(
        &mut self,
        depth: i32,
        excluded: &[Sq],
        pv: &mut Vec<Sq>,
        previous: Option<i32>,
    ) -> i32 {
        pv.clear();
        let mut scratch = Vec::new();
        let (moves, forced) = match generate(&mut self.pos, &mut scratch) {
            Gen::Five(sq) => {
                if excluded.contains(&sq) {
                    return -INF;
                }
                pv.push(sq);
                return WIN - 1;
            }
            Gen::FlexFour(sq) if !excluded.contains(&sq) => {
                // Play it and let the search show the rest of the win.
                (vec![(sq, 0)], Forced::Four)
            }
            Gen::FlexFour(_) => {
                // Other moves for multi-PV: every legal one, by a plain look.
                let mut s = Vec::new();
                match generate_all(&mut self.pos, &mut s) {
                    v if v.is_empty() => return -INF,
                    v => (v, Forced::No),
                }
            }
            Gen::Lost(sq, plies) => {
                let Some(sq) = sq.filter(|s| !excluded.contains(s)) else {
                    return -INF;
                };
                pv.push(sq);
                return -(WIN - plies);
            }
            Gen::Moves(m, forced) => (m, forced),
        };
        let mut moves: Vec<(Sq, i32)> = moves
            .into_iter()
            .filter(|m| !excluded.contains(&m.0))
            .collect();
        if moves.is_empty() {
            return -INF;
        }
        if excluded.is_empty() {
            self.root_moves = moves.len();
            self.root_scores.clear();
        }
        if let Some(e) = self.tt.probe(self.pos.hash()) {
            if let Some(m) = moves.iter_mut().find(|m| m.0 as u32 == e.best) {
                m.1 += 1 << 24;
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        let new_depth = if forced == Forced::Four {
            depth
        } else {
            depth - 1
        };
        // Step A: an aspiration window for the first move: searched within ASPIRATION_DELTA of
        // the last iteration's score, its subtree cuts more; a score outside the window widens
        // that side (twice as far each time) and searches it again. Only the first move: its
        // exact score is then the bar the others are searched against, as without a window.
        // Self-play at 100,000 nodes a move: freestyle +28.3 +/- 31.0 Elo (H1 in 480 games);
        // renju H1 in one of two runs side by side (+76.4 +/- 60.2 in 134 games, and +15.1
        // +/- 28.7 in 551). A window over the whole root (every move searched again when the
        // first fails low) gained as much under freestyle before this step but gave up two
        // positions of the defence set at every budget from 700,000 to 1,500,000 nodes: where a
        // deep attack is first seen, the failed passes over every other move cost the nodes
        // that would have found the holding move. Rebuilt with this step in place it lost
        // (-20.9 +/- 41.2, H0 in 265 games; docs/levels.md, 2026-12-06 seventh and eighth
        // sittings, 2026-12-07).
        let window = previous.filter(|p| {
            aspiration(self.pos.rule())
                && excluded.is_empty()
                && depth >= ASPIRATION_DEPTH
                && p.abs() < WIN_BOUND
        });
        let mut alpha = -INF;
        let mut child = Vec::new();
        for (i, &(sq, _)) in moves.iter().enumerate() {
            self.pos.make(sq);
            let mut score;
            if let (0, Some(prev)) = (i, window) {
                let mut delta = ASPIRATION_DELTA;
                let (mut low, mut high) = (prev - delta, prev + delta);
                loop {
                    score = -self.search(new_depth, 1, -high, -low, &mut child);
                    if self.aborted {
                        break;
                    }
                    if score <= low {
                        low = if score <= -WIN_BOUND {
                            -INF
                        } else {
                            (score - delta).max(-INF)
                        };
                    } else if score >= high {
                        high = if score >= WIN_BOUND {
                            INF
                        } else {
                            (score + delta).min(INF)
                        };
                    } else {
                        break;
                    }
                    delta += delta;
                }
            } else if i == 0 {
                score = -self.search(new_depth, 1, -INF, -alpha, &mut child);
            } else {
                score = -self.search(new_depth, 1, -alpha - 1, -alpha, &mut child);
                if score > alpha && !self.aborted {
                    score = -self.search(new_depth, 1, -INF, -alpha, &mut child);
                }
            }
            self.pos.unmake();
            if self.aborted {
                break;
            }
            if excluded.is_empty() {
                self.root_scores.push((sq, score));
            }
            if score > alpha || pv.is_empty() {
                alpha = alpha.max(score);
                pv.clear();
                pv.push(sq);
                pv.extend_from_slice(&child);
            }
        }
        if excluded.is_empty() && !self.aborted {
            std::mem::swap(&mut self.completed_root_scores, &mut self.root_scores);
        }
        // An aborted iteration's scores are not results: store only a finished one.
        if let Some(&best) = pv.first().filter(|_| !self.aborted) {
            self.tt.store(Entry {
                key: self.pos.hash(),
                best: best as u32,
                score: alpha,
                depth: depth as i16,
                bound: Bound::Exact,
            });
        }
        alpha
    }
}

/// Step T's view of how settled the root is, iteration after iteration.
#[derive(Default)]
struct Settled {
    best: Option<tengen_rules::Point>,
    score: Option<i32>,
    /// Iterations in a row that confirmed the best move (0 when just found).
    held: u32,
}

impl Settled {
    /// How much of the soft limit the search may use, after an iteration that found `line`
    /// among `root_moves` moves.
    fn update(&mut self, line: &Line, root_moves: usize) -> f64 {
        if root_moves <= 1 {
            return 0.0;
        }
        let best = line.moves.first().copied();
        let score = line.score.internal();
        let changed = self.best.is_some() && best != self.best;
        let fell = self.score.is_some_and(|old| score < old - SCORE_FALL);
        self.held = if changed || self.best.is_none() {
            0
        } else {
            self.held + 1
        };
        self.best = best;
        self.score = Some(score);
        let mut scale = if changed {
            1.6
        } else if self.held >= 3 {
            0.6
        } else {
            1.0
        };
        if fell {
            scale *= 1.4;
        }
        scale
    }
}

/// Step A's aspiration window: from this depth on, this far either side of the last score at
/// first (an open three weighs about 20).
const ASPIRATION_DEPTH: i32 = 5;
const ASPIRATION_DELTA: i32 = 40;

/// Whether the root's first move is searched within Step A's aspiration window: under the rules
/// it was measured in (standard and caro have their own evaluation weights and trees, and have
/// not been played with it).
fn aspiration(rule: Rule) -> bool {
    matches!(rule, Rule::Freestyle | Rule::Renju)
}

/// A fall of the root's score by more than this from one iteration to the next buys Step T
/// more time (an open three weighs about 20).
const SCORE_FALL: i32 = 30;

/// Step 7's breadth: how many quiet moves a node with `depth` plies left looks at. Measured in
/// self-play at 200 ms a move against 8 + 4 per ply: under freestyle 6 + 3 per ply scored
/// 219.5-180.5 (400 games, +34 +/- 34 Elo); under renju it lost 64.5-83.5 (148 games) and
/// 10 + 5 per ply gained nothing (163-158 in 321). Later, with the null move and the history
/// by side, renju's 7 + 3.5 per ply beat 8 + 4 at 40k nodes a move: 235-185 in 420 games
/// (+42 +/- 33 Elo, H1), while freestyle's 5 + 2.5 lost to 6 + 3 (-38, H0 after 155 games).
/// Caro searches as freestyle does ([`searches_as_freestyle`]); standard keeps 8 + 4.
fn breadth(rule: Rule, depth: i32) -> usize {
    let depth = depth.max(0) as usize;
    match rule {
        Rule::Renju => 7 + 7 * depth / 2,
        _ if searches_as_freestyle(rule) => 6 + 3 * depth,
        _ => 8 + 4 * depth,
    }
}

/// Step 5d's null move: from this many plies left. Renju's 2 instead of 3, self-play at 40k
/// nodes a move: 321.5-278.5 in 600 games (+25 +/- 28, no SPRT decision), then 188-175 in 363
/// more, together 509.5-453.5 (+20); under freestyle 2 scored 173.5-178.5 in 352 games (H0),
/// so freestyle, standard and caro keep 3.
fn null_move_depth(rule: Rule) -> i32 {
    match rule {
        Rule::Renju => 2,
        Rule::Freestyle | Rule::Standard | Rule::Caro | Rule::CaroOverlines => 3,
    }
}

/// Whether Step 6b's singular extension runs: under freestyle and caro, and under renju with
/// Step 6c's multi-cut beside it (renju lost with the extension alone, 19-41 in 60 self-play
/// games at 40k nodes a move, and 115-125 in 240 later); standard goes without
/// ([`searches_as_freestyle`]).
fn singular_extensions(rule: Rule) -> bool {
    searches_as_freestyle(rule) || rule == Rule::Renju
}

/// Whether Step 6c's multi-cut ends a node whose search without the table's move fails high:
/// under renju, where it made the singular extension pay (see Step 6b). Under freestyle,
/// self-play at 200,000 nodes a move against the extension alone: 253-221 in 474 games (+23.5
/// +/- 30.9 Elo, no SPRT decision), not taken.
fn multi_cut(rule: Rule) -> bool {
    rule == Rule::Renju
}

/// Whether Step 6d's negative extension runs: where Step 6b's search without the table's move
/// found another move within its margin and the table's score is at or above beta, the
/// table's move is searched a ply shallower. Under freestyle, against the search without it,
/// self-play at 100k nodes a move: 500.5-482.5 in 983 games (+6.4 +/- 21.6 Elo; SPRT elo0=-10
/// elo1=30 undecided, stopped), then two non-regression runs (SPRT elo0=-15 elo1=5, stopped
/// undecided) 174.5-184.5 in 359 and 140-143 in 283: 815-810 in 1,625 games, no gain and no
/// loss shown. Taken for the defence set: held at 1,000,000 nodes it goes from 76 to 79 of 81,
/// every freestyle position missed before now held (at 200,000 nodes it falls from 71 to 68).
/// Under renju it scored 371-361 in 732 games (+4.7 +/- 24.9) and reached depth 16 on the
/// renju middlegame at 469k nodes instead of 1,074k, but lost a renju defence at 1,000,000
/// nodes: not taken. Caro, not played, went from depth 13 to 11 at 1,000,000 nodes on its
/// middlegame; standard has no Step 6b.
fn negative_extension(rule: Rule) -> bool {
    rule == Rule::Freestyle
}

/// Adds `bonus` (at most `max` in size) to a history-like `entry`, less the entry's own pull
/// towards zero in proportion to the bonus: the entry stays within ±`max`, and recent updates
/// count more than old ones.
fn add_with_gravity(entry: &mut i32, bonus: i32, max: i32) {
    *entry += bonus - *entry * bonus.abs() / max;
}

/// Whether Steps 5 and 5b read the evaluation with Step 9b's correction history added:
/// freestyle and renju, where it was measured (see `docs/levels.md`, 2026-12-06). Renju, at
/// half an entry, self-play at 100k nodes a move: 511-457 in 968 games (+19.4 +/- 21.7 Elo, H1;
/// at a full entry 48-47 in 95, stopped). Standard and caro lost with it: 54-74 in 128 games
/// (H0) and 49-60 in 109 (stopped).
fn corrects_eval(rule: Rule) -> bool {
    matches!(rule, Rule::Freestyle | Rule::Renju)
}

/// Whether Step 9b also keeps its second table, by the opponent's last stone, and adds its entry
/// to the threat mask's: freestyle only. What a stone just put changes, the evaluation misjudges
/// alike wherever that stone stands. Self-play at 100k nodes a move against the threat mask's
/// table alone: 73-41 in 114 games (+87.1 +/- 65.5 Elo, H1) and 167-133 in 300 (+39.5 +/- 39.1,
/// H1). Under renju it lost a defence-set position at 1,000,000 nodes and was not played out;
/// adding the stone before the last one as well lost (29.5-45.5 in 75, stopped).
fn corrects_by_last_stone(rule: Rule) -> bool {
    rule == Rule::Freestyle
}

/// Whether Step 5c and Step 8 heed whether the side to move is improving (its static
/// evaluation above the one two plies before): reverse futility's margin a ply smaller where it
/// is, late-move reductions a ply larger where it is not. Self-play at 40k nodes a move against
/// the search without it: freestyle 266.5-213.5 (+38.5 +/- 31 Elo, H1 after 480 games). Renju
/// was ahead in every run but one, too little for an SPRT for +40 to decide (about +14 in 1,084
/// games, and +17 in 1,539 more with the evaluation kept at every node); an SPRT for +15
/// accepted it after 2,294 games (1,207.5-1,088.5 in 2,296, +18 +/- 14). Caro heeds it too,
/// and standard does not ([`searches_as_freestyle`]).
fn uses_improving(rule: Rule) -> bool {
    searches_as_freestyle(rule) || rule == Rule::Renju
}

/// Whether a rule takes freestyle's measured settings of Steps 6b, 7 and 8 (the singular
/// extension, the breadth 6 + 3 a ply and the improving flag) rather than the untuned ones
/// (no singular extension, no improving flag, a breadth of 8 + 4). Self-play at 40k nodes a
/// move, all three against none: caro 95-60 (+80 +/- 55 Elo, H1 after 154 games) and 143-105
/// (+54 +/- 43, H1 after 247); at 300 ms a move 206-194 and at 100k nodes 204.5-195.5 (+10 and
/// +8 +/- 34, 400 games each, no decision). Standard scored 145-153 with all three (-9 +/- 39,
/// H0 after 298 games) and 99-98 with the breadth alone (197 games, stopped), so it keeps the
/// untuned settings. Caro with overlines, unmeasured, searches as caro does here and in every
/// per-rule choice of the search.
fn searches_as_freestyle(rule: Rule) -> bool {
    matches!(rule, Rule::Freestyle | Rule::Caro | Rule::CaroOverlines)
}

/// Step 8's late-move reductions are ln(depth) × ln(rank) divided by this. Renju's / 1.4 beat
/// / 1.8 in the wide tree (/ 1.2 alone lost there, -40 +/- 56 in 150 games); it takes / 1.2 as
/// part of the narrow tree ([`narrow_tree`]), whose Step 7a and policy exemption keep threats
/// out of the cut. Under freestyle, in the wide tree / 1.4 (-15 +/- 48 in 202 games) and / 1.6
/// (-9 +/- 39 in 307, H0) did not beat / 1.8; in the narrow tree, with Step 8a, / 1.4 beat it:
/// self-play at 100k nodes a move, SPRT elo0=-10 elo1=30, 209-173 in 382 games (+32.8 +/- 34.6
/// Elo, H1; four earlier runs, stopped, 485-405 in 890). Standard and caro, untested, keep
/// / 1.8.
fn lmr_divisor(rule: Rule) -> f64 {
    match rule {
        Rule::Renju => 1.2,
        Rule::Freestyle => 1.4,
        Rule::Standard | Rule::Caro | Rule::CaroOverlines => 1.8,
    }
}

/// Step 8a: where the moves answer an open three, from which move on (counting from 0) they are
/// searched a ply shallower first. Under freestyle from the third: self-play at 100k nodes a
/// move against the search without it, SPRT elo0=-10 elo1=30: 306-264 in 570 games (+25.6 +/-
/// 28.5 Elo, H1); the freestyle middlegame reaches depth 13 at 1.2M nodes instead of 2.0M. From
/// the second it scored more (69.5-54.5 in 124 games, stopped) but lost a position of the
/// defence set at 1,000,000 nodes (`h8 h7 j9 g8 i6 i10 j7 j10 h9`: h10 instead of g10, even at
/// 2,000,000). Under renju from the second: 174-169 in 343 games (+5.1 +/- 35.8, stopped), and
/// renju went without. Under renju from the third, once a four's block cost its ply far from
/// the horizon ([`four_blocks_free_within`]), against that search: 88-59 in 147 games (+69.5 +/-
/// 57.9, H1). Under standard from the third: 115-85 in 200 games (+52.5 +/- 47.2, H1; an earlier
/// run stood at 93-86 after 179 when stopped). Under caro from the third: 89-93 in 182 (-7.6 +/-
/// 49.7, stopped), so caro goes without.
fn three_answers_reduced_from(rule: Rule) -> Option<usize> {
    match rule {
        Rule::Freestyle | Rule::Standard | Rule::Renju => Some(2),
        Rule::Caro | Rule::CaroOverlines => None,
    }
}

/// Whether the block of a four is searched at the four's own depth (the pair costing one ply)
/// with `depth` plies left. Under renju only from 4 plies left down: higher up the block costs
/// its ply, and the renju middlegame reaches depth 16 at 756k nodes instead of 1.29M (1.07M
/// with Step 8a's reduction, which came after and searches again what it reduced).
/// Self-play at 100k nodes a move against the block always free, SPRT elo0=-10 elo1=30: 129-98
/// in 227 games (+47.7 +/- 45.5 Elo, H1); an earlier run against an older engine stood at
/// 125-118 after 243 when stopped. Under freestyle the same cut gave no depth (13 at 1.66M
/// nodes against 1.18M) and stood at 75.5-82.5 after 158 games (-15.4 +/- 53.8, stopped); a
/// block costing a ply everywhere lost a defence set position. Under caro it lost: 15-39 in 54
/// games (H0). Under renju the block free only within 2 plies lost to within 4: 58-79 in 137 (H0).
fn four_blocks_free_within(rule: Rule, depth: i32) -> bool {
    match rule {
        Rule::Renju => depth <= 4,
        Rule::Freestyle | Rule::Standard | Rule::Caro | Rule::CaroOverlines => true,
    }
}

/// Whether a rule searches the narrow tree: Step 7a's move-count pruning with important moves
/// exempt, Step 8's policy reduction (under freestyle only where the opponent has no fork point,
/// [`policy_beside_forks`]) and the null move reduced by 3 + depth/3 (2 + depth/6 otherwise);
/// renju's late-move reductions were measured with it ([`lmr_divisor`]). Self-play at 100k nodes
/// a move against the wide tree, SPRT elo0=-10 elo1=30: under renju 170.5-136.5 in 307 games
/// (+38.6 +/- 38.8 Elo, H1; the renju middlegame reaches depth 14 at 800k nodes instead of 12);
/// under freestyle 317-275 in 592 games (+24.7 +/- 27.7, H1; the middlegame 12 instead of 10).
/// Freestyle's first form, the policy reduction everywhere, gained too but lost a position of the
/// defence set (`docs/levels.md`, 2026-11-28). Under standard (as under freestyle, with its own
/// reductions and breadth): 218.5-181.5 in 400 games (+32.2 +/- 33.8, H1 after 398; a run before
/// stood at 222-206 in 428). Under caro it was undecided, then H0 (264.5-273.5 in 538), while
/// the search took caro fours that a stone beside them stops for unstoppable; once it knew
/// them (2026-12-02): caro 94-65 in 159 games (+64.1 +/- 51.2, H1), caro with overlines
/// 106.5-78.5 in 185 (+53.0 +/- 47.6, H1). Self-play at 100k nodes a move, as above.
fn narrow_tree(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::Renju | Rule::Freestyle | Rule::Standard | Rule::Caro | Rule::CaroOverlines
    )
}

/// Whether Step 8's policy reduction also runs where the opponent has a fork point (a double
/// three or four-three to make): under renju, as measured with the rest of the narrow tree.
/// Under freestyle the reduction there cost a defence of the defence set (at 1,000,000 nodes
/// the holding i7 of `h8 i9 e7 f8 i5 h9 f6 g9 f9 i10 g5 h4 d8 c9 h5 f5` became j6), so there
/// it runs only where he has none.
fn policy_beside_forks(rule: Rule) -> bool {
    rule == Rule::Renju
}

/// Step 7a's count: quiet moves searched in full before only important ones are, 3 + depth^1.32
/// (halved where the side to move is not improving), at least 3.
fn move_count(depth: i32, not_improving: bool) -> usize {
    let count = 3.0 + f64::from(depth.max(0)).powf(1.32);
    let count = if not_improving { count / 2.0 } else { count };
    (count as usize).max(3)
}

/// Step 8's policy reduction: from this many plies left, a ply per this much gap to the node's
/// best static order score, and at most this many plies.
const POLICY_DEPTH: i32 = 3;
const POLICY_GAP: i32 = 20;
const POLICY_MAX_PLIES: i32 = 3;

/// A move that may start or stop an attack, which the narrow tree neither prunes nor reduces by
/// policy: it makes an open three or more for the side to move, or two lines of an open two or
/// better (a double two, a three beside a two), or takes a point where the opponent would make
/// an open three or more.
fn important(pos: &Position, sq: Sq) -> bool {
    let me = pos.side();
    let strong = |p: Pat| p >= Pat::ThreeOpen && p != Pat::Overline;
    let mine = pos.pats(sq, me);
    if mine.iter().any(|&p| strong(p)) || pos.pats(sq, me.opponent()).iter().any(|&p| strong(p)) {
        return true;
    }
    mine.iter()
        .filter(|&&p| p >= Pat::TwoOpen && p != Pat::Overline)
        .count()
        >= 2
}

/// Every legal move, scored by pattern weight (for multi-PV beside a forced win).
fn generate_all(pos: &mut Position, scratch: &mut Vec<Sq>) -> Vec<(Sq, i32)> {
    let me = pos.side();
    pos.empty_near_cells(scratch);
    let mut out = Vec::new();
    for &sq in scratch.iter() {
        let a = info(pos, sq, me);
        if !a.forbidden {
            out.push((sq, a.weight));
        }
    }
    out.sort_by_key(|m| std::cmp::Reverse(m.1));
    out
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::{Board, BoardSize};

    /// A small deterministic generator, so the boards repeat from run to run.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn the_time_scale_follows_how_settled_the_root_is() {
        let line = |x: i32, score: i32| Line {
            moves: vec![tengen_rules::Point::new(x, 7)],
            score: Score::Eval(score),
        };
        let mut settled = Settled::default();
        assert_eq!(settled.update(&line(7, 10), 20), 1.0);
        assert_eq!(settled.update(&line(7, 12), 20), 1.0);
        assert_eq!(settled.update(&line(7, 12), 20), 1.0);
        // Held for three iterations: less time.
        assert_eq!(settled.update(&line(7, 11), 20), 0.6);
        // A new best move: more time; a new one whose score fell too: more still.
        assert_eq!(settled.update(&line(8, 11), 20), 1.6);
        assert_eq!(settled.update(&line(9, 11 - SCORE_FALL - 1), 20), 1.6 * 1.4);
        // The same move, its score falling: more than a settled move gets.
        assert_eq!(settled.update(&line(9, -100), 20), 1.4);
        // One move to choose from: none.
        assert_eq!(settled.update(&line(9, -100), 1), 0.0);
    }

    /// Under caro a five blocked at both ends does not win, so the four `O X X X X . .` has two
    /// answers: its five point and the cell past it. Under freestyle only the five point holds.
    #[test]
    fn a_caro_four_blocked_at_one_end_has_two_answers() {
        let answers = |rule: Rule| {
            let mut game = tengen_rules::Game::new(BoardSize::STANDARD, rule);
            for m in "h8 g8 i8 a1 j8 a3 k8".split(' ') {
                let p = tengen_rules::parse_point(BoardSize::STANDARD, m).expect("a point");
                game.play(p).expect("legal");
            }
            let mut pos = Position::new(game.board(), rule, Color::White);
            match generate(&mut pos, &mut Vec::new()) {
                Gen::Moves(moves, Forced::Four) => {
                    let mut names: Vec<String> = moves
                        .iter()
                        .map(|m| tengen_rules::point_name(BoardSize::STANDARD, pos.point(m.0)))
                        .collect();
                    names.sort();
                    names
                }
                _ => panic!("white must answer the four"),
            }
        };
        assert_eq!(answers(Rule::Caro), ["l8", "m8"]);
        assert_eq!(answers(Rule::CaroOverlines), ["l8", "m8"]);
        assert_eq!(answers(Rule::Freestyle), ["l8"]);
    }

    /// The caro blocks read from the pattern tables are the blocks a stone on the board makes:
    /// every empty cell of random crowded positions, against every five either side has.
    #[test]
    fn caro_blocks_read_from_patterns_agree_with_the_board() {
        let mut seed = 0x5EED_CA20_u64;
        let mut fives_seen = 0;
        let mut blocks_seen = 0;
        for rule in [Rule::Caro, Rule::CaroOverlines] {
            for _ in 0..300 {
                let mut board = Board::new(BoardSize::square(9).expect("a size"));
                let stones = 20 + next(&mut seed) % 30;
                for _ in 0..stones {
                    let p = tengen_rules::Point::new(
                        (next(&mut seed) % 9) as i32,
                        (next(&mut seed) % 9) as i32,
                    );
                    let c = if next(&mut seed) % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    board.place(p, c).ok();
                }
                let mut pos = Position::new(&board, rule, Color::Black);
                let cells: Vec<Sq> = pos
                    .playable()
                    .iter()
                    .copied()
                    .filter(|&s| pos.is_empty(s))
                    .collect();
                for attacker in [Color::Black, Color::White] {
                    let fives: Vec<Sq> = cells
                        .iter()
                        .copied()
                        .filter(|&s| (0..4).any(|d| pos.pat(s, attacker, d) == Pat::Five))
                        .collect();
                    if fives.is_empty() {
                        continue;
                    }
                    fives_seen += 1;
                    for &t in &cells {
                        let read = stops_every_five(&pos, attacker, &fives, t);
                        assert_eq!(read, stops_every_five_on_board(&mut pos, attacker, t));
                        blocks_seen += usize::from(read);
                    }
                }
            }
        }
        // The positions hold fives, and some of them one stone stops.
        assert!(
            fives_seen > 100 && blocks_seen > 100,
            "{fives_seen} {blocks_seen}"
        );
    }

    /// A won line is shown to its five: the straight four, the block, the five (the search
    /// itself stops at the straight four, whose win is certain).
    #[test]
    fn a_won_line_is_shown_to_its_five() {
        let mut game = tengen_rules::Game::new(BoardSize::STANDARD, Rule::Renju);
        for m in "h9 a1 h10 a3 h11 a5 i8 a7 j8 a9 k8 a11".split(' ') {
            let p = tengen_rules::parse_point(BoardSize::STANDARD, m).expect("a point");
            game.play(p).expect("legal");
        }
        let tt = Table::new(1);
        let stop = AtomicBool::new(false);
        let pos = Position::new(game.board(), Rule::Renju, Color::Black);
        let weights = crate::weights_for(&None, Rule::Renju);
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        let mut s = Searcher::new(pos, &tt, weights, limits, &stop);
        let lines = s.run(&mut |_| {});
        let line = &lines[0];
        assert_eq!(line.score, Score::from_internal(WIN - 3));
        let names: Vec<String> = line
            .moves
            .iter()
            .map(|&p| tengen_rules::point_name(BoardSize::STANDARD, p))
            .collect();
        // h12 makes the straight four h9-h12; white blocks one end, black fives on the other.
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(names[0], "h12");
        let mut board = game.board().clone();
        for (i, &p) in line.moves.iter().enumerate() {
            let c = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            board.place(p, c).expect("a free point");
        }
        assert!(
            !Rule::Renju
                .fives(&board, *line.moves.last().expect("a move"), Color::Black)
                .is_empty(),
            "{names:?} ends without black's five"
        );
    }

    #[test]
    fn improving_compares_with_two_plies_before_when_both_are_known() {
        let tt = Table::new(1);
        let stop = AtomicBool::new(false);
        let pos = Position::new(
            &Board::new(BoardSize::STANDARD),
            Rule::Freestyle,
            Color::Black,
        );
        let weights = crate::weights_for(&None, Rule::Freestyle);
        let mut s = Searcher::new(pos, &tt, weights, Limits::default(), &stop);
        assert_eq!(s.improving(0), None, "no ply two before the root");
        assert_eq!(s.improving(2), None, "nothing known yet");
        s.static_evals[0] = 10;
        assert_eq!(s.improving(2), None, "the node itself has none");
        s.static_evals[2] = 11;
        assert_eq!(s.improving(2), Some(true));
        s.static_evals[2] = 10;
        assert_eq!(s.improving(2), Some(false), "level is not improving");
        s.static_evals[0] = NO_EVAL;
        assert_eq!(s.improving(2), None, "two plies before has none");
        // Caro (with overlines too) and renju heed it as freestyle does; standard does without it.
        for (rule, expected) in [
            (Rule::Caro, Some(true)),
            (Rule::CaroOverlines, Some(true)),
            (Rule::Renju, Some(true)),
            (Rule::Standard, None),
        ] {
            let pos = Position::new(&Board::new(BoardSize::STANDARD), rule, Color::Black);
            let weights = crate::weights_for(&None, rule);
            let mut s = Searcher::new(pos, &tt, weights, Limits::default(), &stop);
            s.static_evals[0] = 10;
            s.static_evals[2] = 11;
            assert_eq!(s.improving(2), expected, "{rule:?}");
        }
    }

    /// The table read of the open-three defence test agrees with playing the stone and looking
    /// again, on random crowded boards, for every colour, stone and pair of points on a line.
    /// The line table reads every pair of cells of a square and of a wide board as the four
    /// directions' steps do.
    #[test]
    fn the_line_table_agrees_with_the_directions_steps() {
        use tengen_rules::{Board, BoardSize};
        let mut on = 0;
        for size in [BoardSize::STANDARD, BoardSize::rect(20, 7).expect("a size")] {
            let pos = Position::new(&Board::new(size), Rule::Freestyle, Color::Black);
            let cells = pos.playable().to_vec();
            for &f in &cells {
                for &sq in &cells {
                    let by_steps = on_lines_by_deltas(f, sq, &pos.deltas);
                    assert_eq!(on_lines(&pos, f, sq), by_steps, "{size:?} {f} {sq}");
                    on += by_steps as u32;
                }
            }
        }
        assert!(on > 5_000, "{on}");
    }

    #[test]
    fn the_straight_four_test_by_table_agrees_with_playing_the_stone() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let mut compared = 0;
        let mut held = 0;
        for rule in Rule::ALL {
            for _ in 0..40 {
                let mut board = Board::new(BoardSize::STANDARD);
                for _ in 0..(30 + next(&mut seed) % 40) {
                    let p = tengen_rules::Point::new(
                        (next(&mut seed) % 9 + 3) as i32,
                        (next(&mut seed) % 9 + 3) as i32,
                    );
                    let c = if next(&mut seed) % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    // An occupied point is refused; the board stays as it was.
                    let _ = board.place(p, c);
                }
                let mut pos = Position::new(&board, rule, Color::Black);
                let mut cells = Vec::new();
                pos.empty_near_cells(&mut cells);
                for c in [Color::Black, Color::White] {
                    if c == Color::Black && rule == Rule::Renju {
                        continue;
                    }
                    let flex: Vec<Sq> = cells
                        .iter()
                        .copied()
                        .filter(|&f| info(&mut pos, f, c).flex_four())
                        .collect();
                    for &f in &flex {
                        let deltas = pos.deltas;
                        for &sq in cells.iter().filter(|&&s| on_lines_by_deltas(f, s, &deltas)) {
                            let by_table = flex_four_with_stone(&pos, f, c, sq, c.opponent());
                            pos.place(sq, c.opponent());
                            let on_board = info(&mut pos, f, c).flex_four();
                            pos.unplace(sq, c.opponent());
                            assert_eq!(by_table, on_board, "{rule:?} {c:?} f {f} stone {sq}");
                            compared += 1;
                            held += (!on_board) as u32;
                        }
                    }
                }
            }
        }
        // Enough cases of both kinds for the comparison to mean something.
        assert!(
            compared > 1_000 && held > 100,
            "{compared} compared, {held} held"
        );
    }
}
