//! One run at a time per cell directory: an exclusive lock on a file beside it,
//! so a second run started into the same directory refuses at once instead of
//! computing every cell a second time. The operating system releases the lock when
//! its process ends in any way (a Slurm time limit, `kill -9`), so a resumed run,
//! on this node or another, takes it again; the file names the last holder, for the
//! message.

use std::fs::{File, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::Path;

use crate::error::{BenchError, Result, io_err};

/// A held lock, released when this is dropped (or the process ends).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// "process <pid> on <host>".
fn holder() -> String {
    format!(
        "process {} on {}",
        std::process::id(),
        crate::workspace::host_name()
    )
}

/// Tries an exclusive lock of `file` without waiting ([`File::try_lock`], `flock` on
/// Unix): `Ok(true)` when taken, `Ok(false)` when another process holds it. Where the
/// file system cannot lock (`ENOLCK`, `EOPNOTSUPP`) the run goes on unlocked, with a
/// warning.
fn try_lock(file: &File, path: &Path) -> Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(e)) if cannot_lock(&e) => {
            eprintln!(
                "warning: {} cannot be locked on this file system ({e}); nothing stops a \
                 second run into the same directory",
                path.display()
            );
            Ok(true)
        }
        Err(TryLockError::Error(e)) => Err(io_err(path)(e)),
    }
}

/// The file system offers no locks: `EOPNOTSUPP` (std's `Unsupported`) or `ENOLCK`.
fn cannot_lock(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    let no_locks = e.raw_os_error() == Some(libc::ENOLCK);
    #[cfg(not(unix))]
    let no_locks = false;
    no_locks || e.kind() == std::io::ErrorKind::Unsupported
}

impl RunLock {
    /// Takes the lock of the cell directory `dir` (the file `<dir>.lock`); refuses,
    /// naming the holder, while another process holds it.
    pub fn take(dir: &Path) -> Result<RunLock> {
        let mut name = dir.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let path = dir.with_file_name(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err(&path))?;
        if !try_lock(&file, &path)? {
            let mut other = String::new();
            let _ = file.read_to_string(&mut other);
            return Err(BenchError::Locked {
                dir: dir.to_path_buf(),
                holder: match other.trim() {
                    "" => "its process is not named".to_string(),
                    named => named.to_string(),
                },
            });
        }
        let me = holder();
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()))
            .map_err(io_err(&path))?;
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_is_refused_until_the_first_ends() {
        let dir = std::env::temp_dir()
            .join(format!("xai-lock-{}", std::process::id()))
            .join("cells");
        let held = RunLock::take(&dir).unwrap();
        let err = RunLock::take(&dir).unwrap_err().to_string();
        assert!(err.contains("another run"), "{err}");
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(held);
        // Released (as when its process ends): taken again, with the file left behind.
        drop(RunLock::take(&dir).unwrap());
        drop(RunLock::take(&dir).unwrap());
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }
}
