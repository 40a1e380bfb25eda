//! Neural networks on CPU tensors with autograd (candle, `../shared/NN.md`): the
//! MLP and MC-dropout networks of [`mlp`], the Bayes-by-backprop network of
//! [`bayes`] (wood2024 Fig. 1, 8, 10–15) and the MC-dropout CNN of [`cnn`]
//! (watson2023 Fig. 1a).
//!
//! Every fitted network is an ensemble of M plain networks, its *members*, whose
//! predictive distribution is their equal-weight mixture
//! ([`xai_core::Predictions::mixture`]): one member for a plain MLP, the T dropout
//! masks of MC dropout or the S weight samples of Bayes by backprop otherwise. The
//! members are drawn once, at the end of the fit, from the replicate's stream, so a
//! fitted model is a fixed function: PFI's permuted rows and a PD grid's copies see
//! the same T masks as the original rows (common random numbers), and
//! [`xai_core::Model::predict_members`] splits entropy into its aleatoric and
//! epistemic parts (watson2023 §5).
//!
//! Seeding (NN.md): candle's CPU random functions use an unseeded thread RNG, so none
//! is called. Weight initialisation, each epoch's minibatch order, training dropout
//! masks, Bayes-by-backprop's weight noise and the members' masks and weights all come
//! from the replicate's own stream, in that order, and enter candle through
//! `Tensor::from_vec`; the predictions are then the same bits on any thread count
//! (tested in child processes with RAYON_NUM_THREADS = 1 and 2, which candle reads to
//! size its matrix products). Arithmetic is in f32, as PyTorch's default.

pub mod bayes;
pub mod cnn;
mod head;
pub mod mlp;
mod net;

pub use bayes::{BayesLearner, BayesParams};
pub use cnn::{CnnLearner, CnnParams};
pub use mlp::{MlpLearner, MlpParams};
pub use net::Network;

#[cfg(test)]
mod tests;
