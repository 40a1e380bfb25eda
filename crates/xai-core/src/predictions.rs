//! A batch of predictive distributions, one per row.

use ndarray::{Array1, Array2};

use crate::error::{CoreError, Result};

/// Predictive distributions q(y | x) for a batch of rows.
#[derive(Debug, Clone, PartialEq)]
pub enum Predictions {
    /// A point prediction per row (no distribution).
    Point(Array1<f64>),
    /// A Gaussian N(mean, var) per row; `var` is the full predictive variance.
    Gaussian {
        /// Predictive means.
        mean: Array1<f64>,
        /// Predictive variances (> 0).
        var: Array1<f64>,
    },
    /// Class probabilities q(c | x), n × k, each row summing to 1.
    Probabilities(Array2<f64>),
}

impl Predictions {
    /// Binary class probabilities (1 − p_i, p_i) from P(class 1) = `p[i]`.
    pub fn binary(p: impl IntoIterator<Item = f64>) -> Predictions {
        let p: Vec<f64> = p.into_iter().collect();
        Predictions::Probabilities(Array2::from_shape_fn((p.len(), 2), |(i, c)| {
            if c == 1 { p[i] } else { 1.0 - p[i] }
        }))
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Predictions::Point(m) | Predictions::Gaussian { mean: m, .. } => m.len(),
            Predictions::Probabilities(p) => p.nrows(),
        }
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The equal-weight mixture (1/M)·Σ_m q_m of M members' predictions for the same
    /// rows (an MC-dropout network's passes, a Bayesian network's weight samples):
    /// the mean class probabilities, or for Gaussians the moment-matched Gaussian,
    /// μ = (1/M)·Σ_m μ_m and σ² = (1/M)·Σ_m σ_m² + (1/M)·Σ_m (μ_m − μ)² (total
    /// variance: aleatoric part plus the epistemic spread of the means; Gal &
    /// Ghahramani 2016 Eq. 8 with per-pass noise, PAPERS.md §1.2). Point members give
    /// the mean point. Errors when there are no members, or they differ in kind or
    /// length.
    pub fn mixture(members: &[Predictions]) -> Result<Predictions> {
        let first = members
            .first()
            .ok_or_else(|| CoreError::Invalid("a mixture of no members".into()))?;
        let m = members.len() as f64;
        for other in members {
            if other.kind() != first.kind() || other.len() != first.len() {
                return Err(CoreError::Shape(format!(
                    "mixture of {} {} rows and {} {} rows",
                    first.len(),
                    first.kind(),
                    other.len(),
                    other.kind()
                )));
            }
        }
        fn point(q: &Predictions) -> &Array1<f64> {
            match q {
                Predictions::Point(v) => v,
                _ => unreachable!("kinds checked above"),
            }
        }
        fn moments(q: &Predictions) -> (&Array1<f64>, &Array1<f64>) {
            match q {
                Predictions::Gaussian { mean, var } => (mean, var),
                _ => unreachable!("kinds checked above"),
            }
        }
        let average = |part: &dyn Fn(&Predictions) -> Array1<f64>| {
            members
                .iter()
                .fold(Array1::zeros(first.len()), |acc, q| acc + part(q) / m)
        };
        Ok(match first {
            Predictions::Point(_) => Predictions::Point(average(&|q| point(q).clone())),
            Predictions::Gaussian { .. } => {
                let mean = average(&|q| moments(q).0.clone());
                // Two passes: the mean first, then each member's spread about it.
                let var = average(&|q| {
                    let (mu, v) = moments(q);
                    v + &(mu - &mean).mapv(|d| d * d)
                });
                Predictions::Gaussian { mean, var }
            }
            Predictions::Probabilities(p) => {
                Predictions::Probabilities(members.iter().fold(Array2::zeros(p.dim()), |acc, q| {
                    match q {
                        Predictions::Probabilities(p) => acc + p / m,
                        _ => unreachable!("kinds checked above"),
                    }
                }))
            }
        })
    }

    /// A short name of the kind, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Predictions::Point(_) => "point",
            Predictions::Gaussian { .. } => "Gaussian",
            Predictions::Probabilities(_) => "class-probability",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Members N(0, 1) and N(2, 3): μ = 1, σ² = (1 + 3)/2 + ((0 − 1)² + (2 − 1)²)/2 = 3;
    /// a second row with equal means keeps the mean variance, 2.
    #[test]
    fn a_gaussian_mixture_adds_the_spread_of_the_means_to_the_mean_variance() {
        let members = [
            Predictions::Gaussian {
                mean: array![0.0, 5.0],
                var: array![1.0, 1.0],
            },
            Predictions::Gaussian {
                mean: array![2.0, 5.0],
                var: array![3.0, 3.0],
            },
        ];
        let Predictions::Gaussian { mean, var } = Predictions::mixture(&members).unwrap() else {
            panic!("kind")
        };
        assert_eq!(mean, array![1.0, 5.0]);
        assert_eq!(var, array![3.0, 2.0]);
        // One member is its own mixture.
        assert_eq!(Predictions::mixture(&members[..1]).unwrap(), members[0]);
    }

    #[test]
    fn a_mixture_of_probabilities_is_their_mean_and_mixed_kinds_are_refused() {
        let members = [Predictions::binary([0.2]), Predictions::binary([0.6])];
        let Predictions::Probabilities(p) = Predictions::mixture(&members).unwrap() else {
            panic!("kind")
        };
        assert!((p[[0, 1]] - 0.4).abs() < 1e-15 && (p[[0, 0]] - 0.6).abs() < 1e-15);
        let mixed = [Predictions::binary([0.2]), Predictions::Point(array![1.0])];
        assert!(matches!(
            Predictions::mixture(&mixed),
            Err(CoreError::Shape(_))
        ));
        let longer = [Predictions::binary([0.2]), Predictions::binary([0.2, 0.3])];
        assert!(Predictions::mixture(&longer).is_err());
        assert!(matches!(
            Predictions::mixture(&[]),
            Err(CoreError::Invalid(_))
        ));
    }
}
