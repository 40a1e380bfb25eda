//! Helpers shared by the tests that run the `xtask` binary.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root, where the binary runs.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory `xai-<test>-<name>-<pid>` under the system's temp dir.
pub fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xai-{test}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `xtask <args>` from the workspace root.
pub fn xtask(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xtask"));
    c.args(args).current_dir(root());
    c
}
