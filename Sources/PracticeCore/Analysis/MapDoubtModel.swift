// Written by bench/beats/warning_fit.py; do not edit by hand. Provenance: fitted on
// 2026-12-02 by `bench/beats/run warning-fit fit --write` on the dumps
// of `bench/beats/run warning-fit dump` (PRACTICE_BEAT_DOUBT) in
// bench/out/l17/doubt: the corpus's tuning half, clean (beats-corpus)
// and delivered (t-corpus-tune-d13), poor = beat F < 0.8, and the real set's tuning half,
// poor = real_set.py's `wrong` (192 maps, 27 poor). Features
// chosen forward by 5-fold cross-validated log loss (at most 4), L2 1.0 on
// standardised features; the threshold is the best F1 of the whole warning on the same data,
// the faint-hearing floor the highest of 0-0.4 that costs none of it.

/// The fitted model `MapDoubt.probability` evaluates: the logit is `intercept` plus each
/// term's `weight` times its feature standardised by `mean` and `scale`.
enum MapDoubtModel {
  struct Term {
    let name: String
    let mean: Double
    let scale: Double
    let weight: Double
  }
  static let intercept = -2.84954
  static let terms: [Term] = [
    Term(name: "mean_confidence", mean: 0.881086, scale: 0.109489, weight: -0.701917),
    Term(name: "downbeat_contrast", mean: 0.433945, scale: 0.236236, weight: -1.06964),
    Term(name: "pulse_clarity", mean: 0.363934, scale: 0.212333, weight: -0.839648),
  ]
  /// The probability of a poor map from which the musician is warned.
  static let threshold = 0.39
  /// Below this mean beat probability at the map's beats, where the network hears the
  /// music, the musician is warned whatever the model says.
  static let faintHearing = 0.25
}
