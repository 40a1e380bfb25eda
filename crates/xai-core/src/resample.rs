//! Resampling: seeded train/test splits (stratified for classification), k-fold
//! partitions, and the bootstrap and subsampling draws of learner inference.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use crate::dataset::Target;

/// The rows of each group: one group per class when `stratify` and the target has
/// classes, else one group of all rows.
fn groups(y: &Target, stratify: bool) -> Vec<Vec<usize>> {
    match y {
        Target::Classes { labels, n_classes } if stratify => (0..*n_classes)
            .map(|c| (0..labels.len()).filter(|&i| labels[i] == c).collect())
            .collect(),
        _ => vec![(0..y.len()).collect()],
    }
}

/// A random split into (train, test) rows, each sorted. The test set has
/// round(test_fraction · n) rows, shared among the groups (classes, if stratified) in
/// proportion to their sizes by largest remainder; each group's test rows are a
/// uniformly random subset.
pub fn train_test_split<R: Rng + ?Sized>(
    y: &Target,
    test_fraction: f64,
    stratify: bool,
    rng: &mut R,
) -> (Vec<usize>, Vec<usize>) {
    let groups = groups(y, stratify);
    let total = (test_fraction * y.len() as f64).round() as usize;
    let exact: Vec<f64> = groups
        .iter()
        .map(|g| test_fraction * g.len() as f64)
        .collect();
    let mut quota: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    for &g in order
        .iter()
        .cycle()
        .take(total.saturating_sub(quota.iter().sum()))
    {
        quota[g] += 1;
    }
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (mut g, k) in groups.into_iter().zip(quota) {
        g.shuffle(rng);
        let k = k.min(g.len());
        test.extend_from_slice(&g[..k]);
        train.extend_from_slice(&g[k..]);
    }
    train.sort_unstable();
    test.sort_unstable();
    (train, test)
}

/// The fold (0..k) of every row: each group (class, if stratified) is shuffled and
/// dealt round-robin, so fold sizes differ by at most one per group.
pub fn k_fold<R: Rng + ?Sized>(y: &Target, k: usize, stratify: bool, rng: &mut R) -> Vec<usize> {
    let mut fold = vec![0; y.len()];
    let mut next = 0;
    for mut g in groups(y, stratify) {
        g.shuffle(rng);
        for i in g {
            fold[i] = next % k;
            next += 1;
        }
    }
    fold
}

/// A bootstrap resample of n rows (molnar2023's `boot`): n indices drawn uniformly
/// with replacement (the training rows, repeats kept, sorted) and the out-of-bag rows
/// never drawn (the evaluation rows, sorted; about n/e of them).
pub fn bootstrap<R: Rng + ?Sized>(n: usize, rng: &mut R) -> (Vec<usize>, Vec<usize>) {
    let mut train: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
    train.sort_unstable();
    let mut drawn = vec![false; n];
    for &i in &train {
        drawn[i] = true;
    }
    let out_of_bag = (0..n).filter(|&i| !drawn[i]).collect();
    (train, out_of_bag)
}

/// A subsample of k of n rows without replacement (molnar2023's `subs`, k =
/// ⌊0.632·n⌋): the k training rows and the n − k others, each sorted.
pub fn subsample<R: Rng + ?Sized>(n: usize, k: usize, rng: &mut R) -> (Vec<usize>, Vec<usize>) {
    let mut rows: Vec<usize> = (0..n).collect();
    rows.shuffle(rng);
    let (train, rest) = rows.split_at(k.min(n));
    let (mut train, mut rest) = (train.to_vec(), rest.to_vec());
    train.sort_unstable();
    rest.sort_unstable();
    (train, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use ndarray::Array1;

    fn classes() -> Target {
        // 30 of class 0, 10 of class 1.
        Target::Classes {
            labels: (0..40).map(|i| usize::from(i % 4 == 0)).collect(),
            n_classes: 2,
        }
    }

    #[test]
    fn stratified_split_keeps_class_shares_and_partitions_the_rows() {
        let y = classes();
        let (train, test) = train_test_split(&y, 0.25, true, &mut stream_rng(1, 0));
        assert_eq!((train.len(), test.len()), (30, 10));
        let Target::Classes { labels, .. } = &y else {
            unreachable!()
        };
        // Exact quotas 7.5 and 2.5 of 10: the tie goes to the first class, 8 and 2.
        assert_eq!(test.iter().filter(|&&i| labels[i] == 1).count(), 2);
        let mut all: Vec<usize> = train.iter().chain(&test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..40).collect::<Vec<_>>());
        // Same seed, same split.
        assert_eq!(
            train_test_split(&y, 0.25, true, &mut stream_rng(1, 0)).1,
            test
        );
    }

    #[test]
    fn plain_split_of_a_regression_target() {
        let y = Target::Continuous(Array1::zeros(10));
        let (train, test) = train_test_split(&y, 0.3, true, &mut stream_rng(2, 0));
        assert_eq!((train.len(), test.len()), (7, 3));
    }

    #[test]
    fn bootstrap_draws_n_rows_and_evaluates_on_the_rows_never_drawn() {
        let (train, oob) = bootstrap(1000, &mut stream_rng(4, 0));
        assert_eq!(train.len(), 1000);
        assert!(oob.iter().all(|i| train.binary_search(i).is_err()));
        let mut distinct = train.clone();
        distinct.dedup();
        assert_eq!(distinct.len() + oob.len(), 1000);
        // P(row not drawn) = (1 − 1/n)^n ≈ e⁻¹; sd of the count ≈ 15.
        assert!((oob.len() as f64 - 1000.0 / std::f64::consts::E).abs() < 60.0);
    }

    #[test]
    fn subsample_partitions_the_rows() {
        let (train, rest) = subsample(100, 63, &mut stream_rng(5, 0));
        assert_eq!((train.len(), rest.len()), (63, 37));
        let mut all: Vec<usize> = train.iter().chain(&rest).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert_eq!(subsample(100, 63, &mut stream_rng(5, 0)).0, train);
    }

    #[test]
    fn k_fold_balances_folds_and_classes() {
        let y = classes();
        let fold = k_fold(&y, 5, true, &mut stream_rng(3, 0));
        let Target::Classes { labels, .. } = &y else {
            unreachable!()
        };
        for f in 0..5 {
            let rows: Vec<usize> = (0..40).filter(|&i| fold[i] == f).collect();
            assert_eq!(rows.len(), 8);
            assert_eq!(rows.iter().filter(|&&i| labels[i] == 1).count(), 2);
        }
    }
}
