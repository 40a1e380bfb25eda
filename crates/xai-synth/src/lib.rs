//! xai-synth
