//! [`Store`]: the server's durable state. Metadata lives in SQLite (`state/server.db`, WAL
//! journal, every change one transaction); bytes live in files written whole (a fresh file
//! renamed into place), in per-tenant key-set folders and per-job folders:
//!
//! ```text
//! state/server.db
//! state/key-sets/TENANT/ID/public/{request.txt, context.bin, pubkey.bin, galois.bin | masters.bin}
//! state/jobs/JOB/public/{input-0.ct, ..., output-0.ct, ...}
//! state/tmp/            bodies being received, and key sets being checked
//! ```
//!
//! A key set's row is written only once its folder is complete and checked, and a job is
//! `done` only once its outputs are on disk, so a crash at any point leaves either the old
//! state or the new one; [`Store::open`] then reports the jobs that were queued or running
//! as failed and removes what no row names.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::error::{ApiError, StartError};

/// What the server stores, on disk and in its database.
pub struct Store {
    root: PathBuf,
    db: Mutex<Connection>,
}

/// A key set's row.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct KeySetRow {
    /// Its name: the SHA-256 of its bytes.
    pub id: String,
    /// The request line it serves.
    pub request: String,
    /// Its size as uploaded.
    pub bytes: u64,
    /// What its keys take in memory once loaded.
    pub memory_bytes: u64,
    /// When it was stored (seconds since the Unix epoch).
    pub created: u64,
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Waiting for a worker and memory.
    Queued,
    /// Being computed.
    Running,
    /// Its outputs are ready.
    Done,
    /// It failed; `error` says why.
    Failed,
    /// Its owner cancelled it.
    Cancelled,
}

impl JobState {
    fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    fn parse(s: &str) -> JobState {
        match s {
            "queued" => JobState::Queued,
            "running" => JobState::Running,
            "done" => JobState::Done,
            "cancelled" => JobState::Cancelled,
            _ => JobState::Failed,
        }
    }

    /// Whether the job can still change.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Failed | JobState::Cancelled
        )
    }
}

/// A job's row.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JobRow {
    /// Its name.
    pub id: String,
    /// The key set it runs on.
    pub key_set: String,
    /// Where it is.
    pub state: JobState,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// When it was submitted (seconds since the Unix epoch).
    pub created: u64,
    /// Output ciphertexts, once done.
    pub outputs: Option<u64>,
    /// Bytes of the outputs, once done.
    pub output_bytes: Option<u64>,
    /// Seconds of computation, once done.
    pub server_s: Option<f64>,
    /// The memory it was admitted with (bytes).
    pub memory_bytes: u64,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS key_sets (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    request TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    memory_bytes INTEGER NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    key_set TEXT NOT NULL,
    state TEXT NOT NULL,
    error TEXT,
    idempotency_key TEXT,
    created INTEGER NOT NULL,
    outputs INTEGER,
    output_bytes INTEGER,
    server_s REAL,
    memory_bytes INTEGER NOT NULL,
    UNIQUE (tenant, idempotency_key)
);
";

impl Store {
    /// Opens (creating if needed) the state under `root`, then recovers from whatever stopped
    /// the last server: jobs it left queued or running are marked failed, bodies half
    /// received are removed, and key-set folders without a row are removed.
    pub fn open(root: &Path) -> Result<Store, StartError> {
        let state = |what: &str, e: &dyn std::fmt::Display| {
            StartError::State(format!("{}: {what}: {e}", root.display()))
        };
        for dir in ["key-sets", "jobs", "tmp"] {
            std::fs::create_dir_all(root.join(dir)).map_err(|e| state(dir, &e))?;
        }
        restrict(root).map_err(|e| state("permissions", &e))?;
        let db = Connection::open(root.join("server.db")).map_err(|e| state("server.db", &e))?;
        db.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
            .map_err(|e| state("server.db", &e))?;
        db.execute_batch(SCHEMA).map_err(|e| state("schema", &e))?;
        let store = Store {
            root: root.to_path_buf(),
            db: Mutex::new(db),
        };
        store.recover().map_err(|e| state("recovery", &e))?;
        Ok(store)
    }

    fn recover(&self) -> Result<(), Box<dyn std::error::Error>> {
        let db = self.lock()?;
        let stopped = db.execute(
            "UPDATE jobs SET state = 'failed', error = 'the server stopped before the job \
             finished; submit it again' WHERE state IN ('queued', 'running')",
            [],
        )?;
        if stopped > 0 {
            tracing::warn!(
                jobs = stopped,
                "jobs left unfinished by the last server marked failed"
            );
        }
        // Bodies half received, key sets half checked.
        let tmp = self.root.join("tmp");
        std::fs::remove_dir_all(&tmp)?;
        std::fs::create_dir_all(&tmp)?;
        // Key-set folders whose row was never written (the server stopped between the rename
        // and the insert), and rows whose folder is gone.
        let mut rows = db.prepare("SELECT tenant, id FROM key_sets")?;
        let known: Vec<(String, String)> = rows
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        drop(rows);
        for entry in std::fs::read_dir(self.root.join("key-sets"))? {
            let tenant_dir = entry?.path();
            let tenant = file_name(&tenant_dir);
            for set in std::fs::read_dir(&tenant_dir)? {
                let set = set?.path();
                let id = file_name(&set);
                if !known.iter().any(|(t, i)| *t == tenant && *i == id) {
                    tracing::warn!(tenant, id, "removing a key set folder with no row");
                    std::fs::remove_dir_all(&set)?;
                }
            }
        }
        for (tenant, id) in &known {
            if !self.key_set_dir(tenant, id).is_dir() {
                tracing::warn!(tenant, id, "forgetting a key set whose folder is gone");
                db.execute(
                    "DELETE FROM key_sets WHERE tenant = ?1 AND id = ?2",
                    params![tenant, id],
                )?;
            }
        }
        // Job folders of no done job: outputs of jobs that are not done are not results, and
        // a folder with no row at all (inputs written before the row, or a row deleted before
        // its folder) is nobody's.
        let mut rows = db.prepare("SELECT id FROM jobs WHERE state = 'done'")?;
        let done: Vec<String> = rows
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        drop(rows);
        for entry in std::fs::read_dir(self.root.join("jobs"))? {
            let dir = entry?.path();
            if !done.contains(&file_name(&dir)) {
                std::fs::remove_dir_all(&dir)?;
            }
        }
        Ok(())
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Connection>, ApiError> {
        self.db
            .lock()
            .map_err(|_| ApiError::internal("the database lock was poisoned"))
    }

    /// Runs `f` on the connection. A write waits for its fsync (`synchronous = FULL`) and any
    /// call may wait for the lock: on an async worker thread the runtime first hands that
    /// thread's other tasks to another, so no connection stalls behind the disk.
    fn with_db<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, ApiError> {
        let run = || -> Result<T, ApiError> { Ok(f(&*self.lock()?)?) };
        match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(run)
            }
            _ => run(),
        }
    }

    /// The folder of a key set (its exchange root: files under `public/`).
    pub fn key_set_dir(&self, tenant: &str, id: &str) -> PathBuf {
        self.root.join("key-sets").join(tenant).join(id)
    }

    /// The folder of a job (its exchange root: inputs and outputs under `public/`).
    pub fn job_dir(&self, job: &str) -> PathBuf {
        self.root.join("jobs").join(job)
    }

    /// A fresh path under `tmp/` for a body being received or a key set being checked.
    pub fn temp_path(&self, what: &str) -> PathBuf {
        self.root
            .join("tmp")
            .join(format!("{what}-{}", random_id()))
    }

    /// The key set `id` of `tenant`, if stored.
    pub fn key_set(&self, tenant: &str, id: &str) -> Result<Option<KeySetRow>, ApiError> {
        self.with_db(|db| {
            db.query_row(
                "SELECT id, request, bytes, memory_bytes, created FROM key_sets \
                 WHERE tenant = ?1 AND id = ?2",
                params![tenant, id],
                key_set_row,
            )
            .optional()
        })
    }

    /// Every key set of `tenant`, oldest first.
    pub fn key_sets(&self, tenant: &str) -> Result<Vec<KeySetRow>, ApiError> {
        self.with_db(|db| {
            db.prepare(
                "SELECT id, request, bytes, memory_bytes, created FROM key_sets \
                 WHERE tenant = ?1 ORDER BY created, id",
            )?
            .query_map(params![tenant], key_set_row)?
            .collect()
        })
    }

    /// Records a key set whose folder is complete; false if it was already recorded.
    pub fn insert_key_set(&self, tenant: &str, row: &KeySetRow) -> Result<bool, ApiError> {
        let changed = self.with_db(|db| {
            db.execute(
                "INSERT OR IGNORE INTO key_sets (tenant, id, request, bytes, memory_bytes, \
                 created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    tenant,
                    row.id,
                    row.request,
                    row.bytes as i64,
                    row.memory_bytes as i64,
                    row.created as i64
                ],
            )
        })?;
        Ok(changed == 1)
    }

    /// Records a queued job.
    pub fn insert_job(
        &self,
        tenant: &str,
        row: &JobRow,
        idempotency_key: Option<&str>,
    ) -> Result<(), ApiError> {
        self.with_db(|db| {
            db.execute(
                "INSERT INTO jobs (id, tenant, key_set, state, idempotency_key, created, \
                 memory_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    row.id,
                    tenant,
                    row.key_set,
                    row.state.as_str(),
                    idempotency_key,
                    row.created as i64,
                    row.memory_bytes as i64
                ],
            )
        })?;
        Ok(())
    }

    /// The job `id` of `tenant`, if any.
    pub fn job(&self, tenant: &str, id: &str) -> Result<Option<JobRow>, ApiError> {
        self.with_db(|db| {
            db.query_row(
                &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE tenant = ?1 AND id = ?2"),
                params![tenant, id],
                job_row,
            )
            .optional()
        })
    }

    /// The job `tenant` submitted with `key`, if any.
    pub fn job_by_idempotency_key(
        &self,
        tenant: &str,
        key: &str,
    ) -> Result<Option<JobRow>, ApiError> {
        self.with_db(|db| {
            db.query_row(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs WHERE tenant = ?1 AND idempotency_key = ?2"
                ),
                params![tenant, key],
                job_row,
            )
            .optional()
        })
    }

    /// The most recent `limit` jobs of `tenant`, newest first.
    pub fn jobs(&self, tenant: &str, limit: usize) -> Result<Vec<JobRow>, ApiError> {
        self.with_db(|db| {
            db.prepare(&format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE tenant = ?1 ORDER BY created DESC, id \
                 LIMIT ?2"
            ))?
            .query_map(params![tenant, limit as i64], job_row)?
            .collect()
        })
    }

    /// Moves job `id` from `from` to `to` (with `error` for a failure); false if it was not
    /// in `from` (cancelled meanwhile, say).
    pub fn transition(
        &self,
        id: &str,
        from: &[JobState],
        to: JobState,
        error: Option<&str>,
    ) -> Result<bool, ApiError> {
        self.with_db(|db| {
            let current: Option<String> = db
                .query_row("SELECT state FROM jobs WHERE id = ?1", params![id], |r| {
                    r.get(0)
                })
                .optional()?;
            match current {
                Some(s) if from.contains(&JobState::parse(&s)) => {
                    db.execute(
                        "UPDATE jobs SET state = ?2, error = ?3 WHERE id = ?1",
                        params![id, to.as_str(), error],
                    )?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    /// Forgets a finished job of `tenant`.
    pub fn delete_job(&self, tenant: &str, id: &str) -> Result<(), ApiError> {
        self.with_db(|db| {
            db.execute(
                "DELETE FROM jobs WHERE tenant = ?1 AND id = ?2 \
                 AND state IN ('done', 'failed', 'cancelled')",
                params![tenant, id],
            )
        })?;
        Ok(())
    }

    /// Marks a running job done with its outputs; false if it was cancelled meanwhile.
    pub fn finish(
        &self,
        id: &str,
        outputs: u64,
        output_bytes: u64,
        server_s: f64,
    ) -> Result<bool, ApiError> {
        let changed = self.with_db(|db| {
            db.execute(
                "UPDATE jobs SET state = 'done', outputs = ?2, output_bytes = ?3, server_s = ?4 \
                 WHERE id = ?1 AND state = 'running'",
                params![id, outputs as i64, output_bytes as i64, server_s],
            )
        })?;
        Ok(changed == 1)
    }
}

const JOB_COLUMNS: &str =
    "id, key_set, state, error, created, outputs, output_bytes, server_s, memory_bytes";

fn key_set_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<KeySetRow> {
    Ok(KeySetRow {
        id: r.get(0)?,
        request: r.get(1)?,
        bytes: r.get::<_, i64>(2)? as u64,
        memory_bytes: r.get::<_, i64>(3)? as u64,
        created: r.get::<_, i64>(4)? as u64,
    })
}

fn job_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        id: r.get(0)?,
        key_set: r.get(1)?,
        state: JobState::parse(&r.get::<_, String>(2)?),
        error: r.get(3)?,
        created: r.get::<_, i64>(4)? as u64,
        outputs: r.get::<_, Option<i64>>(5)?.map(|v| v as u64),
        output_bytes: r.get::<_, Option<i64>>(6)?.map(|v| v as u64),
        server_s: r.get(7)?,
        memory_bytes: r.get::<_, i64>(8)? as u64,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The state folder readable by the server's user only: it holds every tenant's data.
fn restrict(root: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o700))?;
    }
    #[cfg(not(unix))]
    let _ = root;
    Ok(())
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// 128 random bits from the OS, as 32 hex characters: job names and temporary names.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    // The OS generator failing leaves no safe fallback; an all-zero name would collide, and
    // the caller's insert then fails cleanly on the unique key.
    let _ = getrandom::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
