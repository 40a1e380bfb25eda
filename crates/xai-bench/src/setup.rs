//! What a run needs before its cells ([`Setup`]): the variants of an experiment at a
//! scale, the rows each is split from, the cells in the run's order and the thread
//! pool sized for them.

use std::sync::Arc;

use xai_core::Dataset;

use crate::checked::CheckedMethods;
use crate::error::{BenchError, Result};
use crate::plan::{Job, Variant};

/// What a run needs before its cells: the job, its variants, their data, the cells in
/// their order, and the thread pool.
pub(crate) struct Setup<'a> {
    pub(crate) job: Job<'a>,
    pub(crate) variants: Vec<Variant>,
    pub(crate) data: Vec<Option<Arc<Dataset>>>,
    /// Each variant's methods, checked against its data: what its cells compute.
    pub(crate) methods: Vec<CheckedMethods>,
    pub(crate) replicates: usize,
    /// (variant, replicate) of every cell, variant-major: the run's order.
    pub(crate) tasks: Vec<(usize, usize)>,
    pub(crate) pool: rayon::ThreadPool,
}

impl<'a> Setup<'a> {
    /// The setup of `job`: its variants with their data files resolved, their data
    /// loaded, their methods checked against it, and the memory each cell in flight
    /// needs checked.
    pub(crate) fn new(job: Job<'a>) -> Result<Setup<'a>> {
        let Job {
            exp,
            scale,
            threads,
            ..
        } = job;
        let mut variants = exp.variants(scale)?;
        for v in &mut variants {
            crate::data_files::resolve(&mut v.spec)?;
        }
        let data = crate::rows::load_data(exp, &variants)?;
        let methods = variants
            .iter()
            .zip(&data)
            .map(|(v, d)| exp.checked_methods(v, d.as_deref()))
            .collect::<Result<Vec<_>>>()?;
        let replicates = exp.scale(scale).replicates;
        let pool = pool(threads)?;
        let in_flight = pool.current_num_threads().min(replicates * variants.len());
        for (v, variant) in variants.iter().enumerate() {
            exp.check_memory(variant, data[v].as_deref(), in_flight)?;
        }
        let tasks = (0..variants.len())
            .flat_map(|v| (0..replicates).map(move |r| (v, r)))
            .collect();
        Ok(Setup {
            job,
            variants,
            data,
            methods,
            replicates,
            tasks,
            pool,
        })
    }
}

/// A pool of `threads` threads; 0: every core, counted here rather than by rayon,
/// whose default follows RAYON_NUM_THREADS (which `cargo xtask` and the Python package
/// set to 1 for candle's products).
pub(crate) fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BenchError::Threads {
            threads,
            message: e.to_string(),
        })
}

/// `compute`'s result, with a panic inside it (a bug, not an input) caught and
/// returned as [`BenchError::Panicked`] naming `place()` (a cell: [`cell_place`]): the
/// run then ends with that error, and the cells finished before it stay on disk.
pub(crate) fn caught<T>(
    place: impl FnOnce() -> String,
    compute: impl FnOnce() -> Result<T>,
) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(compute)).unwrap_or_else(|payload| {
        let message = match (
            payload.downcast_ref::<&str>(),
            payload.downcast_ref::<String>(),
        ) {
            (Some(s), _) => s.to_string(),
            (None, Some(s)) => s.clone(),
            (None, None) => "a panic without a message".into(),
        };
        Err(BenchError::Panicked {
            place: place(),
            message,
        })
    })
}

/// "variant <labels>, replicate <r>": where cell (`variant`, `r`) is, for an error.
pub(crate) fn cell_place(variant: &Variant, r: usize) -> String {
    format!("variant {}, replicate {r}", variant.describe())
}
