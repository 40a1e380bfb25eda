//! Saturating byte arithmetic for the memory estimates of [`crate::LearnerSpec`]
//! (`fit_memory_bytes`, `predict_memory_bytes`): sizes such as 10¹¹ rows square past
//! u64, and a nonsensical size must give a huge estimate, not a wrapped small one.

/// Σ_i Π_j `terms[i][j]`, saturating at `u128::MAX`.
pub(crate) fn bytes(terms: &[&[u128]]) -> u128 {
    terms.iter().fold(0u128, |sum, factors| {
        sum.saturating_add(factors.iter().fold(1u128, |p, &f| p.saturating_mul(f)))
    })
}

/// Threads that run trees or row chunks at once (rayon's pool).
pub(crate) fn threads() -> u128 {
    rayon::current_num_threads() as u128
}
