//! Where the workspace is, and paths as they are recorded in outputs: relative to its
//! root, so committed files never hold a machine's absolute path.

use std::path::{Path, PathBuf};

/// The workspace root: the nearest ancestor of the current directory holding
/// `experiments/`, else the directory this crate was built from.
pub fn workspace_root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::current_dir()
        .ok()
        .and_then(|d| {
            d.ancestors()
                .find(|a| a.join("experiments").is_dir())
                .map(Path::to_path_buf)
        })
        .unwrap_or(built)
}

/// `path` relative to `root` with `/` separators (`experiments/wood2024-fig4.yaml`);
/// a path outside the root keeps only its file name, so no absolute path leaks.
pub fn relative_to(root: &Path, path: &Path) -> String {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (root, path) = (canon(root), canon(path));
    match path.strip_prefix(&root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
    }
}

/// The git commit checked out in the current directory, if git says.
pub fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The SIMD instruction sets this processor offers that the linear algebra (faer)
/// chooses between at run time: `x86-64-v4` (AVX-512), `x86-64-v3` (AVX2 and FMA) or
/// `x86-64` on x86-64, else the architecture's name. Results can differ in the last
/// bits between levels, so manifests record it.
pub fn simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            "x86-64-v4"
        } else if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
        {
            "x86-64-v3"
        } else {
            "x86-64"
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH
    }
}

/// This machine's host name (`gethostname`), or "an unknown host".
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
        if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            if end > 0 {
                return String::from_utf8_lossy(&buf[..end]).into_owned();
            }
        }
    }
    "an unknown host".into()
}

/// `getrusage(who)`, where the platform has it.
#[cfg(unix)]
fn usage(who: libc::c_int) -> Option<libc::rusage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes one `rusage` into the zeroed value it points at; it is
    // read only when the call succeeds, which initialises it.
    (unsafe { libc::getrusage(who, usage.as_mut_ptr()) } == 0)
        .then(|| unsafe { usage.assume_init() })
}

/// CPU seconds (user and system, every thread) this process has used so far; NaN
/// where the platform does not tell.
pub fn cpu_seconds() -> f64 {
    #[cfg(unix)]
    if let Some(u) = usage(libc::RUSAGE_SELF) {
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        return secs(u.ru_utime) + secs(u.ru_stime);
    }
    f64::NAN
}

/// The largest peak resident set size of this process's ended children, in bytes
/// (Linux reports KiB); NaN where the platform does not tell.
pub fn children_peak_rss_bytes() -> f64 {
    #[cfg(unix)]
    if let Some(u) = usage(libc::RUSAGE_CHILDREN) {
        return u.ru_maxrss as f64 * 1024.0;
    }
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_recorded_relative_to_the_root() {
        let root = workspace_root();
        let yaml = root.join("experiments").join("wood2024-fig4.yaml");
        assert_eq!(relative_to(&root, &yaml), "experiments/wood2024-fig4.yaml");
        assert_eq!(
            relative_to(&root, Path::new("/somewhere/else/x.yaml")),
            "x.yaml"
        );
    }
}
