//! The memory a run needs, checked before any allocation: a size that cannot fit
//! fails with one readable error naming the field and the memory it would take,
//! instead of aborting the process mid-run.

use std::collections::BTreeMap;

use crate::methods::MethodSpec;
use crate::results::Invalid;
use xai_models::{LearnerKind, LearnerSpec};

/// Bytes of one f64.
const F64: u128 = 8;

/// The memory this machine offers: `MemAvailable` of `/proc/meminfo`, else (other
/// systems) 64 GiB, so the check still catches sizes that fit nowhere.
fn available_bytes() -> u128 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u128>().ok())
        })
        .map_or(64 << 30, |kib| kib * 1024)
}

/// "4.8 TB", "512 MB".
fn human(bytes: u128) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    format!("{v:.1} {}", units[u])
}

/// The peak memory of `in_flight` replicates run at once (one per worker thread),
/// each the sum of estimates of allocations alive together: the data
/// (n_train + n_test rows × (p + 1) values), and the larger of the largest learner fit
/// ([`xai_models::LearnerKind::fit_memory_bytes`]) and the largest prediction batch,
/// the stacked perturbed copies a method predicts at once (rows × p values) plus the
/// model's predict call on them ([`xai_models::LearnerKind::predict_memory_bytes`]),
/// plus the largest memory a method holds besides
/// ([`crate::methods::Method::held_bytes`]: every refit's values, every sampled
/// coalition).
/// Refuses, naming the setting to lower (the method's that sizes the largest batch,
/// [`crate::methods::Method::batch_setting`], or `n_train`), when the estimate exceeds
/// the memory available.
pub fn check(
    methods: &[MethodSpec],
    models: &BTreeMap<String, LearnerSpec>,
    (n_train, n_test, p): (usize, usize, usize),
    in_flight: usize,
) -> Result<(), Invalid> {
    let data = (n_train as u128 + n_test as u128) * (p as u128 + 1) * F64;
    let (rows, setting) = methods
        .iter()
        .map(MethodSpec::method)
        .map(|m| (m.predict_rows(n_test), m.batch_setting(n_test)))
        .max_by_key(|&(rows, _)| rows)
        .unwrap_or((n_test, "n_test"));
    let (held, held_by) = methods
        .iter()
        .map(MethodSpec::method)
        .map(|m| m.held_bytes(n_test, p))
        .max_by_key(|&(bytes, _)| bytes)
        .unwrap_or((0, "n_test"));
    let (n_train, rows, p) = (n_train as u128, rows as u128, p as u128);
    let (mut fit, mut predict) = (0u128, 0u128);
    for learner in models.values() {
        fit = fit.max(learner.fit_memory_bytes(n_train, p));
        predict = predict.max(rows * p * F64 + learner.predict_memory_bytes(n_train, rows, p));
    }
    let in_flight = in_flight.max(1) as u128;
    let need = in_flight * (data + fit.max(predict) + held);
    let have = available_bytes();
    if need <= have {
        return Ok(());
    }
    let field = match held.max(predict) > fit.max(data) {
        true if held > predict => held_by,
        true => setting,
        false => "n_train",
    };
    Err(Invalid::new(
        field,
        format!(
            "`{field}` is too large: n_train = {n_train}, n_test = {n_test} with {p} features \
             would need about {} for {in_flight} replicates at once (each: data {}, model \
             fit {}, largest prediction batch of {rows} rows, set by `{setting}`, {}, \
             values held, set by `{held_by}`, {}), but {} is available; lower `{field}`, \
             or run on fewer threads",
            human(need),
            human(data),
            human(fit),
            human(predict),
            human(held),
            human(have)
        ),
    ))
}
