//! Match statistics: Elo difference with its 95% error margin, likelihood of superiority, and
//! the sequential probability ratio test (SPRT).
//!
//! The formulas are the ones cutechess-cli and fastchess print, so numbers can be compared:
//! the logistic Elo model (`score = 1 / (1 + 10^(-elo/400))`), the error margin from the
//! per-game variance of the score, LOS from the normal approximation to wins against losses.
//! The SPRT's log-likelihood ratio is the generalised SPRT on the trinomial model (no game
//! pairs needed), computed exactly; its normal approximation, the formula cutechess and
//! fastchess print, is there too ([`Sprt::llr_normal`]) and agrees once every kind of result
//! has occurred.

use serde::Serialize;

/// The 97.5% quantile of the standard normal distribution: 95% two-sided intervals.
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, losses and draws from one side's point of view.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
pub struct Wld {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

impl Wld {
    /// A tally.
    pub const fn new(wins: u32, losses: u32, draws: u32) -> Wld {
        Wld {
            wins,
            losses,
            draws,
        }
    }

    /// Games played.
    pub const fn games(self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points: a win 1, a draw 1/2.
    pub fn points(self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The same games from the other side.
    pub const fn flipped(self) -> Wld {
        Wld::new(self.losses, self.wins, self.draws)
    }

    /// The mean score per game (0 to 1), `None` before any game.
    pub fn score(self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// The per-game variance of the score around its mean (`None` before any game).
    fn variance(self) -> Option<f64> {
        let s = self.score()?;
        let n = f64::from(self.games());
        let (w, l, d) = (
            f64::from(self.wins) / n,
            f64::from(self.losses) / n,
            f64::from(self.draws) / n,
        );
        Some(w * (1.0 - s).powi(2) + l * s.powi(2) + d * (0.5 - s).powi(2))
    }

    /// The Elo difference the score implies; infinite after only wins or only losses.
    pub fn elo(self) -> Option<f64> {
        self.score().map(score_to_elo)
    }

    /// Half the width of the 95% confidence interval of [`Wld::elo`] (as cutechess computes it:
    /// the Elo of the score plus and minus 1.96 standard errors, halved). Infinite when the
    /// interval reaches a score of 0 or 1; `None` before any game.
    pub fn elo_margin(self) -> Option<f64> {
        let s = self.score()?;
        let sd = (self.variance()? / f64::from(self.games())).sqrt();
        let hi = score_to_elo((s + Z95 * sd).min(1.0));
        let lo = score_to_elo((s - Z95 * sd).max(0.0));
        Some((hi - lo) / 2.0)
    }

    /// Likelihood of superiority: the probability that this side is the stronger, from wins
    /// against losses (draws carry no information on it). `None` without a decisive game.
    pub fn los(self) -> Option<f64> {
        let decisive = f64::from(self.wins + self.losses);
        (decisive > 0.0).then(|| {
            0.5 * (1.0
                + erf((f64::from(self.wins) - f64::from(self.losses)) / (2.0 * decisive).sqrt()))
        })
    }
}

/// The Elo difference of a mean score in the logistic model (`±inf` at 1 and 0).
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns the -0.0 of an even score into 0.0, which prints without a sign.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// The mean score an Elo difference implies in the logistic model.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function, to about 1.2e-7 (Numerical Recipes' `erfcc`, a Chebyshev fit): plenty
/// for a percentage printed to one decimal.
pub fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

/// The SPRT's settings: the two hypotheses (Elo differences, logistic) and the error rates.
#[derive(Clone, Copy, PartialEq, Debug, Serialize)]
pub struct Sprt {
    /// H0: the first engine is `elo0` stronger (usually 0).
    pub elo0: f64,
    /// H1: the first engine is `elo1` stronger.
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the SPRT says so far.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// The LLR fell below the lower bound: H0 (elo0) accepted.
    H0,
    /// The LLR rose above the upper bound: H1 (elo1) accepted.
    H1,
    /// Neither bound crossed yet.
    Continue,
}

impl Default for Sprt {
    /// elo0 = 0, elo1 = 5, alpha = beta = 0.05.
    fn default() -> Sprt {
        Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

impl Sprt {
    /// The lower bound, `ln(beta / (1 - alpha))`: at or below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound, `ln((1 - beta) / alpha)`: at or above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 against H0 after the games in `wld` (the first engine's
    /// view): the generalised SPRT on the trinomial (win, loss, draw) model. For each
    /// hypothesis, the result probabilities are the maximum-likelihood ones among those whose
    /// mean score is the hypothesis' (`elo_to_score(elo0)`, `elo_to_score(elo1)`), and the LLR
    /// is `sum n_i ln(p1_i / p0_i)`.
    ///
    /// This is the statistic that [`Sprt::llr_normal`] (cutechess's and fastchess's formula)
    /// approximates, and agrees with it closely once every kind of result has occurred. Unlike
    /// the approximation it stays sound when a kind of result has not occurred yet, which in
    /// five in a row is the usual case (draws are rare): one win moves it by
    /// `ln(s1 / s0)`, not to infinity, and a run of wins alone can still end the test.
    pub fn llr(&self, wld: Wld) -> f64 {
        let n = [wld.wins, wld.losses, wld.draws].map(f64::from);
        let total: f64 = n.iter().sum();
        if total == 0.0 {
            return 0.0;
        }
        // A kind of result not seen yet gets a vanishing share, so that the constrained
        // optimum may move probability onto it; it adds nothing to the sum below.
        let mut p = n.map(|k| (k / total).max(1e-9));
        let z: f64 = p.iter().sum();
        p = p.map(|x| x / z);
        let p0 = constrained_mle(p, elo_to_score(self.elo0));
        let p1 = constrained_mle(p, elo_to_score(self.elo1));
        (0..3)
            .filter(|&i| n[i] > 0.0)
            .map(|i| n[i] * (p1[i] / p0[i]).ln())
            .sum()
    }

    /// The normal approximation of [`Sprt::llr`] that cutechess and fastchess use: with `s`
    /// the mean score, `var` the per-game variance and `s0`, `s1` the scores the hypotheses
    /// predict, `N (s1 - s0) (2s - s0 - s1) / (2 var)`. `None` while the variance is zero (no
    /// games, or one kind of result only), where the approximation breaks down.
    pub fn llr_normal(&self, wld: Wld) -> Option<f64> {
        let (s, var) = (wld.score()?, wld.variance()?);
        if var <= 0.0 {
            return None;
        }
        let (s0, s1) = (elo_to_score(self.elo0), elo_to_score(self.elo1));
        Some(f64::from(wld.games()) * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var))
    }

    /// The decision after the games in `wld`.
    pub fn decide(&self, wld: Wld) -> SprtDecision {
        let llr = self.llr(wld);
        if llr >= self.upper_bound() {
            SprtDecision::H1
        } else if llr <= self.lower_bound() {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The result probabilities (win, loss, draw) nearest to the observed `p` in likelihood whose
/// mean score is `s`: `p_i / (1 + t (a_i - s))` with `a` the results' scores and `t` the root
/// of the mean condition, found by bisection (the condition is monotone in `t`, and every `p_i`
/// is positive, so the root lies strictly between the poles `-1/(1-s)` and `1/s`).
fn constrained_mle(p: [f64; 3], s: f64) -> [f64; 3] {
    const SCORE: [f64; 3] = [1.0, 0.0, 0.5];
    let mean_gap = |t: f64| -> f64 {
        (0..3)
            .map(|i| p[i] * (SCORE[i] - s) / (1.0 + t * (SCORE[i] - s)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if mean_gap(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = (lo + hi) / 2.0;
    [0, 1, 2].map(|i| p[i] / (1.0 + t * (SCORE[i] - s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(format!("{:+.1}", score_to_elo(0.5)), "+0.0");
        assert!(close(score_to_elo(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(score_to_elo(0.6), 70.436_503_622_272_47, 1e-9));
        assert!(close(score_to_elo(0.25), -190.848_501_887_865, 1e-9));
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert!(close(elo_to_score(score_to_elo(0.37)), 0.37, 1e-12));
    }

    #[test]
    fn erf_matches_the_library_values() {
        // Values of math.erf from CPython.
        assert!(close(erf(0.0), 0.0, 2e-7));
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 2e-7));
        assert!(close(erf(1.0), 0.842_700_792_949_714_9, 2e-7));
        assert!(close(erf(-2.0), -0.995_322_265_018_952_7, 2e-7));
    }

    #[test]
    fn a_tally_from_cutechess() {
        // 60 wins, 40 losses, 100 draws: score 0.55, Elo 34.86 +/- 34.16, LOS 97.7% (the
        // expected values computed independently with Python from the same formulas).
        let w = Wld::new(60, 40, 100);
        assert!(close(w.score().unwrap_or_default(), 0.55, 1e-12));
        assert!(close(
            w.elo().unwrap_or_default(),
            34.860_070_287_560_08,
            1e-9
        ));
        assert!(close(
            w.elo_margin().unwrap_or_default(),
            34.159_268_843_597_225,
            1e-6
        ));
        assert!(close(
            w.los().unwrap_or_default(),
            0.977_249_868_051_820_8,
            1e-6
        ));
        assert_eq!(w.flipped(), Wld::new(40, 60, 100));
    }

    #[test]
    fn los_and_margins_at_the_edges() {
        assert_eq!(Wld::default().score(), None);
        assert_eq!(Wld::new(0, 0, 3).los(), None);
        assert!(close(
            Wld::new(5, 5, 0).los().unwrap_or_default(),
            0.5,
            1e-7
        ));
        assert_eq!(Wld::new(3, 0, 0).elo(), Some(f64::INFINITY));
        assert_eq!(Wld::new(0, 0, 4).elo_margin(), Some(0.0));
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt = Sprt::default();
        assert!(close(sprt.lower_bound(), -2.944_438_979_166_440_5, 1e-12));
        assert!(close(sprt.upper_bound(), 2.944_438_979_166_440_5, 1e-12));
        // Expected values computed independently with Python (a separate bisection on the
        // same model; the normal approximation's with its closed form).
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.15,
            beta: 0.05,
        };
        assert!(close(sprt.upper_bound(), 1.845_826_690_498_330_7, 1e-12));
        let (up, down) = (Wld::new(60, 40, 100), Wld::new(40, 60, 100));
        assert!(close(sprt.llr(up), 1.974_380_202_705_050_8, 1e-6));
        assert!(close(
            sprt.llr_normal(up).unwrap_or_default(),
            2.001_572_626_222_002,
            1e-9
        ));
        assert_eq!(sprt.decide(up), SprtDecision::H1);
        assert!(close(sprt.llr(down), -4.885_231_355_034_939, 1e-6));
        assert!(close(
            sprt.llr_normal(down).unwrap_or_default(),
            -5.029_691_377_404_434_5,
            1e-9
        ));
        assert_eq!(sprt.decide(down), SprtDecision::H0);
        assert!(close(
            sprt.llr(Wld::new(3, 3, 2)),
            -0.039_698_603_936_251_05,
            1e-6
        ));
        assert_eq!(sprt.decide(Wld::new(3, 3, 2)), SprtDecision::Continue);
        assert!(close(
            sprt.llr(Wld::new(0, 0, 9)),
            -0.810_631_924_919_967_8,
            1e-6
        ));
        assert_eq!(sprt.llr_normal(Wld::new(0, 0, 9)), None);
        assert_eq!(sprt.llr(Wld::default()), 0.0);
        // Large samples: the approximation and the exact statistic agree within 2%.
        let big = Sprt { elo1: 10.0, ..sprt };
        let w = Wld::new(600, 400, 1000);
        assert!(close(big.llr(w), 9.880_827_754_313_17, 1e-5));
        assert!((big.llr(w) / big.llr_normal(w).unwrap_or_default() - 1.0).abs() < 0.02);
    }

    #[test]
    fn sprt_on_wins_alone() {
        // Without draws or losses each win adds ln(s1 / s0): 12 straight wins accept +100 Elo
        // at alpha = beta = 0.05, 11 do not yet.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 100.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert!(close(
            sprt.llr(Wld::new(1, 0, 0)),
            0.246_961_634_966_443_55,
            1e-6
        ));
        assert!(close(
            sprt.llr(Wld::new(12, 0, 0)),
            2.963_539_619_597_324_5,
            1e-5
        ));
        assert_eq!(sprt.decide(Wld::new(12, 0, 0)), SprtDecision::H1);
        assert_eq!(sprt.decide(Wld::new(11, 0, 0)), SprtDecision::Continue);
        let s30 = Sprt { elo1: 30.0, ..sprt };
        assert!(close(
            s30.llr(Wld::new(6, 0, 0)),
            0.495_742_002_567_342_47,
            1e-6
        ));
        assert!(close(
            s30.llr(Wld::new(0, 6, 0)),
            -0.540_421_289_279_977_6,
            1e-6
        ));
    }
}
