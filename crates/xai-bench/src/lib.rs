//! xai-bench
