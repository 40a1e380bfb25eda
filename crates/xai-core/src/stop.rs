//! A request to stop a long computation, set from outside it (a front end's Ctrl-C)
//! and checked between blocks of work: between the methods of a model, the refits of
//! learner inference, the calls into a foreign model. A computation that sees it
//! returns [`CoreError::Interrupted`] at once, leaving nothing half-written.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{CoreError, Result};

/// Whether a stop was requested; cheap to check.
#[derive(Debug, Default)]
pub struct Stop(AtomicBool);

impl Stop {
    /// Requests the stop: every later [`Stop::check`] fails.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// [`CoreError::Interrupted`] once a stop is requested, else `Ok`.
    pub fn check(&self) -> Result<()> {
        match self.0.load(Ordering::Relaxed) {
            true => Err(CoreError::Interrupted),
            false => Ok(()),
        }
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
    }
}
