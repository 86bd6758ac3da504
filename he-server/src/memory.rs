//! [`MemoryGate`]: the server's memory budget, shared by the key sets it holds loaded and the
//! jobs it runs, so that admitted work never adds up to more than the budget.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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

    /// Takes `bytes` if they fit now: a [`Permit`] that gives them back when dropped.
    pub fn try_take(self: &Arc<Self>, bytes: u64) -> Option<Permit> {
        let mut used = self.used.lock().ok()?;
        if used.saturating_add(bytes) <= self.budget {
            *used += bytes;
            Some(Permit {
                gate: Arc::clone(self),
                bytes,
            })
        } else {
            None
        }
    }

    /// Takes `bytes`, waiting until they fit or `patience` has passed, calling `make_room`
    /// (which may give some back, by unloading idle key sets) each time they do not. `None`
    /// if `bytes` exceed the whole budget, which no waiting cures, or on timeout.
    pub fn take(
        self: &Arc<Self>,
        bytes: u64,
        make_room: &dyn Fn() -> bool,
        patience: Duration,
    ) -> Option<Permit> {
        if bytes > self.budget {
            return None;
        }
        let deadline = Instant::now() + patience;
        loop {
            if let Some(permit) = self.try_take(bytes) {
                return Some(permit);
            }
            if make_room() {
                continue;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            let used = self.used.lock().ok()?;
            // Woken by a release, or every second to retry `make_room` (a key set that was
            // in use may have become idle).
            let _ = self
                .freed
                .wait_timeout(used, left.min(Duration::from_secs(1)));
        }
    }

    fn give(&self, bytes: u64) {
        if let Ok(mut used) = self.used.lock() {
            *used = used.saturating_sub(bytes);
        }
        self.freed.notify_all();
    }
}

/// Bytes taken from a [`MemoryGate`], given back when dropped (so that no path, a panic's
/// included, keeps them).
pub struct Permit {
    gate: Arc<MemoryGate>,
    bytes: u64,
}

impl Permit {
    /// The bytes it holds.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Two permits, of `part` bytes (at most all) and of the rest, holding what this one held.
    pub fn split(mut self, part: u64) -> (Permit, Permit) {
        let part = part.min(self.bytes);
        self.bytes -= part;
        let first = Permit {
            gate: Arc::clone(&self.gate),
            bytes: part,
        };
        (first, self)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.gate.give(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takers_wait_for_room_and_never_exceed_the_budget() {
        let gate = Arc::new(MemoryGate::new(100));
        let long = Duration::from_secs(10);
        assert!(gate.take(101, &|| false, long).is_none());
        let first = gate.try_take(60).unwrap();
        assert!(gate.try_take(50).is_none());
        assert!(gate
            .take(50, &|| false, Duration::from_millis(50))
            .is_none());
        let waiter = {
            let gate = Arc::clone(&gate);
            std::thread::spawn(move || gate.take(50, &|| false, long).map(|p| p.bytes()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(gate.used(), 60);
        drop(first);
        assert_eq!(waiter.join().unwrap(), Some(50));
        // The waiter's permit was dropped with its thread's result.
        assert_eq!(gate.used(), 0);
        // Room made on demand.
        let held = std::sync::Mutex::new(Some(gate.try_take(90).unwrap()));
        let permit = gate.take(60, &|| held.lock().unwrap().take().is_some(), long);
        assert_eq!(permit.map(|p| p.bytes()), Some(60));
    }

    #[test]
    fn a_split_permit_gives_back_each_part() {
        let gate = Arc::new(MemoryGate::new(100));
        let (a, b) = gate.try_take(80).unwrap().split(30);
        assert_eq!((a.bytes(), b.bytes(), gate.used()), (30, 50, 80));
        drop(b);
        assert_eq!(gate.used(), 30);
        drop(a);
        assert_eq!(gate.used(), 0);
    }

    #[test]
    fn a_panic_gives_the_memory_back() {
        let gate = Arc::new(MemoryGate::new(100));
        let g = Arc::clone(&gate);
        let _ = std::thread::spawn(move || {
            let _permit = g.try_take(70).unwrap();
            panic!("a job failed hard");
        })
        .join();
        assert_eq!(gate.used(), 0);
    }
}
