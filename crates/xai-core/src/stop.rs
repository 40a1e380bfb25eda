//! A request to stop a long computation, set from outside it (a front end's Ctrl-C)
//! and checked between blocks of work: between the methods of a model, the refits of
//! learner inference, the calls into a foreign model. A computation that sees it
//! returns [`CoreError::Interrupted`] at once, leaving nothing half-written. The same
//! handle counts the blocks planned and begun, for a front end's progress line.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{CoreError, Result};

/// Whether a stop was requested, and how many blocks of work are planned and begun;
/// cheap to check and to count.
#[derive(Debug, Default)]
pub struct Stop {
    requested: AtomicBool,
    planned: AtomicUsize,
    begun: AtomicUsize,
}

impl Stop {
    /// Requests the stop: every later [`Stop::check`] fails.
    pub fn request(&self) {
        self.requested.store(true, Ordering::Relaxed);
    }

    /// [`CoreError::Interrupted`] once a stop is requested, else `Ok`.
    pub fn check(&self) -> Result<()> {
        match self.requested.load(Ordering::Relaxed) {
            true => Err(CoreError::Interrupted),
            false => Ok(()),
        }
    }

    /// Adds `blocks` to the work planned (a method's refits), before it starts.
    pub fn plan(&self, blocks: usize) {
        self.planned.fetch_add(blocks, Ordering::Relaxed);
    }

    /// [`Stop::check`], then counts one planned block as begun.
    pub fn begin_block(&self) -> Result<()> {
        self.check()?;
        self.begun.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// (blocks begun, blocks planned); (0, 0) when nothing planned blocks.
    pub fn progress(&self) -> (usize, usize) {
        (
            self.begun.load(Ordering::Relaxed),
            self.planned.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requested_stop_fails_every_later_check() {
        let stop = Stop::default();
        assert!(stop.check().is_ok());
        stop.request();
        assert!(matches!(stop.check(), Err(CoreError::Interrupted)));
        assert!(matches!(stop.check(), Err(CoreError::Interrupted)));
        assert!(matches!(stop.begin_block(), Err(CoreError::Interrupted)));
    }

    #[test]
    fn blocks_begun_count_against_those_planned() {
        let stop = Stop::default();
        assert_eq!(stop.progress(), (0, 0));
        stop.plan(3);
        stop.plan(2);
        stop.begin_block().unwrap();
        stop.begin_block().unwrap();
        assert_eq!(stop.progress(), (2, 5));
        stop.request();
        assert!(stop.begin_block().is_err());
        assert_eq!(stop.progress(), (2, 5), "a refused block is not begun");
    }
}
