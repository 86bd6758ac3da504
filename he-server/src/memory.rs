//! [`MemoryGate`]: the server's memory budget, shared by the key sets it holds loaded and the
//! jobs it runs, so that admitted work never adds up to more than the budget.

use std::sync::{Condvar, Mutex};

/// Bytes in use against a budget; callers wait for room.
pub struct MemoryGate {
    budget: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

impl MemoryGate {
    /// A gate of `budget` bytes.
    pub fn new(budget: u64) -> MemoryGate {
        MemoryGate {
            budget,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// The budget.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// Bytes in use now.
    pub fn used(&self) -> u64 {
        self.used.lock().map_or(self.budget, |u| *u)
    }

    /// Takes `bytes` if they fit now; false otherwise.
    pub fn try_take(&self, bytes: u64) -> bool {
        let Ok(mut used) = self.used.lock() else {
            return false;
        };
        if used.saturating_add(bytes) <= self.budget {
            *used += bytes;
            true
        } else {
            false
        }
    }

    /// Takes `bytes`, waiting until they fit, calling `make_room` (which may give some back,
    /// by unloading idle key sets) each time they do not. False if `bytes` exceed the whole
    /// budget, which no waiting cures.
    pub fn take(&self, bytes: u64, make_room: &dyn Fn() -> bool) -> bool {
        if bytes > self.budget {
            return false;
        }
        loop {
            if self.try_take(bytes) {
                return true;
            }
            if make_room() {
                continue;
            }
            let Ok(used) = self.used.lock() else {
                return false;
            };
            // Woken by a release, or every second to retry `make_room` (a key set that was
            // in use may have become idle).
            let _ = self
                .freed
                .wait_timeout(used, std::time::Duration::from_secs(1));
        }
    }

    /// Gives `bytes` back.
    pub fn give(&self, bytes: u64) {
        if let Ok(mut used) = self.used.lock() {
            *used = used.saturating_sub(bytes);
        }
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn takers_wait_for_room_and_never_exceed_the_budget() {
        let gate = Arc::new(MemoryGate::new(100));
        assert!(!gate.take(101, &|| false));
        assert!(gate.try_take(60));
        assert!(!gate.try_take(50));
        let waiter = {
            let gate = Arc::clone(&gate);
            std::thread::spawn(move || gate.take(50, &|| false))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(gate.used(), 60);
        gate.give(60);
        assert!(waiter.join().unwrap());
        assert_eq!(gate.used(), 50);
        // Room made on demand.
        let made = std::sync::atomic::AtomicBool::new(false);
        assert!(gate.take(60, &|| {
            let first = !made.swap(true, std::sync::atomic::Ordering::SeqCst);
            if first {
                gate.give(50);
            }
            first
        }));
        assert_eq!(gate.used(), 60);
    }
}
