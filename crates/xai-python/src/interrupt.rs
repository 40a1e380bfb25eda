//! Long calls are visible and stop on Ctrl-C: the engine works on a thread of its own
//! while the interpreter's main thread waits, checking Python's signals every
//! [`POLL`]. On a `KeyboardInterrupt` the call's stop is requested, the engine ends at
//! its next block of work (between methods, refits, calls into the model) and the
//! interrupt is raised; a run's finished cells stay on disk (it resumes), a call
//! returns nothing. A call still working after [`QUIET`] shows a progress line on an
//! interactive stderr (none in a log or a notebook whose stderr is not a terminal).

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use crate::foreign::Sink;

/// How often the waiting thread checks Python's signals.
const POLL: Duration = Duration::from_millis(100);

/// How long a call works before its progress line shows.
const QUIET: Duration = Duration::from_secs(2);

/// `work`'s result, computed on a scoped thread while this thread (the interpreter's)
/// waits with the GIL released, checking signals every [`POLL`]; on a signal's
/// exception (`KeyboardInterrupt`) the stop of `sink` is requested and, once `work`
/// has ended, that exception is returned instead of its result. With `show`, a call
/// longer than [`QUIET`] writes a progress line, `label` and the time, the refit
/// begun of those the engine planned (`Stop::progress`), and the fits and model calls
/// so far, to a terminal's stderr, and clears it at the end.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    sink: &Sink,
    (label, show): (&str, bool),
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let start = Instant::now();
    let show = show && std::io::stderr().is_terminal();
    let mut shown = false;
    let out = std::thread::scope(|scope| {
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
                        sink.stop().request();
                        interrupted = Some(e);
                    }
                    if show && start.elapsed() >= QUIET {
                        let (fits, calls) = sink.calls();
                        let stopping = match interrupted {
                            Some(_) => "stopping at the next block",
                            None => "Ctrl-C stops it",
                        };
                        let blocks = match sink.stop().progress() {
                            (_, 0) => String::new(),
                            (begun, planned) => format!("refit {begun} of {planned}, "),
                        };
                        eprint!(
                            "\r{label}: {:.0} s, {blocks}{fits} fits and {calls} model calls so \
                             far; {stopping} ",
                            start.elapsed().as_secs_f64()
                        );
                        shown = true;
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
    });
    if shown {
        eprintln!(
            "\r{label}: done in {:.1} s{:40}",
            start.elapsed().as_secs_f64(),
            ""
        );
        let _ = std::io::stderr().flush();
    }
    out
}
