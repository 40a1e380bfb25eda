//! `cargo xtask test`: every test of the project in one command: the workspace's Rust
//! tests, then the Python package (`crates/xai-python`) installed into a fresh
//! virtual environment as a user installs it (`pip install`), and its pytest suite.

use std::path::Path;
use std::process::Command;

use xai_bench::BenchError;

/// The Python package's directory, relative to the workspace root.
const PACKAGE: &str = "crates/xai-python";

/// Runs `cmd` in `root`, failing with `what` and its exit status.
fn step(root: &Path, what: &str, cmd: &mut Command) -> Result<(), BenchError> {
    println!("== {what}");
    let status = cmd
        .current_dir(root)
        .status()
        .map_err(|e| BenchError::Process {
            what: what.to_string(),
            message: format!("could not start it: {e}"),
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(BenchError::Process {
            what: what.to_string(),
            message: format!("failed ({status})"),
        })
    }
}

/// The Rust tests, unless `python_only`; then, with `python` (an interpreter, e.g.
/// `python3`), a fresh virtual environment in `target/xaiws-venv`, the package
/// installed into it with its test extras (pip fetches maturin; the build shares
/// the workspace's `target/`), and pytest on the package's tests.
pub fn run(root: &Path, python: &str, python_only: bool) -> Result<bool, BenchError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if !python_only {
        step(
            root,
            "cargo test --workspace --release",
            Command::new(&cargo).args(["test", "--workspace", "--release"]),
        )?;
    }
    let target = root.join("target");
    let venv = target.join("xaiws-venv");
    if venv.exists() {
        std::fs::remove_dir_all(&venv).map_err(|source| BenchError::Io {
            path: venv.clone(),
            source,
        })?;
    }
    step(
        root,
        "a fresh virtual environment",
        Command::new(python).arg("-m").arg("venv").arg(&venv),
    )?;
    let bin = venv.join("bin");
    step(
        root,
        "pip install --upgrade pip",
        Command::new(bin.join("python")).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--upgrade",
            "pip",
        ]),
    )?;
    step(
        root,
        &format!("pip install ./{PACKAGE}[test]"),
        Command::new(bin.join("python"))
            .args(["-m", "pip", "install", &format!("./{PACKAGE}[test]")])
            .env("CARGO_TARGET_DIR", &target),
    )?;
    step(
        root,
        "python -c 'import xaiws'",
        Command::new(bin.join("python"))
            .args(["-c", "import xaiws; print('xaiws', xaiws.__version__)"]),
    )?;
    step(
        root,
        "pytest (the Python package's tests and examples)",
        Command::new(bin.join("python")).args(["-m", "pytest", "-q", &format!("{PACKAGE}/tests")]),
    )?;
    Ok(true)
}
