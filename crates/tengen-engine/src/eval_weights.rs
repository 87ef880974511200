// Written by scripts/tune/fit.py (see scripts/tune/README.md); not edited by hand.

/// Freestyle: weights fitted to game results by `scripts/tune/fit.py` (66,245 quiet
/// positions; held-out log loss 0.671 with the hand-set weights at their best scale,
/// 0.502 fitted).
const FREESTYLE_FITTED: EvalWeights = EvalWeights {
    own: [0, 0, -3, 13, 20, 26, 0, 0, 0, 0],
    own_scale: (1, 1),
    opponent: [0, 2, 5, -10, -19, -28, -23, -106, 0, 0],
    own_pairs: [-1, 0, 0, 0, 0, 9, 16, 0, 0, 0, -10, 14, -11, 0, 0, -5, 12, 13, -33, 0, -4, 68, 30, 541, 0, 0],
    opponent_pairs: [-4, 0, 0, 0, 0, -13, -21, 0, 0, 0, 4, -17, 5, 0, 0, 5, -11, -11, 51, 0, -6, -59, -35, -129, -120, 0],
    fork_to_make: 653,
    per_fork_against: -37,
    own_four: 42,
    tempo: 9,
    divisor: 1,
};

/// Renju: weights fitted to game results by `scripts/tune/fit.py` (12,554 quiet
/// positions; held-out log loss 0.685 with the hand-set weights at their best scale,
/// 0.526 fitted).
const RENJU_FITTED: EvalWeights = EvalWeights {
    own: [0, 0, 0, 9, 24, 28, -67, 0, 0, 0],
    own_scale: (1, 1),
    opponent: [0, 1, 2, -8, -20, -29, -47, -86, 0, 0],
    own_pairs: [14, 0, 0, 0, 0, 11, -3, 0, 0, 0, 2, 22, -7, 0, 0, 2, -3, 14, -49, 0, -14, 80, 19, 423, -116, 0],
    opponent_pairs: [-18, 0, 0, 0, 0, -12, -2, 0, 0, 0, -2, -19, 4, 0, 0, -4, 5, -9, 80, 0, -3, -65, -29, -99, -157, 0],
    fork_to_make: 301,
    per_fork_against: -65,
    own_four: 56,
    tempo: 6,
    divisor: 1,
};
