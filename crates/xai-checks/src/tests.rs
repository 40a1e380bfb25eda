//! Every assertion kind on constructed runs: one where the claim holds and one where it
//! fails, and the reading of `expected_to_differ` markers.

use xai_core::Estimate;

use super::*;
use xai_results::output::Scale;
use xai_results::table::{CurveRow, TidyRow, summarize};

/// A tidy row: grid labels, replicate, quantity, feature, grid point, value.
fn row(labels: &[&str], rep: usize, q: &str, f: &str, x: Option<f64>, v: f64) -> TidyRow {
    TidyRow {
        labels: labels.iter().map(|l| l.to_string()).collect(),
        replicate: rep,
        model: "m".into(),
        quantity: q.into(),
        feature: f.into(),
        x,
        value: Estimate {
            estimate: v,
            se: f64::NAN,
            lower: f64::NAN,
            upper: f64::NAN,
            n: 1,
        },
    }
}

/// A run of one model from tidy rows (summarised over replicates) and ICE curves.
fn run_of(keys: &[&str], tidy: Vec<TidyRow>, curves: Vec<CurveRow>) -> RunOutput {
    RunOutput {
        scale: Scale::Ci,
        keys: keys.iter().map(|k| k.to_string()).collect(),
        summary: summarize(&tidy, 0.95),
        tidy,
        curves,
        feature_names: vec!["A".into(), "B".into()],
        train_sample: None,
        maps: Vec::new(),
        variants: 1,
        replicates: 1,
        threads: 1,
        wall_seconds: 0.0,
        cpu_seconds: 0.0,
        cells: Default::default(),
    }
}

/// Replicate r has the (quantity, feature, value) rows `values[r]`.
fn scalar_run(values: &[Vec<(&str, &str, f64)>]) -> RunOutput {
    let tidy = values
        .iter()
        .enumerate()
        .flat_map(|(r, rows)| {
            rows.iter()
                .map(move |&(q, f, v)| row(&[], r, q, f, None, v))
        })
        .collect();
    run_of(&[], tidy, Vec::new())
}

/// PD curves `q` of features: per feature its values at x = 0, 1, 2, ... in each of
/// three replicates, shifted by −0.01, 0, +0.01 (so every point has a small se).
fn pd_run(curves: &[(&str, Vec<f64>)]) -> RunOutput {
    let mut tidy = Vec::new();
    for (r, shift) in [-0.01, 0.0, 0.01].into_iter().enumerate() {
        for (f, ys) in curves {
            for (i, y) in ys.iter().enumerate() {
                tidy.push(row(&[], r, "prediction_pd", f, Some(i as f64), y + shift));
            }
        }
    }
    run_of(&[], tidy, Vec::new())
}

/// ICE curves of feature A over x = 0, 1, 2, ...: (values, the row's own value of A,
/// its class), with the PD `prediction_pd` of A (`pd`) in the summary.
fn ice_run(curves: &[(Vec<f64>, f64, usize)], pd: &[f64]) -> RunOutput {
    let tidy = pd
        .iter()
        .enumerate()
        .map(|(i, &y)| row(&[], 0, "prediction_pd", "A", Some(i as f64), y))
        .collect();
    let kept = curves
        .iter()
        .enumerate()
        .map(|(k, (ys, own, class))| CurveRow {
            labels: Vec::new(),
            replicate: 0,
            model: "m".into(),
            quantity: "prediction_ice".into(),
            feature: "A".into(),
            row: k,
            grid: (0..ys.len()).map(|i| i as f64).collect(),
            values: ys.clone(),
            row_values: vec![*own, 0.0],
            row_class: Some(*class),
        })
        .collect();
    run_of(&[], tidy, kept)
}

fn check(yaml: &str, marker: Option<&str>, out: &RunOutput) -> Outcome {
    let spec = CheckSpec {
        claim: "c".into(),
        kind: ClaimKind::Paper,
        assert: serde_saphyr::from_str(yaml).unwrap(),
        expected_to_differ: marker.map(|m| Deviation::Everywhere(m.into())),
        tolerance_from: None,
    };
    evaluate(&spec, out, &[], 0.95)
}

fn status(yaml: &str, out: &RunOutput) -> Status {
    check(yaml, None, out).status
}

#[test]
fn greater_is_a_paired_comparison_over_replicates() {
    let out = scalar_run(&[
        vec![("q", "A", 3.0), ("q", "B", 1.0)],
        vec![("q", "A", 3.5), ("q", "B", 1.2)],
        vec![("q", "A", 2.8), ("q", "B", 1.1)],
    ]);
    let a_over_b = "greater: { quantity: q, this: { feature: A }, than: { feature: B } }";
    let o = check(a_over_b, None, &out);
    assert_eq!(o.status, Status::Pass);
    assert!(o.measured > 0.0, "{o:?}");
    let b_over_a = "greater: { quantity: q, this: { feature: B }, than: { feature: A } }";
    let o = check(b_over_a, None, &out);
    assert_eq!(o.status, Status::Fail);
    assert!(o.measured < 0.0);
}

/// `than` naming several values of a grid key compares `this` with each of them, not
/// with their pool: ideal beats boot by 0.5 in every replicate but falls short of subs
/// by 0.01, and pooled over both the paired interval would lie above 0.
#[test]
fn greater_compares_with_each_than_row_not_their_pool() {
    let mut tidy = Vec::new();
    for r in 0..20 {
        let noise = 0.001 * (r % 3) as f64;
        for (resampling, v) in [("ideal", 1.0), ("boot", 0.5), ("subs", 1.01)] {
            tidy.push(row(&[resampling], r, "q", "A", None, v + noise));
        }
    }
    let out = run_of(&["resampling"], tidy, Vec::new());
    let claim =
        "greater: { quantity: q, this: { resampling: ideal }, than: { resampling: [boot, subs] } }";
    let o = check(claim, None, &out);
    assert_eq!(o.status, Status::Fail, "{}", o.detail);
    assert!((o.measured + 0.01).abs() < 1e-9, "{o:?}");
    assert!(
        o.detail.contains("A ideal > A boot") && o.detail.contains("NOT A ideal > A subs"),
        "{}",
        o.detail
    );
    let only_boot =
        "greater: { quantity: q, this: { resampling: ideal }, than: { resampling: boot } }";
    assert_eq!(check(only_boot, None, &out).status, Status::Pass);
}

/// Replicate r has the (quantity, feature, lower, upper) interval rows `values[r]`.
fn interval_run(values: &[Vec<(&str, &str, f64, f64)>]) -> RunOutput {
    let tidy = values
        .iter()
        .enumerate()
        .flat_map(|(r, rows)| {
            rows.iter().map(move |&(q, f, lo, hi)| {
                let mut t = row(&[], r, q, f, None, (lo + hi) / 2.0);
                t.value.lower = lo;
                t.value.upper = hi;
                t
            })
        })
        .collect();
    run_of(&[], tidy, Vec::new())
}

/// `pooled` judges the mean difference over the pairs: in 12 replicates A beats B
/// by 0.05 on average in each of four scenarios, but with noise of sd about 0.1 no
/// single pair's interval clears 0; the mean over the four (independent) scenarios
/// does. Where the mean difference is 0, pooled fails too.
#[test]
fn greater_pooled_judges_the_mean_difference_over_the_pairs() {
    let noise = |r: usize, s: usize| 0.1 * (((r * 7 + s * 3) % 5) as f64 - 2.0) / 1.4;
    let make = |gap: f64| {
        let mut tidy = Vec::new();
        for r in 0..12 {
            for (s, scenario) in ["s1", "s2", "s3", "s4"].into_iter().enumerate() {
                tidy.push(row(
                    &[scenario, "A"],
                    r,
                    "q",
                    "",
                    None,
                    0.5 + gap + noise(r, s),
                ));
                tidy.push(row(&[scenario, "B"], r, "q", "", None, 0.5));
            }
        }
        run_of(&["scenario", "side"], tidy, Vec::new())
    };
    let claim = |pooled: bool| {
        format!(
            "greater: {{ quantity: q, this: {{ side: A }}, than: {{ side: B }}, pooled: {pooled} }}"
        )
    };
    let gap = make(0.05);
    assert_eq!(status(&claim(false), &gap), Status::Fail);
    let o = check(&claim(true), None, &gap);
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!(o.detail.contains("mean over 4 pairs"), "{}", o.detail);
    assert_eq!(status(&claim(true), &make(0.0)), Status::Fail);
}

/// `unchanged` compares each row with its `from` row of the same context: the n = 1000
/// rows of two scenarios against their n = 100 rows, within a tolerance plus the
/// combined Monte-Carlo se.
#[test]
fn unchanged_compares_each_row_with_its_reference_row() {
    let make = |shift_s2: f64| {
        let mut tidy = Vec::new();
        for (r, d) in [-0.01, 0.0, 0.01].into_iter().enumerate() {
            for (scenario, base) in [("s1", 0.8), ("s2", 0.6)] {
                tidy.push(row(&[scenario, "100"], r, "q", "", None, base + d));
                let later = if scenario == "s2" { shift_s2 } else { 0.0 };
                tidy.push(row(&[scenario, "1000"], r, "q", "", None, base + later + d));
            }
        }
        run_of(&["scenario", "size"], tidy, Vec::new())
    };
    let claim = "unchanged: { quantity: q, where: { size: \"1000\" }, from: { size: \"100\" }, tolerance: 0.05, plus_se: 3 }";
    let o = check(claim, None, &make(0.02));
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!((o.measured - 0.02).abs() < 1e-9, "{o:?}");
    let o = check(claim, None, &make(0.2));
    assert_eq!(o.status, Status::Fail, "{}", o.detail);
    assert!(o.detail.contains("NOT s2 m: size 1000"), "{}", o.detail);
    // With one replicate (no se) the tolerance alone decides; a `where` that also
    // selects the reference rows compares each other row with them, never a row
    // with itself.
    let mut single = Vec::new();
    for (scenario, later) in [("s1", 0.02), ("s2", 0.2)] {
        single.push(row(&[scenario, "100"], 0, "q", "", None, 0.5));
        single.push(row(&[scenario, "1000"], 0, "q", "", None, 0.5 + later));
    }
    let single = run_of(&["scenario", "size"], single, Vec::new());
    let tolerance_only = |t: f64| {
        format!(
            "unchanged: {{ quantity: q, where: {{}}, from: {{ size: \"100\" }}, tolerance: {t} }}"
        )
    };
    let o = check(&tolerance_only(0.3), None, &single);
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!((o.measured - 0.2).abs() < 1e-9, "{o:?}");
    assert_eq!(status(&tolerance_only(0.1), &single), Status::Fail);
    // A `from` that matches no row is an error, not a pass.
    let nowhere =
        "unchanged: { quantity: q, where: { n: \"1000\" }, from: { size: \"10\" }, tolerance: 1 }";
    assert_eq!(status(nowhere, &make(0.0)), Status::Fail);
}

/// `unchanged` with `equivalent`: the difference's interval must lie inside
/// ±tolerance, here a tenth of the largest |estimate| of the panel (0.102): a run
/// too noisy to tell B from A fails, where the equality form passes it.
#[test]
fn equivalent_requires_the_difference_interval_inside_the_tolerance() {
    let make = |b: f64, spread: f64| {
        let mut tidy = Vec::new();
        for (r, d) in [-spread, 0.0, spread].into_iter().enumerate() {
            tidy.push(row(&[], r, "q", "A", None, 1.0 + d));
            tidy.push(row(&[], r, "q", "B", None, b + d));
        }
        run_of(&[], tidy, Vec::new())
    };
    let claim = |equivalent: bool| {
        format!(
            "unchanged: {{ quantity: q, where: {{ feature: B }}, from: {{ feature: A }}, tolerance: 0.1, plus_se: 3, equivalent: {equivalent}, relative_to: {{ where: {{ feature: [A, B] }} }} }}"
        )
    };
    // Precise and close: 0.02 + 3·0.01·√(2/3) = 0.0445 inside ±0.102.
    let o = check(&claim(true), None, &make(1.02, 0.01));
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!(
        (o.measured - (0.02 + 3.0 * 0.01 * (2.0f64 / 3.0).sqrt())).abs() < 1e-9,
        "{o:?}"
    );
    assert!(o.detail.contains("inside ±0.1020"), "{}", o.detail);
    // Noisy: the equality form passes, the equivalence fails (0.02 + 0.245 > 0.102).
    assert_eq!(status(&claim(false), &make(1.02, 0.1)), Status::Pass);
    assert_eq!(status(&claim(true), &make(1.02, 0.1)), Status::Fail);
    // Precise but apart: 0.3 is beyond ±0.13 either way.
    assert_eq!(status(&claim(true), &make(1.3, 0.01)), Status::Fail);
    // An equivalence without an interval, or a relative tolerance without its
    // fraction, is refused at load.
    let refused = |assert: &str| {
        let c: CheckSpec = serde_saphyr::from_str(&format!(
            "claim: c\nassert:\n  unchanged: {{ quantity: q, where: {{ feature: B }}, from: {{ feature: A }}, {assert} }}\ntolerance_from: {{ derivation: \"d\" }}\n"
        ))
        .unwrap();
        c.validate(&[]).map_err(|e| e.field)
    };
    assert_eq!(
        refused("tolerance: 0.1, equivalent: true"),
        Err("equivalent".into())
    );
    assert_eq!(
        refused("relative_to: { where: { feature: [A, B] } }, plus_se: 3"),
        Err("relative_to".into())
    );
    assert_eq!(
        refused("tolerance: 0.1, plus_se: 3, equivalent: true"),
        Ok(())
    );
}

#[test]
fn greater_on_widths_pairs_the_interval_widths_over_replicates() {
    // A's intervals are wider (2, 2.2, 1.9) than B's (1, 1.1, 0.9) though A's centres
    // are lower.
    let out = interval_run(&[
        vec![("q", "A", -1.0, 1.0), ("q", "B", 4.5, 5.5)],
        vec![("q", "A", -1.1, 1.1), ("q", "B", 4.4, 5.5)],
        vec![("q", "A", -1.0, 0.9), ("q", "B", 4.6, 5.5)],
    ]);
    let wider =
        "greater: { quantity: q, this: { feature: A }, than: { feature: B }, widths: true }";
    assert_eq!(status(wider, &out), Status::Pass);
    let narrower =
        "greater: { quantity: q, this: { feature: B }, than: { feature: A }, widths: true }";
    assert_eq!(status(narrower, &out), Status::Fail);
    let by_estimate = "greater: { quantity: q, this: { feature: A }, than: { feature: B } }";
    assert_eq!(status(by_estimate, &out), Status::Fail);
}

#[test]
fn excludes_zero_counts_the_replicates_whose_interval_misses_zero() {
    // A's interval excludes 0 in 2 of 3 replicates, B's in none.
    let out = interval_run(&[
        vec![("q", "A", 0.1, 1.0), ("q", "B", -1.0, 1.0)],
        vec![("q", "A", -0.1, 1.0), ("q", "B", -0.5, 0.2)],
        vec![("q", "A", -2.0, -0.5), ("q", "B", -0.1, 0.1)],
    ]);
    let a = "excludes_zero: { quantity: q, where: { feature: A }, at_least: 0.6 }";
    let o = check(a, None, &out);
    assert_eq!(o.status, Status::Pass, "{o:?}");
    assert!((o.measured - 2.0 / 3.0).abs() < 1e-12);
    let a_strict = "excludes_zero: { quantity: q, where: { feature: A }, at_least: 0.9 }";
    assert_eq!(status(a_strict, &out), Status::Fail);
    let b = "excludes_zero: { quantity: q, where: { feature: B }, at_most: 0.0 }";
    assert_eq!(status(b, &out), Status::Pass);
    let both = "excludes_zero: { quantity: q, where: { feature: [A, B] }, at_most: 0.5 }";
    assert_eq!(status(both, &out), Status::Fail);
    for vacuous in ["at_least: 0", "at_most: 1", "at_least: 0.8, at_most: 0.2"] {
        let c = format!("excludes_zero: {{ quantity: q, where: {{ feature: B }}, {vacuous} }}");
        assert_eq!(status(&c, &out), Status::Fail, "{vacuous}");
    }
    let no_interval = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 2.0)]]);
    let a = "excludes_zero: { quantity: q, where: { feature: A }, at_most: 0.5 }";
    assert_eq!(
        status(a, &no_interval),
        Status::Fail,
        "NaN bounds are no evidence"
    );
}

#[test]
fn spread_compares_the_sds_over_replicates() {
    // A moves by ±0.1 over three replicates, B by ±1: A's spread is a tenth of B's.
    let out = scalar_run(&[
        vec![("q", "A", 1.0), ("q", "B", 5.0)],
        vec![("q", "A", 1.1), ("q", "B", 6.0)],
        vec![("q", "A", 0.9), ("q", "B", 4.0)],
    ]);
    let o = check(
        "spread: { quantity: q, this: { feature: A }, than: { feature: B }, factor: 0.2 }",
        None,
        &out,
    );
    assert_eq!(o.status, Status::Pass);
    assert!((o.measured - 0.1).abs() < 1e-12, "{o:?}");
    let reverse =
        "spread: { quantity: q, this: { feature: B }, than: { feature: A }, factor: 0.2 }";
    assert_eq!(status(reverse, &out), Status::Fail);
    let tight = "spread: { quantity: q, this: { feature: A }, than: { feature: B }, factor: 0.05 }";
    assert_eq!(status(tight, &out), Status::Fail);
    let none = "spread: { quantity: q, this: { feature: C }, than: { feature: B }, factor: 1 }";
    assert_eq!(status(none, &out), Status::Fail);
}

#[test]
fn at_least_fails_only_where_the_other_is_larger_beyond_monte_carlo_error() {
    // A and B differ by noise (paired differences 0.1, −0.1, 0.05): "A ≥ B" and
    // "B ≥ A" both hold, "A > B" does not; C is clearly below A.
    let out = scalar_run(&[
        vec![("q", "A", 1.0), ("q", "B", 0.9), ("q", "C", 0.2)],
        vec![("q", "A", 1.1), ("q", "B", 1.2), ("q", "C", 0.3)],
        vec![("q", "A", 0.9), ("q", "B", 0.85), ("q", "C", 0.1)],
    ]);
    let claim = |this: &str, than: &str, at_least: bool| {
        format!(
            "greater: {{ quantity: q, this: {{ feature: {this} }}, than: {{ feature: {than} }}, at_least: {at_least} }}"
        )
    };
    assert_eq!(status(&claim("A", "B", true), &out), Status::Pass);
    assert_eq!(status(&claim("B", "A", true), &out), Status::Pass);
    assert_eq!(status(&claim("A", "B", false), &out), Status::Fail);
    let o = check(&claim("C", "A", true), None, &out);
    assert_eq!(o.status, Status::Fail);
    assert!(o.measured < 0.0, "{o:?}");
    assert_eq!(status(&claim("A", "C", true), &out), Status::Pass);
}

#[test]
fn positive_needs_the_whole_interval_above_zero() {
    let clear = scalar_run(&[
        vec![("q", "A", 1.0)],
        vec![("q", "A", 1.1)],
        vec![("q", "A", 0.9)],
    ]);
    let noisy = scalar_run(&[
        vec![("q", "A", 1.0)],
        vec![("q", "A", -0.9)],
        vec![("q", "A", 0.2)],
    ]);
    let claim = "positive: { quantity: q, where: { feature: A } }";
    assert_eq!(status(claim, &clear), Status::Pass);
    assert_eq!(status(claim, &noisy), Status::Fail);
    // Above a bound other than 0 (the mean 1.0 has lower end ≈ 0.75).
    let above =
        |b: f64| format!("positive: {{ quantity: q, where: {{ feature: A }}, above: {b} }}");
    assert_eq!(status(&above(0.5), &clear), Status::Pass);
    assert_eq!(status(&above(0.9), &clear), Status::Fail);
}

#[test]
fn below_needs_the_whole_interval_under_the_bound() {
    // Mean 1.0, sd 0.1 over three replicates: the 95% interval is about [0.75, 1.25].
    let run = scalar_run(&[
        vec![("q", "A", 1.0)],
        vec![("q", "A", 1.1)],
        vec![("q", "A", 0.9)],
    ]);
    let claim = |b: f64| format!("below: {{ quantity: q, where: {{ feature: A }}, bound: {b} }}");
    assert_eq!(status(&claim(1.5), &run), Status::Pass);
    // The mean is under 1.1, but not its interval.
    assert_eq!(status(&claim(1.1), &run), Status::Fail);
    assert_eq!(status(&claim(0.5), &run), Status::Fail);
}

/// `negligible` is an equivalence rule: the whole interval inside ±bound. An interval
/// that merely covers 0 but reaches past the bound (an underpowered run) fails.
#[test]
fn negligible_needs_the_whole_interval_inside_the_bound() {
    let claim =
        |b: f64| format!("negligible: {{ quantity: q, where: {{ feature: A }}, bound: {b} }}");
    // Mean 0, replicates ±0.1: the 95% interval over two replicates is about ±1.27.
    let wide = scalar_run(&[vec![("q", "A", 0.1)], vec![("q", "A", -0.1)]]);
    assert_eq!(status(&claim(0.5), &wide), Status::Fail);
    assert_eq!(status(&claim(1.5), &wide), Status::Pass);
    // Mean 0.0105, sd 0.0007 over two: interval about [0.0041, 0.0169].
    let small = scalar_run(&[vec![("q", "A", 0.010)], vec![("q", "A", 0.011)]]);
    assert_eq!(status(&claim(0.02), &small), Status::Pass);
    let o = check(&claim(0.015), None, &small);
    assert_eq!(o.status, Status::Fail);
    assert!(
        (o.measured - 0.0105 - 12.706 * 0.0005).abs() < 1e-3,
        "{}",
        o.measured
    );
}

/// A bound `relative_to` reference rows is that fraction of their largest |estimate|
/// in the same panel: A's interval [0.004, 0.017] is inside a tenth of B = 1 and not
/// inside a tenth of B = 0.1; a reference that selects nothing fails the claim.
#[test]
fn a_relative_bound_is_a_fraction_of_the_largest_reference() {
    let run = |b: f64| {
        scalar_run(&[
            vec![("q", "A", 0.010), ("q", "B", b), ("r", "B", 1.0)],
            vec![("q", "A", 0.011), ("q", "B", b), ("r", "B", 1.0)],
        ])
    };
    let claim = |reference: &str| {
        format!(
            "negligible: {{ quantity: q, where: {{ feature: A }}, bound: 0.1, relative_to: {reference} }}"
        )
    };
    let all = "{ where: { feature: [A, B] } }";
    let o = check(&claim(all), None, &run(1.0));
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!(
        o.detail.contains("0.1 times the largest |q|"),
        "{}",
        o.detail
    );
    assert_eq!(status(&claim(all), &run(0.1)), Status::Fail);
    // Another quantity as the reference: r's B is 1 whatever q's B is.
    assert_eq!(
        status(&claim("{ quantity: r, where: { feature: B } }"), &run(0.1)),
        Status::Pass
    );
    assert_eq!(
        status(&claim("{ where: { feature: C } }"), &run(1.0)),
        Status::Fail
    );
}

/// `closer`: A (mean 0.95) lies closer to 0.95 than B (mean 0.81) by 0.14, beyond
/// t(0.975, 2)·√(se_A² + se_B²) = 0.035; not the reverse, and not when both are 0.07
/// from the target.
#[test]
fn closer_compares_distances_to_a_target_beyond_monte_carlo_error() {
    let out = scalar_run(&[
        vec![("q", "A", 0.94), ("q", "B", 0.80)],
        vec![("q", "A", 0.95), ("q", "B", 0.81)],
        vec![("q", "A", 0.96), ("q", "B", 0.82)],
    ]);
    let claim = |this: &str, than: &str, to: f64| {
        format!(
            "closer: {{ quantity: q, this: {{ feature: {this} }}, than: {{ feature: {than} }}, to: {to} }}"
        )
    };
    let o = check(&claim("A", "B", 0.95), None, &out);
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    let allowed = 4.302653 * (2.0f64 / 3.0 * 0.0001).sqrt();
    assert!(
        (o.measured - (0.14 - allowed)).abs() < 1e-6,
        "{}",
        o.measured
    );
    assert_eq!(status(&claim("B", "A", 0.95), &out), Status::Fail);
    assert_eq!(status(&claim("A", "B", 0.88), &out), Status::Fail);
}

/// A marker quotes the run's numbers as `{{quantity: key=value}}`: shown with the
/// run's own value (so it cannot go stale), and a quote the run cannot fill (no row,
/// a bad field, an unclosed brace) fails the check.
#[test]
fn a_marker_quotes_numbers_from_the_run() {
    let out = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 2.0)]]);
    let fails = "near: { quantity: q, where: { feature: A }, value: 9.0, plus_se: 1 }";
    let o = check(
        fails,
        Some("ours {{q: feature=A}} (se {{q: feature=A | se}})"),
        &out,
    );
    assert_eq!(o.status, Status::KnownDeviation, "{}", o.detail);
    assert!(o.detail.contains("ours 1.5000 (se 0.5000)"), "{}", o.detail);
    for broken in [
        "ours {{q: feature=B}}",
        "ours {{q: feature=A | median}}",
        "ours {{q feature=A}}",
        "ours {{q: feature=A",
    ] {
        let o = check(fails, Some(broken), &out);
        assert_eq!(o.status, Status::Fail, "{broken}: {}", o.detail);
        assert!(o.detail.contains("cannot be read"), "{}", o.detail);
    }
}

/// An experiment's notes quote the run as a marker does: notes whose quotes pick
/// one row each give no outcome, and one whose row the run lacks gives a failing one.
#[test]
fn notes_fail_when_a_quoted_number_is_not_in_the_run() {
    let out = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 2.0)]]);
    assert!(notes_outcome("plain text, no quote", &out).is_none());
    assert!(notes_outcome("ours {{q: feature=A}}, sd {{q: feature=A | sd}}", &out).is_none());
    let o = notes_outcome("ours {{q: feature=B}}", &out).expect("a quote with no row fails");
    assert_eq!(o.status, Status::Fail);
    assert!(o.detail.contains("picks 0 rows"), "{}", o.detail);
}

#[test]
fn monotone_needs_every_step_beyond_its_standard_error() {
    // Grid key n with three values; three replicates each.
    let make = |means: [f64; 3]| {
        let mut tidy = Vec::new();
        for (k, n) in ["10", "20", "40"].iter().enumerate() {
            for (r, d) in [-0.01, 0.0, 0.01].into_iter().enumerate() {
                tidy.push(row(&[n], r, "q", "A", None, means[k] + d));
            }
        }
        run_of(&["n"], tidy, Vec::new())
    };
    let claim = |dir: &str| {
        format!(
            "monotone: {{ quantities: [q], where: {{ feature: A }}, along: n, direction: {dir} }}"
        )
    };
    assert_eq!(
        status(&claim("decreasing"), &make([3.0, 2.0, 1.0])),
        Status::Pass
    );
    assert_eq!(
        status(&claim("increasing"), &make([3.0, 2.0, 1.0])),
        Status::Fail
    );
    // A flat step within the noise fails too.
    assert_eq!(
        status(&claim("decreasing"), &make([3.0, 2.0, 1.995])),
        Status::Fail
    );
}

/// `share`: feature A steps down along n, feature B rises; "in most groups" with
/// share 0.5 holds (one of two), share 0.75 does not.
#[test]
fn monotone_with_share_counts_the_groups_that_step() {
    let mut tidy = Vec::new();
    for (k, n) in ["10", "20"].iter().enumerate() {
        for (r, d) in [-0.01, 0.0, 0.01].into_iter().enumerate() {
            tidy.push(row(&[n], r, "q", "A", None, [3.0, 2.0][k] + d));
            tidy.push(row(&[n], r, "q", "B", None, [1.0, 2.0][k] + d));
        }
    }
    let out = run_of(&["n"], tidy, Vec::new());
    let claim = |share: f64| {
        format!(
            "monotone: {{ quantities: [q], where: {{}}, along: n, direction: decreasing, share: {share} }}"
        )
    };
    let o = check(&claim(0.5), None, &out);
    assert_eq!(o.status, Status::Pass, "{}", o.detail);
    assert!((o.measured - 0.5).abs() < 1e-15);
    assert_eq!(status(&claim(0.75), &out), Status::Fail);
}

#[test]
fn ranked_above_counts_the_replicates_that_order_as_claimed() {
    // A above both B and C in replicates 0 and 1 only.
    let out = scalar_run(&[
        vec![("q", "A", 3.0), ("q", "B", 2.0), ("q", "C", 1.0)],
        vec![("q", "A", 3.0), ("q", "B", 1.0), ("q", "C", 2.0)],
        vec![("q", "A", 1.5), ("q", "B", 2.0), ("q", "C", 1.0)],
    ]);
    let claim = |share: f64| {
        format!(
            "ranked_above: {{ quantity: q, this: {{ feature: A }}, than: {{ feature: [B, C] }}, share: {share} }}"
        )
    };
    let o = check(&claim(0.6), None, &out);
    assert_eq!(o.status, Status::Pass);
    assert!((o.measured - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(status(&claim(0.7), &out), Status::Fail);
}

#[test]
fn in_top_and_near_read_the_mean_over_replicates() {
    let out = scalar_run(&[
        vec![("q", "A", 1.0), ("q", "B", 3.0), ("q", "C", 2.0)],
        vec![("q", "A", 1.0), ("q", "B", 5.0), ("q", "C", 2.0)],
    ]);
    let top =
        |f: &str, k: usize| format!("in_top: {{ quantity: q, where: {{ feature: {f} }}, k: {k} }}");
    assert_eq!(status(&top("C", 2), &out), Status::Pass);
    let o = check(&top("A", 2), None, &out);
    assert_eq!((o.status, o.measured), (Status::Fail, 3.0));
    let near = |tol: f64| {
        format!("near: {{ quantity: q, where: {{ feature: B }}, value: 4.5, tolerance: {tol} }}")
    };
    assert_eq!(status(&near(0.5), &out), Status::Pass);
    let o = check(&near(0.4), None, &out);
    assert_eq!(o.status, Status::Fail);
    assert!((o.measured - 0.5).abs() < 1e-15);
    // Plus a multiple of the Monte-Carlo se over replicates (here se = 1).
    let near_se = |z: f64| {
        format!(
            "near: {{ quantity: q, where: {{ feature: B }}, value: 4.5, tolerance: 0.4, plus_se: {z} }}"
        )
    };
    assert_eq!(status(&near_se(0.1), &out), Status::Pass);
    assert_eq!(status(&near_se(0.05), &out), Status::Fail);
    // The paper's number from one fit: its se is our sd over replicates, se·√n, and
    // the allowance is 0.4 + k·√(se² + n·se²) = 0.4 + k·√(1 + n).
    let n = out
        .summary
        .iter()
        .find(|r| r.feature == "B" && r.quantity == "q")
        .map(|r| r.value.n as f64)
        .unwrap();
    let one_fit = |z: f64| {
        format!(
            "near: {{ quantity: q, where: {{ feature: B }}, value: 4.5, tolerance: 0.4, plus_se: {z}, paper_error: one_fit }}"
        )
    };
    assert_eq!(
        status(&one_fit(0.101 / (1.0 + n).sqrt()), &out),
        Status::Pass
    );
    assert_eq!(
        status(&one_fit(0.099 / (1.0 + n).sqrt()), &out),
        Status::Fail
    );
}

/// A paper's share over its own runs: se_paper = √(v(1 − v)/runs) joins ours (here 0,
/// every replicate 0.5) in quadrature; v = 0.6 over 100 runs gives se_paper = 0.049, so
/// the gap 0.1 is within 2.05 se_paper and not within 2.
#[test]
fn near_joins_the_papers_binomial_se_over_its_runs() {
    let out = scalar_run(&[vec![("q", "A", 0.5)], vec![("q", "A", 0.5)]]);
    let claim = |k: f64, paper: &str| {
        format!(
            "near: {{ quantity: q, where: {{ feature: A }}, value: 0.6, plus_se: {k}, paper_error: {paper} }}"
        )
    };
    assert_eq!(status(&claim(2.05, "{ runs: 100 }"), &out), Status::Pass);
    assert_eq!(status(&claim(2.0, "{ runs: 100 }"), &out), Status::Fail);
    assert_eq!(status(&claim(2.05, "none"), &out), Status::Fail);
}

/// An absolute tolerance states its source: none is refused; a printed precision must
/// be half a unit of its last digit; a derivation must say something; a source with
/// no tolerance to justify is refused; Monte-Carlo multiples need none.
#[test]
fn a_tolerance_without_a_source_is_refused() {
    let spec = |tol: f64, from: &str| -> CheckSpec {
        serde_saphyr::from_str(&format!(
            "claim: c\nassert:\n  near: {{ quantity: q, where: {{}}, value: 0.41, tolerance: {tol}, plus_se: 3 }}\n{from}"
        ))
        .unwrap()
    };
    let field = |c: CheckSpec| c.validate(&[]).map_err(|e| e.field);
    assert_eq!(field(spec(0.03, "")), Err("tolerance".into()));
    assert_eq!(field(spec(0.005, "tolerance_from: { printed: 2 }")), Ok(()));
    assert_eq!(
        field(spec(0.03, "tolerance_from: { printed: 2 }")),
        Err("tolerance_from".into())
    );
    assert_eq!(
        field(spec(
            0.03,
            "tolerance_from: { derivation: \"a fit's bias, PAPERS.md §2.2\" }"
        )),
        Ok(())
    );
    assert_eq!(
        field(spec(0.03, "tolerance_from: { derivation: \" \" }")),
        Err("tolerance_from".into())
    );
    assert_eq!(field(spec(0.0, "")), Ok(()));
    assert_eq!(
        field(spec(0.0, "tolerance_from: { printed: 2 }")),
        Err("tolerance_from".into())
    );
    // Inside `not`, the inner assertion's tolerance counts.
    let negated: CheckSpec = serde_saphyr::from_str(
        "claim: c\nassert:\n  not:\n    near: { quantity: q, where: {}, value: 1, tolerance: 0.1 }\n",
    )
    .unwrap();
    assert_eq!(field(negated), Err("tolerance".into()));
    // Every threshold counts, not only a tolerance: a bound or share needs the paper's
    // words or a derivation (a printed precision justifies a tolerance only), and a
    // share of 1 or a bound of 0 decides nothing and needs none.
    let other = |assert: &str, from: &str| -> Result<(), String> {
        let c: CheckSpec =
            serde_saphyr::from_str(&format!("claim: c\nassert:\n  {assert}\n{from}")).unwrap();
        c.validate(&[]).map_err(|e| e.field)
    };
    let negligible = "negligible: { quantity: q, where: {}, bound: 0.01 }";
    assert_eq!(other(negligible, ""), Err("bound".into()));
    assert_eq!(
        other(negligible, "tolerance_from: { printed: 2 }"),
        Err("tolerance_from".into())
    );
    assert_eq!(
        other(negligible, "tolerance_from: { paper: \"negligible\" }"),
        Ok(())
    );
    let most = |share: f64| {
        format!(
            "ranked_above: {{ quantity: q, this: {{ feature: A }}, than: {{ feature: B }}, share: {share} }}"
        )
    };
    assert_eq!(other(&most(0.5), ""), Err("share".into()));
    assert_eq!(
        other(&most(0.5), "tolerance_from: { paper: \"in most splits\" }"),
        Ok(())
    );
    assert_eq!(other(&most(1.0), ""), Ok(()));
    let peak = "interior_peak: { quantity: q, where: {}, lower: 50, upper: 60 }";
    assert_eq!(other(peak, ""), Err("lower".into()));
    // A share over runs needs a value in [0, 1].
    let runs: CheckSpec = serde_saphyr::from_str(
        "claim: c\nassert:\n  near: { quantity: q, where: {}, value: 3, plus_se: 3, paper_error: { runs: 10 } }\n",
    )
    .unwrap();
    assert_eq!(field(runs), Err("paper_error".into()));
}

#[test]
fn rank_agreement_compares_spearman_correlations_with_the_reference() {
    let out = scalar_run(&[vec![
        ("mi", "A", 0.3),
        ("mi", "B", 0.2),
        ("mi", "C", 0.1),
        ("mi", "D", 0.0),
        ("cid", "A", 9.0),
        ("cid", "B", 5.0),
        ("cid", "C", 4.0),
        ("cid", "D", 1.0),
        ("pfi", "A", 1.0),
        ("pfi", "B", 2.0),
        ("pfi", "C", 4.0),
        ("pfi", "D", 3.0),
    ]]);
    let claim = |a: &str, b: &str| {
        format!("rank_agreement: {{ quantity: {a}, than_quantity: {b}, reference: mi }}")
    };
    assert_eq!(status(&claim("cid", "pfi"), &out), Status::Pass);
    assert_eq!(status(&claim("pfi", "cid"), &out), Status::Fail);
}

#[test]
fn spearman_uses_mean_ranks_for_ties() {
    use super::ranking::{ranks, spearman};
    assert_eq!(ranks(&[2.0, 1.0, 2.0, 3.0]), vec![2.5, 1.0, 2.5, 4.0]);
    assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-15);
    assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-15);
}

#[test]
fn interior_peak_needs_a_bump_above_both_ends_of_the_interval() {
    let bump = pd_run(&[("A", vec![0.0, 0.1, 1.0, 0.1, 0.0])]);
    let flat = pd_run(&[("A", vec![0.0, 0.1, 0.2, 0.3, 0.4])]);
    let claim =
        "interior_peak: { quantity: prediction_pd, where: { feature: A }, lower: 1, upper: 3 }";
    assert_eq!(status(claim, &bump), Status::Pass);
    assert_eq!(status(claim, &flat), Status::Fail);
}

#[test]
fn rises_towards_edges_needs_both_grid_ends_above_their_side_minimum() {
    let valley = pd_run(&[("A", vec![1.0, 0.2, 0.5, 0.2, 1.0])]);
    let one_sided = pd_run(&[("A", vec![1.0, 0.2, 0.5, 0.2, 0.2])]);
    let claim = "rises_towards_edges: { quantity: prediction_pd, where: { feature: A }, lower: 1, upper: 3 }";
    assert_eq!(status(claim, &valley), Status::Pass);
    assert_eq!(status(claim, &one_sided), Status::Fail);
}

#[test]
fn argmax_within_locates_the_curve_maximum() {
    let out = pd_run(&[
        ("A", vec![0.0, 2.0, 1.0, 0.5, 0.0]),
        ("B", vec![0.0, 0.0, 0.0, 0.0, 3.0]),
    ]);
    let claim = |f: &str| {
        format!(
            "argmax_within: {{ quantity: prediction_pd, where: {{ feature: {f} }}, lower: 0.5, upper: 2.5 }}"
        )
    };
    assert_eq!(status(&claim("A"), &out), Status::Pass);
    assert_eq!(status(&claim("B"), &out), Status::Fail);
}

#[test]
fn trend_counts_the_curves_that_move_as_claimed() {
    // Three ICE curves: two rise from x = 0 to 2, one falls; class 1 are the rising ones.
    let out = ice_run(
        &[
            (vec![0.0, 1.0, 2.0], 0.0, 1),
            (vec![0.0, 0.5, 1.0], 1.0, 1),
            (vec![2.0, 1.0, 0.0], 2.0, 0),
        ],
        &[0.7, 0.8, 1.0],
    );
    let claim = |share: f64, class: Option<usize>| {
        let filter = class.map_or(String::new(), |c| format!(", rows_with: {{ class: {c} }}"));
        format!(
            "trend: {{ quantity: prediction_ice, where: {{ feature: A }}{filter}, from: 0, to: 2, direction: increasing, share: {share} }}"
        )
    };
    let o = check(&claim(0.6, None), None, &out);
    assert_eq!(o.status, Status::Pass);
    assert!((o.measured - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(status(&claim(0.7, None), &out), Status::Fail);
    assert_eq!(status(&claim(1.0, Some(1)), &out), Status::Pass);
    assert_eq!(status(&claim(1.0, Some(0)), &out), Status::Fail);
    // `by`: the second curve rises by 1.0 only, so with by 1.5 one curve of three
    // counts, and exactly 1.0 does not count either.
    let by = |b: f64| {
        format!(
            "trend: {{ quantity: prediction_ice, where: {{ feature: A }}, from: 0, to: 2, direction: increasing, share: 0.6, by: {b} }}"
        )
    };
    assert_eq!(status(&by(0.5), &out), Status::Pass);
    let o = check(&by(1.0), None, &out);
    assert_eq!(o.status, Status::Fail, "{}", o.detail);
    assert!((o.measured - 1.0 / 3.0).abs() < 1e-15);
    assert!(o.detail.contains("by more than 1"), "{}", o.detail);
}

#[test]
fn varies_needs_a_range_beyond_the_bound_and_the_noise() {
    let out = pd_run(&[("A", vec![0.0, 0.5, 1.0]), ("B", vec![0.0, 0.02, 0.0])]);
    let claim = |f: &str| {
        format!("varies: {{ quantity: prediction_pd, where: {{ feature: {f} }}, bound: 0.1 }}")
    };
    assert_eq!(status(&claim("A"), &out), Status::Pass);
    assert_eq!(status(&claim("B"), &out), Status::Fail);
}

#[test]
fn shapes_differ_ignores_level_and_sees_shape() {
    let shifted = ice_run(
        &[(vec![0.0, 1.0, 2.0], 0.0, 0), (vec![5.0, 6.0, 7.0], 0.0, 0)],
        &[0.0, 0.0, 0.0],
    );
    let crossing = ice_run(
        &[(vec![0.0, 1.0, 2.0], 0.0, 0), (vec![2.0, 1.0, 0.0], 0.0, 0)],
        &[0.0, 0.0, 0.0],
    );
    let claim = "shapes_differ: { quantity: prediction_ice, where: { feature: A }, bound: 0.1 }";
    let o = check(claim, None, &shifted);
    assert_eq!(o.status, Status::Fail);
    assert!(o.measured.abs() < 1e-12, "{o:?}");
    assert_eq!(status(claim, &crossing), Status::Pass);
    // Relative to the curves' mean's range: curves 0, 1, 2 and 0, 2, 4 spread by
    // √0.5 = 0.707 at the ends around a mean 0, 1.5, 3 of range 3.
    let steeper = ice_run(
        &[(vec![0.0, 1.0, 2.0], 0.0, 0), (vec![0.0, 2.0, 4.0], 0.0, 0)],
        &[0.0, 0.0, 0.0],
    );
    let relative = |b: f64| {
        format!(
            "shapes_differ: {{ quantity: prediction_ice, where: {{ feature: A }}, bound: {b}, relative: true }}"
        )
    };
    assert_eq!(status(&relative(0.2), &steeper), Status::Pass);
    assert_eq!(status(&relative(0.3), &steeper), Status::Fail);
}

#[test]
fn similar_curves_compares_point_by_point_relative_to_the_range() {
    let out = pd_run(&[
        ("A", vec![0.0, 1.0, 2.0]),
        ("B", vec![0.05, 1.05, 2.05]),
        ("C", vec![2.0, 1.0, 0.0]),
    ]);
    let claim = |f: &str| {
        format!(
            "similar_curves: {{ quantity: prediction_pd, this: {{ feature: A }}, that: {{ feature: {f} }}, tolerance: 0.1 }}"
        )
    };
    let o = check(&claim("B"), None, &out);
    assert_eq!(o.status, Status::Pass);
    assert!((o.measured - 0.025).abs() < 1e-12);
    assert_eq!(status(&claim("C"), &out), Status::Fail);
}

#[test]
fn below_pd_peak_compares_curves_with_the_pd_of_their_feature() {
    // PD peaks at 1.0 (x = 1) inside [0.5, 1.5] and at 3.0 at the grid end (x = 3).
    let pd = [0.0, 1.0, 0.5, 3.0];
    let out = ice_run(
        &[
            (vec![0.0, 0.8, 0.6, 2.0], 1.0, 0),
            (vec![0.0, 1.5, 0.6, 2.5], 1.0, 0),
        ],
        &pd,
    );
    let whole =
        "below_pd_peak: { quantity: prediction_ice, pd: prediction_pd, where: { feature: A } }";
    assert_eq!(status(whole, &out), Status::Pass);
    let inside = "below_pd_peak: { quantity: prediction_ice, pd: prediction_pd, where: { feature: A }, within: [0.5, 1.5] }";
    let o = check(inside, None, &out);
    assert_eq!((o.status, o.measured), (Status::Fail, 0.5));
    // At the rows' own value x = 1: 0.8 passes, 1.5 does not, against the interior peak.
    let own = "below_pd_peak: { quantity: prediction_ice, pd: prediction_pd, where: { feature: A }, at_own_value: true, within: [0.5, 1.5] }";
    assert_eq!(status(own, &out), Status::Fail);
}

#[test]
fn nothing_selected_fails_with_a_nan_measure() {
    let out = scalar_run(&[vec![("q", "A", 1.0)]]);
    let o = check(
        "positive: { quantity: q, where: { feature: Z } }",
        None,
        &out,
    );
    assert_eq!(o.status, Status::Fail);
    assert!(o.measured.is_nan());
}

#[test]
fn a_marked_claim_is_a_known_deviation_while_it_fails_and_stale_once_it_passes() {
    let out = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 1.1)]]);
    let holds = "near: { quantity: q, where: { feature: A }, value: 1.0, tolerance: 0.1 }";
    let fails = "near: { quantity: q, where: { feature: A }, value: 2.0, tolerance: 0.1 }";
    let marker = Some("measured 1.05, not 2");
    let known = check(fails, marker, &out);
    assert_eq!(known.status, Status::KnownDeviation);
    assert!(!known.status.fails());
    assert!(
        (known.measured - 0.95).abs() < 1e-12,
        "the deviation is measured"
    );
    let stale = check(holds, marker, &out);
    assert_eq!(stale.status, Status::StaleMarker);
    assert!(stale.status.fails());
    assert!(
        stale.detail.contains("remove the marker"),
        "{}",
        stale.detail
    );
    let tally = Tally::of(&[known, stale, check(holds, None, &out)]);
    assert_eq!(
        tally,
        Tally {
            passed: 1,
            known: 1,
            failed: 1
        }
    );
    assert_eq!(
        tally.to_string(),
        "1 passed / 1 known deviations / 1 failed"
    );
}

#[test]
fn the_checks_regression_fails_on_a_moved_measure_or_a_changed_status() {
    use crate::regression::Tolerance;
    let dir = std::env::temp_dir().join(format!("xai-checks-regression-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 1.1)]]);
    let claim = |v: f64| {
        format!("near: {{ quantity: q, where: {{ feature: A }}, value: {v}, tolerance: 0.1 }}")
    };
    let committed = vec![check(&claim(2.0), Some("why"), &out)];
    write_outcomes(&dir.join("checks.csv"), &committed).unwrap();
    let same = outcomes_table(&committed);
    assert_eq!(
        regression::checks(&same, &dir, Tolerance::default(), Scale::Ci).status,
        Status::Pass
    );
    // The known deviation's measured value moves: caught, although it still fails.
    let moved = outcomes_table(&[check(&claim(2.5), Some("why"), &out)]);
    let o = regression::checks(&moved, &dir, Tolerance::default(), Scale::Ci);
    assert_eq!(o.status, Status::Fail);
    assert!(o.detail.contains("measured"), "{}", o.detail);
    let passing = outcomes_table(&[check(&claim(1.0), None, &out)]);
    assert_eq!(
        regression::checks(&passing, &dir, Tolerance::default(), Scale::Ci).status,
        Status::Fail
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rank_moves_compares_a_feature_s_place_under_two_quantities() {
    let out = scalar_run(&[vec![
        ("pfi", "A", 3.0),
        ("pfi", "B", 2.0),
        ("pfi", "C", 1.0),
        ("cid", "A", 1.0),
        ("cid", "B", 3.0),
        ("cid", "C", 2.0),
    ]]);
    let claim = |f: &str, d: &str| {
        format!(
            "rank_moves: {{ quantity: cid, from_quantity: pfi, where: {{ feature: {f} }}, direction: {d} }}"
        )
    };
    let down = check(&claim("A", "down"), None, &out);
    assert_eq!((down.status, down.measured), (Status::Pass, 2.0));
    assert_eq!(status(&claim("[B, C]", "up"), &out), Status::Pass);
    let wrong = check(&claim("A", "up"), None, &out);
    assert_eq!((wrong.status, wrong.measured), (Status::Fail, -2.0));
}

#[test]
fn not_inverts_a_claim_but_never_passes_on_nothing_selected() {
    let out = scalar_run(&[vec![("q", "A", 1.0), ("q", "B", 3.0), ("q", "C", 2.0)]]);
    let outside = "not: { in_top: { quantity: q, where: { feature: A }, k: 2 } }";
    assert_eq!(status(outside, &out), Status::Pass);
    let inside = "not: { in_top: { quantity: q, where: { feature: B }, k: 2 } }";
    assert_eq!(status(inside, &out), Status::Fail);
    let nothing = "not: { in_top: { quantity: q, where: { feature: Z }, k: 2 } }";
    assert_eq!(status(nothing, &out), Status::Fail);
}

#[test]
fn a_nan_estimate_decides_no_claim_and_no_negation() {
    // B has no estimate: no ranking, so neither the claim nor its negation holds.
    let out = scalar_run(&[vec![("q", "A", 1.0), ("q", "B", f64::NAN), ("q", "C", 2.0)]]);
    for claim in [
        "in_top: { quantity: q, where: { feature: A }, k: 2 }",
        "not: { in_top: { quantity: q, where: { feature: A }, k: 2 } }",
        "ranked_above: { quantity: q, this: { feature: C }, than: { feature: A }, share: 1 }",
    ] {
        let o = check(claim, None, &out);
        assert_eq!(o.status, Status::Fail, "{claim}: {o:?}");
        assert!(o.measured.is_nan(), "{claim}");
    }
    // A curve with a NaN point: neither a bump nor its absence can be claimed.
    let nan_curve = pd_run(&[("A", vec![0.0, 0.1, f64::NAN, 0.1, 0.0])]);
    for claim in [
        "interior_peak: { quantity: prediction_pd, where: { feature: A }, lower: 1, upper: 3 }",
        "not: { interior_peak: { quantity: prediction_pd, where: { feature: A }, lower: 1, upper: 3 } }",
    ] {
        assert_eq!(status(claim, &nan_curve), Status::Fail, "{claim}");
    }
}

#[test]
fn monotone_needs_two_points_to_judge_a_trend() {
    let mut tidy = Vec::new();
    for (r, d) in [-0.01, 0.0, 0.01].into_iter().enumerate() {
        tidy.push(row(&["10"], r, "q", "A", None, 1.0 + d));
    }
    let out = run_of(&["n"], tidy, Vec::new());
    let claim =
        "monotone: { quantities: [q], where: { feature: A }, along: n, direction: increasing }";
    assert_eq!(status(claim, &out), Status::Fail);
}

#[test]
fn a_marker_per_scale_applies_at_the_scales_it_names_only() {
    let mut out = scalar_run(&[vec![("q", "A", 1.0)], vec![("q", "A", 1.1)]]);
    let fails = "near: { quantity: q, where: { feature: A }, value: 2.0, tolerance: 0.1 }";
    let holds = "near: { quantity: q, where: { feature: A }, value: 1.0, tolerance: 0.1 }";
    let at_paper: Deviation =
        serde_saphyr::from_str("{ paper: \"measured 1.05 at paper scale\" }").unwrap();
    let outcome = |yaml: &str, out: &RunOutput| {
        let spec = CheckSpec {
            claim: "c".into(),
            kind: ClaimKind::Paper,
            assert: serde_saphyr::from_str(yaml).unwrap(),
            expected_to_differ: Some(at_paper.clone()),
            tolerance_from: None,
        };
        evaluate(&spec, out, &[], 0.95).status
    };
    // At ci the marker does not apply: the failing claim fails, the holding one passes.
    assert_eq!(outcome(fails, &out), Status::Fail);
    assert_eq!(outcome(holds, &out), Status::Pass);
    out.scale = Scale::Paper;
    assert_eq!(outcome(fails, &out), Status::KnownDeviation);
    assert_eq!(outcome(holds, &out), Status::StaleMarker);
}

#[test]
fn paper_cells_hold_to_the_printed_digits_and_fail_beyond_them() {
    let table: TableSpec = serde_saphyr::from_str(
        "{ name: t, rows: [feature], decimals: 3, columns: [{ header: c, quantity: q, paper: { A: 1.2, B: 0.0 } }, { header: d, quantity: r }] }",
    )
    .unwrap();
    let judge = |a: f64, claim: &str| {
        let out = scalar_run(&[vec![("q", "A", a), ("q", "B", 0.0), ("r", "A", 9.0)]]);
        verdict(
            &serde_saphyr::from_str(claim).unwrap(),
            &out,
            std::slice::from_ref(&table),
            0.95,
        )
    };
    let one_decimal = "paper_cells: { table: t, decimals: 1 }";
    // 1.2449 prints as 1.2; 1.2501 as 1.3. Column d has no paper values.
    let v = judge(1.2449, one_decimal);
    assert!(v.holds && (v.measured - 0.898).abs() < 1e-9, "{v:?}");
    assert!(v.detail.starts_with("2 of 2 cells"), "{}", v.detail);
    let v = judge(1.2501, one_decimal);
    assert!(!v.holds && v.detail.contains("A / c"), "{v:?}");
    // Two significant digits of 1.2 are one decimal; three are two.
    assert!(judge(1.2449, "paper_cells: { table: t, significant: 2 }").holds);
    assert!(!judge(1.2449, "paper_cells: { table: t, significant: 3 }").holds);
    // A table without a paper value, or none of that name, decides nothing.
    assert!(
        judge(1.2, "paper_cells: { table: t, columns: [d], decimals: 1 }")
            .measured
            .is_nan()
    );
    assert!(
        judge(1.2, "paper_cells: { table: u, decimals: 1 }")
            .measured
            .is_nan()
    );
}

#[test]
fn positive_in_each_replicate_asks_it_of_every_trial() {
    let claim =
        "positive: { quantity: q, where: { feature: A }, above: 0.5, each_replicate: true }";
    let all = scalar_run(&[
        vec![("q", "A", 0.7)],
        vec![("q", "A", 0.6)],
        vec![("q", "A", 0.55)],
    ]);
    let o = check(claim, None, &all);
    assert_eq!((o.status, o.measured), (Status::Pass, 0.55), "{}", o.detail);
    // The mean 0.75's interval may clear 0.5 while one trial does not.
    let one_below = scalar_run(&[
        vec![("q", "A", 0.9)],
        vec![("q", "A", 0.9)],
        vec![("q", "A", 0.45)],
    ]);
    let o = check(claim, None, &one_below);
    assert_eq!((o.status, o.measured), (Status::Fail, 0.45), "{}", o.detail);
    assert!(o.detail.contains("replicate 2 A 0.45"), "{}", o.detail);
}

/// `across` judges a claim on each independent sample alone: A exceeds B over the
/// three replicates of samples 1 and 2 and falls below it in sample 3, so "A above B"
/// holds on 2 of 3 samples: it passes with share 0.5 (2 ≥ ⌈1.5⌉), fails on every
/// sample (share 1), and a key the run lacks fails.
#[test]
fn across_counts_the_samples_on_which_the_inner_claim_holds() {
    let mut tidy = Vec::new();
    for (sample, gap) in [("1", 2.0), ("2", 1.5), ("3", -1.0)] {
        for (r, noise) in [0.0, 0.1, -0.1].into_iter().enumerate() {
            tidy.push(row(&[sample], r, "q", "A", None, 1.0 + gap + noise));
            tidy.push(row(&[sample], r, "q", "B", None, 1.0 - noise));
        }
    }
    let out = run_of(&["sample"], tidy, Vec::new());
    let inner = "greater: { quantity: q, this: { feature: A }, than: { feature: B } }";
    let half = format!("across: {{ key: sample, share: 0.5, assert: {{ {inner} }} }}");
    let o = check(&half, None, &out);
    assert_eq!(o.status, Status::Pass, "{o:?}");
    assert!((o.measured - 2.0 / 3.0).abs() < 1e-12);
    assert!(
        o.detail.contains("holds on 2 of 3 values of sample"),
        "{}",
        o.detail
    );
    assert!(o.detail.contains("sample=3: fails"), "{}", o.detail);
    let every = format!("across: {{ key: sample, assert: {{ {inner} }} }}");
    assert_eq!(status(&every, &out), Status::Fail);
    // A key the run lacks decides nothing: a failure with a NaN measure.
    let missing = format!("across: {{ key: seed, assert: {{ {inner} }} }}");
    assert!(check(&missing, None, &out).measured.is_nan());
    assert_eq!(status(&missing, &out), Status::Fail);
    // Its share is a threshold, with the inner assertion's: a source is required.
    let spec: Assertion = serde_saphyr::from_str(&half).unwrap();
    assert_eq!(
        spec.kind().thresholds(),
        vec![tolerance::Threshold::always("share", 0.5)]
    );
}
