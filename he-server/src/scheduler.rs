//! [`Scheduler`]: the job queue, its worker threads, and the loaded key sets, all within the
//! [`MemoryGate`]'s budget.
//!
//! A job is admitted with an estimate of its working memory ([`working_memory`]); a key set is
//! loaded once ([`ServerKeys::open`]: Galois keys read, or derived from master keys) and kept
//! while its memory is not needed for something else, so a tenant's second job on the same
//! keys starts at once. A worker takes the memory of a job and of its key set (if not loaded)
//! in one step, so two workers never hold part of what each needs while waiting for the rest.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use he_fft::protocol::{ExchangeDir, ServePolicy, ServerKeys, Side};
use helib_rs::Context;

use crate::error::{ApiError, StartError};
use crate::memory::{MemoryGate, Permit};
use crate::store::{JobState, Store};

/// A job waiting in the queue.
#[derive(Clone, Debug)]
pub struct Ticket {
    /// The job's name.
    pub job: String,
    /// Whose it is.
    pub tenant: String,
    /// The key set it runs on.
    pub key_set: String,
    /// Its working memory beyond its keys (bytes).
    pub memory: u64,
}

type KeyName = (String, String);

/// A loaded key set and the memory it holds.
struct Loaded {
    keys: Arc<ServerKeys<Fr>>,
    _permit: Permit,
    last_used: Instant,
}

/// How long a job waits for memory before it fails (the queue is the place to wait; this is
/// a bound for a budget held by key sets in use by long jobs).
const MEMORY_PATIENCE: Duration = Duration::from_secs(3600);

/// The queue, the workers and the loaded key sets.
pub struct Scheduler {
    store: Arc<Store>,
    policy: ServePolicy,
    gate: Arc<MemoryGate>,
    queue: Mutex<VecDeque<Ticket>>,
    queued: Condvar,
    max_queue: usize,
    /// Jobs admitted and not yet taken by a worker (being received, or queued).
    waiting: AtomicUsize,
    progress: Mutex<HashMap<String, (usize, usize)>>,
    cancelled: Mutex<HashSet<String>>,
    loaded: Mutex<HashMap<KeyName, Loaded>>,
    /// Notified whenever a job ends, for the clients waiting on one.
    ended: tokio::sync::Notify,
    stopping: AtomicBool,
}

/// A place in the queue, taken before a job's body is read and given back unless the job is
/// queued ([`Scheduler::enqueue`]).
pub struct Slot<'a> {
    scheduler: &'a Scheduler,
    kept: bool,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.scheduler.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The memory a job needs beyond its keys: its inputs and outputs three times over (read,
/// transformed, written) and the temporaries of a stage (baby steps and sums: about 64
/// ciphertexts). Measured peaks stay below it: the witness map at `n = 2^20` (96 ciphertexts
/// of 31 MB) peaked 9.7 GB above its keys, against an estimate of 10.9 GB.
pub fn working_memory(ctx: &Context, info: &he_fft::TransformInfo) -> u64 {
    let ciphertext = 2 * ctx.ring_degree() as u64 * ctx.num_ctxt_primes() as u64 * 8;
    let held = (info.total_input_ciphertexts() + info.output_ciphertexts) as u64;
    ciphertext * (3 * held + 64)
}

impl Scheduler {
    /// A scheduler of `workers` threads over `store`, within `gate`'s budget, queuing at most
    /// `max_queue` jobs.
    pub fn start(
        store: Arc<Store>,
        policy: ServePolicy,
        gate: Arc<MemoryGate>,
        workers: usize,
        max_queue: usize,
    ) -> Result<Arc<Scheduler>, StartError> {
        let scheduler = Arc::new(Scheduler {
            store,
            policy,
            gate,
            queue: Mutex::new(VecDeque::new()),
            queued: Condvar::new(),
            max_queue,
            waiting: AtomicUsize::new(0),
            progress: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(HashSet::new()),
            loaded: Mutex::new(HashMap::new()),
            ended: tokio::sync::Notify::new(),
            stopping: AtomicBool::new(false),
        });
        for i in 0..workers.max(1) {
            let s = Arc::clone(&scheduler);
            std::thread::Builder::new()
                .name(format!("he-worker-{i}"))
                .spawn(move || s.work())
                .map_err(|e| StartError::State(format!("starting worker {i}: {e}")))?;
        }
        Ok(scheduler)
    }

    /// The memory budget.
    pub fn gate(&self) -> &Arc<MemoryGate> {
        &self.gate
    }

    /// `(done, total)` steps of a running job.
    pub fn progress(&self, job: &str) -> Option<(usize, usize)> {
        self.progress.lock().ok()?.get(job).copied()
    }

    /// Resolves when some job ends (a waiting client then looks at its own).
    pub fn job_ended(&self) -> tokio::sync::futures::Notified<'_> {
        self.ended.notified()
    }

    /// A place in the queue, or `503` with a retry time when `max_queue` jobs already wait
    /// (or are being received). Taken before a job's body is read.
    pub fn reserve(&self) -> Result<Slot<'_>, ApiError> {
        let taken = self
            .waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                (w < self.max_queue).then_some(w + 1)
            });
        if taken.is_err() {
            let mut e = ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the queue is full ({} jobs wait); retry later",
                    self.max_queue
                ),
            );
            e.retry_after = Some(30);
            return Err(e);
        }
        Ok(Slot {
            scheduler: self,
            kept: false,
        })
    }

    /// Queues a job in its reserved `slot`.
    pub fn enqueue(&self, mut slot: Slot<'_>, ticket: Ticket) -> Result<(), ApiError> {
        let mut queue = self
            .queue
            .lock()
            .map_err(|_| ApiError::internal("the queue lock was poisoned"))?;
        queue.push_back(ticket);
        slot.kept = true;
        drop(queue);
        self.queued.notify_one();
        Ok(())
    }

    /// Cancels a job: a queued one never runs (its inputs are removed when a worker reaches
    /// it); a running one stops at its next input read ([`ServerKeys::serve_until`]: within a
    /// component for the four-step witness map, at the end for transforms that read all their
    /// inputs first) and its outputs are discarded. False if the job had already ended.
    pub fn cancel(&self, job: &str) -> Result<bool, ApiError> {
        let cancelled = self.store.transition(
            job,
            &[JobState::Queued, JobState::Running],
            JobState::Cancelled,
            None,
        )?;
        if cancelled {
            if let Ok(mut c) = self.cancelled.lock() {
                c.insert(job.to_string());
            }
            self.remove_outputs(job);
            self.ended.notify_waiters();
        }
        Ok(cancelled)
    }

    /// The key set `id` of `tenant` if it is loaded now (nothing is loaded for it).
    pub fn loaded_keys(&self, tenant: &str, id: &str) -> Option<Arc<ServerKeys<Fr>>> {
        let mut loaded = self.loaded.lock().ok()?;
        let l = loaded.get_mut(&(tenant.to_string(), id.to_string()))?;
        l.last_used = Instant::now();
        Some(Arc::clone(&l.keys))
    }

    /// Keeps `keys`, whose memory `permit` holds, loaded; if another copy was loaded
    /// meanwhile, that one is kept (and returned) and this one dropped with its permit.
    pub fn keep_loaded(
        &self,
        name: KeyName,
        keys: Arc<ServerKeys<Fr>>,
        permit: Permit,
    ) -> Arc<ServerKeys<Fr>> {
        let Ok(mut loaded) = self.loaded.lock() else {
            return keys;
        };
        let entry = loaded.entry(name).or_insert(Loaded {
            keys,
            _permit: permit,
            last_used: Instant::now(),
        });
        Arc::clone(&entry.keys)
    }

    /// Unloads the least recently used key set no job is using; false if there is none.
    pub fn unload_one_idle(&self) -> bool {
        let Ok(mut loaded) = self.loaded.lock() else {
            return false;
        };
        let idle = loaded
            .iter()
            .filter(|(_, l)| Arc::strong_count(&l.keys) == 1)
            .min_by_key(|(_, l)| l.last_used)
            .map(|(k, _)| k.clone());
        match idle.and_then(|k| loaded.remove(&k)) {
            Some(l) => {
                drop(loaded);
                tracing::info!(memory = l._permit.bytes(), "unloaded an idle key set");
                true
            }
            None => false,
        }
    }

    /// Stops taking jobs: each worker ends after its current one. The process ending meanwhile
    /// fails the running jobs (a restarted server reports them failed).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.queued.notify_all();
    }

    fn next(&self) -> Option<Ticket> {
        let mut queue = self.queue.lock().ok()?;
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return None;
            }
            if let Some(t) = queue.pop_front() {
                self.waiting.fetch_sub(1, Ordering::SeqCst);
                return Some(t);
            }
            queue = self.queued.wait(queue).ok()?;
        }
    }

    fn work(&self) {
        while let Some(ticket) = self.next() {
            let was_cancelled = self
                .cancelled
                .lock()
                .is_ok_and(|mut c| c.remove(&ticket.job));
            if !was_cancelled {
                // A panic in the transform fails its job, not the worker.
                let outcome = catch_unwind(AssertUnwindSafe(|| self.run(&ticket)))
                    .unwrap_or_else(|_| Err(ApiError::internal("the job's computation panicked")));
                if let Err(e) = outcome {
                    tracing::warn!(job = ticket.job, error = e.message, "job failed");
                    let _ = self.store.transition(
                        &ticket.job,
                        &[JobState::Queued, JobState::Running],
                        JobState::Failed,
                        Some(&e.message),
                    );
                    self.remove_outputs(&ticket.job);
                }
            }
            if let Ok(mut c) = self.cancelled.lock() {
                c.remove(&ticket.job);
            }
            // The inputs are not needed again (a failed job is submitted anew).
            remove_files(&self.store.job_dir(&ticket.job), ExchangeDir::input_name);
            if let Ok(mut p) = self.progress.lock() {
                p.remove(&ticket.job);
            }
            self.ended.notify_waiters();
        }
    }

    /// The job's memory, and its key set's if not loaded, in one step; then the key set
    /// (loaded here if needed) and the job.
    fn run(&self, ticket: &Ticket) -> Result<(), ApiError> {
        let name = (ticket.tenant.clone(), ticket.key_set.clone());
        let loaded = self.loaded_keys(&ticket.tenant, &ticket.key_set);
        let keys_memory = match &loaded {
            Some(_) => 0,
            None => {
                self.store
                    .key_set(&ticket.tenant, &ticket.key_set)?
                    .ok_or_else(|| ApiError::not_found("key set"))?
                    .memory_bytes
            }
        };
        let mut permit = self
            .gate
            .take(
                ticket.memory + keys_memory,
                &|| self.unload_one_idle(),
                MEMORY_PATIENCE,
            )
            .ok_or_else(|| {
                ApiError::internal(format!(
                    "no room for the job's {} bytes within the memory budget",
                    ticket.memory + keys_memory
                ))
            })?;
        let keys = match loaded {
            Some(keys) => keys,
            None => {
                let dir = ExchangeDir::new(self.store.key_set_dir(&ticket.tenant, &ticket.key_set));
                let keys = Arc::new(ServerKeys::<Fr>::open(&dir, self.policy)?);
                // The key set's part of the memory stays with it while it is loaded.
                let (keys_part, job_part) = permit.split(keys_memory);
                permit = job_part;
                self.keep_loaded(name, keys, keys_part)
            }
        };
        let result = self.run_admitted(ticket, &keys);
        drop(permit);
        result
    }

    fn run_admitted(&self, ticket: &Ticket, keys: &ServerKeys<Fr>) -> Result<(), ApiError> {
        if !self
            .store
            .transition(&ticket.job, &[JobState::Queued], JobState::Running, None)?
        {
            return Ok(()); // cancelled while it waited
        }
        tracing::info!(job = ticket.job, tenant = ticket.tenant, request = %keys.request(), "job started");
        let dir = ExchangeDir::new(self.store.job_dir(&ticket.job));
        let start = Instant::now();
        let report = |done: usize, total: usize| {
            if let Ok(mut p) = self.progress.lock() {
                p.insert(ticket.job.clone(), (done, total));
            }
        };
        let stop = || self.cancelled.lock().is_ok_and(|c| c.contains(&ticket.job));
        let run = match keys.serve_until(&dir, &report, &stop) {
            Err(he_fft::Error::Stopped) => {
                tracing::info!(job = ticket.job, "job stopped: cancelled");
                self.remove_outputs(&ticket.job);
                return Ok(());
            }
            other => other?,
        };
        // The outputs' names are durable before the job is recorded done.
        sync_dir(&dir.path(Side::Public, ""));
        let seconds = start.elapsed().as_secs_f64();
        if self
            .store
            .finish(&ticket.job, run.outputs as u64, run.download_bytes, seconds)?
        {
            tracing::info!(
                job = ticket.job,
                seconds,
                bytes = run.download_bytes,
                "job done"
            );
        } else {
            self.remove_outputs(&ticket.job);
        }
        Ok(())
    }

    fn remove_outputs(&self, job: &str) {
        remove_files(&self.store.job_dir(job), ExchangeDir::output_name);
    }
}

/// Removes `name(0)`, `name(1)`, ... from the exchange at `root`, up to the first missing.
fn remove_files(root: &std::path::Path, name: fn(usize) -> String) {
    let dir = ExchangeDir::new(root);
    for i in 0.. {
        if std::fs::remove_file(dir.path(Side::Public, &name(i))).is_err() {
            break;
        }
    }
}

/// Makes the names in `dir` durable (renames and new files).
pub fn sync_dir(dir: &std::path::Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_in_the_queue_never_exceed_its_bound_whoever_asks_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(tmp.path()).unwrap());
        let gate = Arc::new(MemoryGate::new(1 << 20));
        let scheduler = Scheduler::start(store, ServePolicy::default(), gate, 1, 3).unwrap();
        let granted = AtomicUsize::new(0);
        let barrier = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    barrier.wait();
                    if let Ok(slot) = scheduler.reserve() {
                        granted.fetch_add(1, Ordering::SeqCst);
                        // Held until every thread has asked.
                        barrier.wait();
                        drop(slot);
                    } else {
                        barrier.wait();
                    }
                });
            }
        });
        assert_eq!(granted.load(Ordering::SeqCst), 3);
        // Given back: the places are free again.
        let slots: Vec<_> = (0..3).map(|_| scheduler.reserve().unwrap()).collect();
        assert!(scheduler.reserve().is_err());
        drop(slots);
        scheduler.stop();
    }
}
