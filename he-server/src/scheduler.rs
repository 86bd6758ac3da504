//! [`Scheduler`]: the job queue, its worker threads, and the loaded key sets, all within the
//! [`MemoryGate`]'s budget.
//!
//! A job is admitted with an estimate of its working memory ([`working_memory`]); a key set is
//! loaded once ([`ServerKeys::open`]: Galois keys read, or derived from master keys) and kept
//! while its memory is not needed for something else, so a tenant's second job on the same
//! keys starts at once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use ark_bn254::Fr;
use he_fft::protocol::{ExchangeDir, ServePolicy, ServerKeys};
use helib_rs::Context;

use crate::error::ApiError;
use crate::memory::MemoryGate;
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
    memory: u64,
    last_used: Instant,
}

/// The queue, the workers and the loaded key sets.
pub struct Scheduler {
    store: Arc<Store>,
    policy: ServePolicy,
    gate: Arc<MemoryGate>,
    queue: Mutex<VecDeque<Ticket>>,
    queued: Condvar,
    max_queue: usize,
    running: Mutex<HashSet<String>>,
    progress: Mutex<HashMap<String, (usize, usize)>>,
    cancelled: Mutex<HashSet<String>>,
    loaded: Mutex<HashMap<KeyName, Loaded>>,
    stopping: AtomicBool,
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
    ) -> Arc<Scheduler> {
        let scheduler = Arc::new(Scheduler {
            store,
            policy,
            gate,
            queue: Mutex::new(VecDeque::new()),
            queued: Condvar::new(),
            max_queue,
            running: Mutex::new(HashSet::new()),
            progress: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(HashSet::new()),
            loaded: Mutex::new(HashMap::new()),
            stopping: AtomicBool::new(false),
        });
        for i in 0..workers.max(1) {
            let s = Arc::clone(&scheduler);
            std::thread::Builder::new()
                .name(format!("he-worker-{i}"))
                .spawn(move || s.work())
                .ok();
        }
        scheduler
    }

    /// The memory budget.
    pub fn gate(&self) -> &MemoryGate {
        &self.gate
    }

    /// Jobs waiting.
    pub fn queue_len(&self) -> usize {
        self.queue.lock().map_or(0, |q| q.len())
    }

    /// Jobs running.
    pub fn running_len(&self) -> usize {
        self.running.lock().map_or(0, |r| r.len())
    }

    /// `(done, total)` steps of a running job.
    pub fn progress(&self, job: &str) -> Option<(usize, usize)> {
        self.progress.lock().ok()?.get(job).copied()
    }

    /// Queues a job, or refuses it (`503`, retry later) when the queue is full.
    pub fn enqueue(&self, ticket: Ticket) -> Result<(), ApiError> {
        let mut queue = self
            .queue
            .lock()
            .map_err(|_| ApiError::internal("the queue lock was poisoned"))?;
        queue.push_back(ticket);
        drop(queue);
        self.queued.notify_one();
        Ok(())
    }

    /// `503` with a retry time when `max_queue` jobs already wait.
    pub fn check_room(&self) -> Result<(), ApiError> {
        if self.queue_len() >= self.max_queue {
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
        Ok(())
    }

    /// Cancels a job: a queued one never runs; a running one finishes its computation (the
    /// transforms cannot be interrupted) and its outputs are then discarded. False if the job
    /// had already ended.
    pub fn cancel(&self, job: &str) -> Result<bool, ApiError> {
        if let Ok(mut c) = self.cancelled.lock() {
            c.insert(job.to_string());
        }
        let cancelled = self.store.transition(
            job,
            &[JobState::Queued, JobState::Running],
            JobState::Cancelled,
            None,
        )?;
        if cancelled {
            self.remove_outputs(job);
        }
        Ok(cancelled)
    }

    /// The key set `id` of `tenant`, loaded (or taken from those already loaded), with its
    /// memory taken from the budget while it stays loaded.
    pub fn keys(&self, tenant: &str, id: &str) -> Result<Arc<ServerKeys<Fr>>, ApiError> {
        let name = (tenant.to_string(), id.to_string());
        if let Some(l) = self
            .loaded
            .lock()
            .map_err(|_| ApiError::internal("the key-set lock was poisoned"))?
            .get_mut(&name)
        {
            l.last_used = Instant::now();
            return Ok(Arc::clone(&l.keys));
        }
        let row = self
            .store
            .key_set(tenant, id)?
            .ok_or_else(|| ApiError::not_found("key set"))?;
        if !self.gate.take(row.memory_bytes, &|| self.unload_one_idle()) {
            return Err(ApiError::internal(format!(
                "key set {id} takes {} bytes, more than the budget",
                row.memory_bytes
            )));
        }
        let dir = ExchangeDir::new(self.store.key_set_dir(tenant, id));
        match ServerKeys::<Fr>::open(&dir, self.policy) {
            Ok(keys) => {
                let keys = Arc::new(keys);
                self.keep_loaded(name, Arc::clone(&keys), row.memory_bytes);
                Ok(keys)
            }
            Err(e) => {
                self.gate.give(row.memory_bytes);
                Err(e.into())
            }
        }
    }

    /// The key set `id` of `tenant` if it is loaded now (nothing is loaded for it).
    pub fn loaded_keys(&self, tenant: &str, id: &str) -> Option<Arc<ServerKeys<Fr>>> {
        let loaded = self.loaded.lock().ok()?;
        loaded
            .get(&(tenant.to_string(), id.to_string()))
            .map(|l| Arc::clone(&l.keys))
    }

    /// Keeps `keys`, whose `memory` the caller took from the budget, loaded.
    pub fn keep_loaded(&self, name: KeyName, keys: Arc<ServerKeys<Fr>>, memory: u64) {
        let previous = self.loaded.lock().ok().and_then(|mut l| {
            l.insert(
                name,
                Loaded {
                    keys,
                    memory,
                    last_used: Instant::now(),
                },
            )
        });
        if let Some(p) = previous {
            self.gate.give(p.memory);
        }
    }

    /// Unloads the least recently used key set no job is using; false if there is none.
    fn unload_one_idle(&self) -> bool {
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
                self.gate.give(l.memory);
                tracing::info!(memory = l.memory, "unloaded an idle key set");
                true
            }
            None => false,
        }
    }

    /// Stops the workers once their current jobs end.
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
                return Some(t);
            }
            queue = self.queued.wait(queue).ok()?;
        }
    }

    fn work(&self) {
        while let Some(ticket) = self.next() {
            if self.cancelled.lock().is_ok_and(|c| c.contains(&ticket.job)) {
                continue;
            }
            if let Err(e) = self.run(&ticket) {
                tracing::warn!(job = ticket.job, error = e.message, "job failed");
                let _ = self.store.transition(
                    &ticket.job,
                    &[JobState::Queued, JobState::Running],
                    JobState::Failed,
                    Some(&e.message),
                );
                self.remove_outputs(&ticket.job);
            }
            // The inputs are not needed again (a failed job is submitted anew).
            remove_files(&self.store.job_dir(&ticket.job), ExchangeDir::input_name);
            if let Ok(mut p) = self.progress.lock() {
                p.remove(&ticket.job);
            }
            if let Ok(mut r) = self.running.lock() {
                r.remove(&ticket.job);
            }
        }
    }

    fn run(&self, ticket: &Ticket) -> Result<(), ApiError> {
        let keys = self.keys(&ticket.tenant, &ticket.key_set)?;
        if !self.gate.take(ticket.memory, &|| self.unload_one_idle()) {
            return Err(ApiError::internal(
                "the job needs more memory than the budget",
            ));
        }
        let result = self.run_admitted(ticket, &keys);
        self.gate.give(ticket.memory);
        result
    }

    fn run_admitted(&self, ticket: &Ticket, keys: &ServerKeys<Fr>) -> Result<(), ApiError> {
        if !self
            .store
            .transition(&ticket.job, &[JobState::Queued], JobState::Running, None)?
        {
            return Ok(()); // cancelled while it waited
        }
        if let Ok(mut r) = self.running.lock() {
            r.insert(ticket.job.clone());
        }
        tracing::info!(job = ticket.job, tenant = ticket.tenant, request = %keys.request(), "job started");
        let dir = ExchangeDir::new(self.store.job_dir(&ticket.job));
        let start = Instant::now();
        let report = |done: usize, total: usize| {
            if let Ok(mut p) = self.progress.lock() {
                p.insert(ticket.job.clone(), (done, total));
            }
        };
        let run = keys.serve(&dir, &report)?;
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
        if std::fs::remove_file(dir.path(he_fft::protocol::Side::Public, &name(i))).is_err() {
            break;
        }
    }
}

/// The estimate a job on `keys` is admitted with.
pub fn job_memory(keys: &ServerKeys<Fr>) -> u64 {
    working_memory(keys.context(), &keys.transform().info())
}
