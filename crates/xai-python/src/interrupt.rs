//! Long calls stop on Ctrl-C: the engine works on a thread of its own while the
//! interpreter's main thread waits, checking Python's signals every
//! [`POLL`]; on a `KeyboardInterrupt` the call's stop is requested, the engine ends
//! at its next block of work (between methods, refits, calls into the model) and the
//! interrupt is raised. A run's finished cells stay on disk (it resumes); a call
//! returns nothing.

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use pyo3::prelude::*;
use xai_core::stop::Stop;

/// How often the waiting thread checks Python's signals.
const POLL: Duration = Duration::from_millis(100);

/// `work`'s result, computed on a scoped thread while this thread (the interpreter's)
/// waits with the GIL released, checking signals every [`POLL`]; on a signal's
/// exception (`KeyboardInterrupt`) `stop` is requested and, once `work` has ended,
/// that exception is returned instead of its result.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &Stop,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let (tx, mut rx) = channel();
        scope.spawn(move || {
            let _ = tx.send(work());
        });
        let mut interrupted: Option<PyErr> = None;
        loop {
            let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
            rx = back;
            match got {
                Ok(out) => return interrupted.map_or(Ok(out), Err),
                Err(RecvTimeoutError::Timeout) => {
                    if interrupted.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        stop.request();
                        interrupted = Some(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(interrupted.unwrap_or_else(|| {
                        crate::raise(
                            "XaiError",
                            "the engine's thread ended without a result (a bug: please \
                             report it)"
                                .into(),
                        )
                    }));
                }
            }
        }
    })
}
