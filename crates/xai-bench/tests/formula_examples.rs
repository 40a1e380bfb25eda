//! The DGPs written as formulas in `experiments/examples/` reproduce the Rust DGPs
//! (issue 34): molnar2023's two and wood2024's correlated Gaussian to the bit,
//! watson2023's Friedman variance DGP within Monte-Carlo error. Each example states
//! its claims as checks; every check passes at ci scale.

use xai_bench::checks::Status;
use xai_bench::commands::paper_checks;
use xai_bench::plan::{Experiment, Scale};
use xai_bench::workspace::workspace_root;

#[test]
fn the_formula_examples_reproduce_the_rust_dgps() {
    for (file, checks) in [
        ("formula-molnar.yaml", 6),
        ("formula-correlated-gaussian.yaml", 5),
        ("formula-friedman-variance.yaml", 4),
    ] {
        let exp =
            Experiment::load(&workspace_root().join("experiments/examples").join(file)).unwrap();
        let out = xai_bench::run::run(&exp, Scale::Ci, 0, false).unwrap();
        let outcomes = paper_checks(&exp, &out);
        assert_eq!(outcomes.len(), checks, "{file}");
        for o in outcomes {
            assert_eq!(o.status, Status::Pass, "{file}: {}: {}", o.name, o.detail);
        }
    }
}
