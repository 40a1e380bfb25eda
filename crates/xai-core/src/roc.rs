//! The ROC curve and its area for scores against binary labels (watson2023 Fig. 3b
//! ranks missing cells by their |Shapley value| and scores the ranking against
//! "is a driver of the variance").

use crate::error::{CoreError, Result};

/// The ROC curve of `scores` (higher = more likely positive) against `labels`: the
/// points (FPR, TPR) after each distinct threshold, from (0, 0) to (1, 1); tied scores
/// enter together (a diagonal step).
pub fn roc_curve(scores: &[f64], labels: &[bool]) -> Result<Vec<(f64, f64)>> {
    let (pos, neg) = counts(scores, labels)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut points = vec![(0.0, 0.0)];
    let (mut tp, mut fp) = (0usize, 0usize);
    for (k, &i) in order.iter().enumerate() {
        if labels[i] {
            tp += 1;
        } else {
            fp += 1;
        }
        let last_of_tie = order
            .get(k + 1)
            .is_none_or(|&next| scores[next] != scores[i]);
        if last_of_tie {
            points.push((fp as f64 / neg as f64, tp as f64 / pos as f64));
        }
    }
    Ok(points)
}

/// The TPR of the ROC curve `points` at false-positive rate `x`, linear between the
/// points (vertical averaging of curves, Fawcett 2006 §8.1); where the curve rises
/// vertically at x, the top.
pub fn tpr_at(points: &[(f64, f64)], x: f64) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for w in points.windows(2) {
        let ((f0, t0), (f1, t1)) = (w[0], w[1]);
        if f0 <= x && x <= f1 {
            let t = if f1 > f0 {
                t0 + (x - f0) / (f1 - f0) * (t1 - t0)
            } else {
                t1.max(t0)
            };
            best = best.max(t);
        }
    }
    best
}

/// The area under the ROC curve: the probability that a positive's score exceeds a
/// negative's, ties counting one half (Mann–Whitney U/(n₊n₋)), from mid-ranks.
pub fn auc(scores: &[f64], labels: &[bool]) -> Result<f64> {
    let (pos, neg) = counts(scores, labels)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut rank_sum = 0.0;
    let mut k = 0;
    while k < order.len() {
        let mut end = k + 1;
        while end < order.len() && scores[order[end]] == scores[order[k]] {
            end += 1;
        }
        // Ranks k+1 ..= end share their mean.
        let mid = (k + 1 + end) as f64 / 2.0;
        rank_sum += mid * order[k..end].iter().filter(|&&i| labels[i]).count() as f64;
        k = end;
    }
    let (p, n) = (pos as f64, neg as f64);
    Ok((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// The numbers of positives and negatives; fails on unequal lengths, a NaN score, or
/// a class that is absent.
fn counts(scores: &[f64], labels: &[bool]) -> Result<(usize, usize)> {
    if scores.len() != labels.len() {
        return Err(CoreError::Shape(format!(
            "{} scores but {} labels",
            scores.len(),
            labels.len()
        )));
    }
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return Err(CoreError::NonFinite {
            what: "scores",
            row: i,
            column: 0,
            value: f64::NAN,
        });
    }
    let pos = labels.iter().filter(|&&l| l).count();
    let neg = labels.len() - pos;
    if pos == 0 || neg == 0 {
        return Err(CoreError::Invalid(format!(
            "a ROC curve needs positives and negatives; got {pos} and {neg}"
        )));
    }
    Ok((pos, neg))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The area from mid-ranks equals the brute-force pair count, ties one half, and
    /// the trapezoids under the curve.
    #[test]
    fn auc_is_the_share_of_ordered_pairs() {
        let scores = [0.9, 0.8, 0.8, 0.7, 0.5, 0.5, 0.3, 0.1, 0.8];
        let labels = [true, false, true, true, false, true, false, false, false];
        let mut pairs = 0.0;
        let mut n = 0.0;
        for i in 0..9 {
            for j in 0..9 {
                if labels[i] && !labels[j] {
                    n += 1.0;
                    pairs += if scores[i] > scores[j] {
                        1.0
                    } else if scores[i] == scores[j] {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
        }
        let a = auc(&scores, &labels).unwrap();
        assert!((a - pairs / n).abs() < 1e-15, "{a} vs {}", pairs / n);
        let curve = roc_curve(&scores, &labels).unwrap();
        let trapezoids: f64 = curve
            .windows(2)
            .map(|w| (w[1].0 - w[0].0) * (w[1].1 + w[0].1) / 2.0)
            .sum();
        assert!((a - trapezoids).abs() < 1e-15);
        assert_eq!(curve.first(), Some(&(0.0, 0.0)));
        assert_eq!(curve.last(), Some(&(1.0, 1.0)));
    }

    #[test]
    fn perfect_reversed_and_tied_rankings() {
        let labels = [true, true, false, false];
        assert_eq!(auc(&[4.0, 3.0, 2.0, 1.0], &labels).unwrap(), 1.0);
        assert_eq!(auc(&[1.0, 2.0, 3.0, 4.0], &labels).unwrap(), 0.0);
        assert_eq!(auc(&[1.0; 4], &labels).unwrap(), 0.5);
        let c = roc_curve(&[4.0, 3.0, 2.0, 1.0], &labels).unwrap();
        assert_eq!(tpr_at(&c, 0.0), 1.0);
        assert_eq!(tpr_at(&roc_curve(&[1.0; 4], &labels).unwrap(), 0.25), 0.25);
        assert!(auc(&[1.0, 2.0], &[true, true]).is_err());
        assert!(auc(&[f64::NAN, 2.0], &[true, false]).is_err());
    }
}
