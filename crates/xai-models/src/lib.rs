//! xai-models
