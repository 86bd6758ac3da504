//! The HTTP routes (docs/server.md lists them with their bodies and status codes).

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ark_bn254::Fr;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use he_fft::protocol::{
    key_set_request, max_ciphertexts_len, max_key_set_len, read_ciphertexts_into, read_key_set,
    ExchangeDir, KeyKind, Request, ServePolicy, ServerKeys, Side, KEY_SET_PREFIX_MAX,
};
use helib_rs::Ctxt;
use serde::Serialize;

use crate::body::{drain, receive, Limit};
use crate::error::ApiError;
use crate::scheduler::{sync_dir, working_memory, Scheduler, Slot, Ticket};
use crate::store::{now, random_id, JobRow, JobState, KeySetRow, Store};
use crate::tenants::Tenants;

/// What the routes share.
pub struct AppState {
    /// Durable state.
    pub store: Arc<Store>,
    /// Who may call.
    pub tenants: Tenants,
    /// The queue and workers.
    pub scheduler: Arc<Scheduler>,
    /// What requests the server takes (toy rings only when allowed).
    pub policy: ServePolicy,
    /// How long a body may pause before it is dropped.
    pub idle_timeout: Duration,
}

type Shared = Arc<AppState>;

/// The server's routes on `state`.
pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/key-sets", get(list_key_sets))
        .route(
            "/v1/key-sets/{id}",
            put(put_key_set).get(get_key_set).head(head_key_set),
        )
        .route("/v1/key-sets/{id}/jobs", post(post_job))
        .route("/v1/jobs", get(list_jobs))
        .route("/v1/jobs/{id}", get(get_job).delete(delete_job))
        .route("/v1/jobs/{id}/result", get(get_result))
        // Bodies are limited by what their key set's context allows (crate::body), not by a
        // fixed size.
        .layer(DefaultBodyLimit::disable())
        .with_state(state)
}

/// The caller's tenant, from `Authorization: Bearer TOKEN`; `401` otherwise.
pub struct Tenant(pub String);

fn tenant_of(parts: &Parts, state: &AppState) -> Result<String, ApiError> {
    let token = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(token)
        })
        .ok_or_else(ApiError::unauthorized)?;
    state
        .tenants
        .authenticate(token.trim())
        .map(str::to_string)
        .ok_or_else(ApiError::unauthorized)
}

impl FromRequestParts<Shared> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        tenant_of(parts, state).map(Tenant)
    }
}

/// The tenant, or why not, for routes with a body: they drain the body before refusing, so
/// that the client reads the refusal.
pub struct Caller(pub Result<String, ApiError>);

impl FromRequestParts<Shared> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Shared,
    ) -> Result<Self, std::convert::Infallible> {
        Ok(Caller(tenant_of(parts, state)))
    }
}

async fn health(State(state): State<Shared>) -> Json<serde_json::Value> {
    let _ = state;
    Json(serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

fn check_id(id: &str) -> Result<(), ApiError> {
    if id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            "a key set's id is the SHA-256 of its bytes, as 64 lowercase hex digits",
        ))
    }
}

/// The job `id` of `tenant`: `404` for a malformed id, another tenant's job, or none.
fn tenant_job(state: &AppState, tenant: &str, id: &str) -> Result<JobRow, ApiError> {
    let well_formed = id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !well_formed {
        return Err(ApiError::not_found("job"));
    }
    state
        .store
        .job(tenant, id)?
        .ok_or_else(|| ApiError::not_found("job"))
}

async fn list_key_sets(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
) -> Result<Json<Vec<KeySetRow>>, ApiError> {
    Ok(Json(state.store.key_sets(&tenant)?))
}

async fn get_key_set(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
) -> Result<Json<KeySetRow>, ApiError> {
    check_id(&id)?;
    state
        .store
        .key_set(&tenant, &id)?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("key set"))
}

async fn head_key_set(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    check_id(&id)?;
    match state.store.key_set(&tenant, &id)? {
        Some(_) => Ok(StatusCode::OK),
        None => Err(ApiError::not_found("key set")),
    }
}

/// `PUT /v1/key-sets/{id}`: stores a key set under its SHA-256, once.
async fn put_key_set(
    State(state): State<Shared>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: Body,
) -> Result<Response, ApiError> {
    let early = (|| {
        let tenant = caller?;
        check_id(&id)?;
        Ok::<_, ApiError>((state.store.key_set(&tenant, &id)?, tenant))
    })();
    let tenant = match early {
        Ok((None, tenant)) => tenant,
        Ok((Some(row), _)) => {
            drain(body, state.idle_timeout).await;
            return Ok((StatusCode::OK, Json(row)).into_response());
        }
        Err(e) => {
            drain(body, state.idle_timeout).await;
            return Err(e);
        }
    };
    let spooled = state.store.temp_path("key-set-body");
    let policy = state.policy;
    let mut decide = move |prefix: &[u8]| -> Result<Option<u64>, ApiError> {
        let Some(request) = key_set_request(prefix)? else {
            return Ok(None);
        };
        policy.check(&request)?;
        // Building the context takes milliseconds: no need to leave the runtime for it.
        let most = tokio::task::block_in_place(|| max_key_set_len::<Fr>(&request))?;
        Ok(Some(most))
    };
    let limit = Limit::FromPrefix {
        prefix_max: KEY_SET_PREFIX_MAX,
        decide: &mut decide,
    };
    let started = std::time::Instant::now();
    let bytes = receive(body, &spooled, limit, state.idle_timeout).await?;
    let received_s = started.elapsed().as_secs_f64();
    let shared = Arc::clone(&state);
    let stored = tokio::task::spawn_blocking(move || {
        let result = store_key_set(&shared, &tenant, &id, &spooled, bytes);
        let _ = std::fs::remove_file(&spooled);
        result
    })
    .await
    .map_err(|e| ApiError::internal(format!("a key-set check stopped: {e}")))??;
    tracing::info!(
        received_s,
        checked_s = started.elapsed().as_secs_f64() - received_s,
        bytes,
        "key set received and checked"
    );
    let status = if stored.1 {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(stored.0)).into_response())
}

/// Splits the body into its files in a staging folder, checks every part
/// ([`ServerKeys::open`]: context, public key, keys, derivation of master keys), then moves
/// the folder into place and records it. Returns the row and whether it is new.
fn store_key_set(
    state: &AppState,
    tenant: &str,
    id: &str,
    spooled: &std::path::Path,
    bytes: u64,
) -> Result<(KeySetRow, bool), ApiError> {
    let staging = state.store.temp_path("key-set");
    let result = (|| {
        let file = std::fs::File::open(spooled)
            .map_err(|e| ApiError::internal(format!("a received body: {e}")))?;
        let dir = ExchangeDir::new(&staging);
        let (request, hash) = read_key_set::<Fr>(std::io::BufReader::new(file), &dir)?;
        if hash != id {
            return Err(ApiError::bad_request(format!(
                "the body's SHA-256 is {hash}, not the id {id} it was sent to"
            )));
        }
        // Loading takes about the keys' size in memory again while they are parsed, and
        // master keys expand into the Galois keys derived from them.
        let loading = checking_memory(&request, bytes)?;
        let scheduler = &state.scheduler;
        let gate = scheduler.gate();
        if loading > gate.budget() {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "checking this key set takes about {loading} bytes of memory, more than the \
                     server's budget of {}",
                    gate.budget()
                ),
            ));
        }
        let permit = gate
            .take(loading, &|| scheduler.unload_one_idle(), CHECK_PATIENCE)
            .ok_or_else(|| {
                let mut e = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server's memory is taken by running jobs; retry the upload later",
                );
                e.retry_after = Some(60);
                e
            })?;
        let keys = ServerKeys::<Fr>::open(&dir, state.policy)?;
        drop(permit);
        let row = KeySetRow {
            id: id.to_string(),
            request: request.to_string(),
            bytes,
            memory_bytes: keys.memory_bytes(),
            created: now(),
        };
        let target = state.store.key_set_dir(tenant, id);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| ApiError::internal(format!("the key-set folder: {e}")))?;
        }
        sync_dir(&dir.path(Side::Public, ""));
        // The same key set uploaded twice at once: the second rename finds the first's folder.
        let new = !target.exists() && std::fs::rename(&staging, &target).is_ok();
        if !target.is_dir() {
            return Err(ApiError::internal(
                "a key set could not be moved into place",
            ));
        }
        sync_dir(target.parent().unwrap_or(&target));
        let inserted = state.store.insert_key_set(tenant, &row)?;
        // Kept loaded for its first job, if the budget has room now.
        if let Some(permit) = gate.try_take(row.memory_bytes).filter(|_| inserted) {
            scheduler.keep_loaded((tenant.to_string(), id.to_string()), Arc::new(keys), permit);
        }
        tracing::info!(tenant, id, request = %request, bytes, "key set stored");
        Ok((row, new && inserted))
    })();
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// How long a key-set upload waits for memory to check it.
const CHECK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// The memory checking a key set of `bytes` for `request` takes: the bytes parsed beside
/// their copy, or for master keys the Galois keys derived from them (each about twice a
/// serialized key of the context, their uniform halves expanded).
fn checking_memory(request: &Request, bytes: u64) -> Result<u64, ApiError> {
    if request.keys != KeyKind::Master {
        return Ok(2 * bytes);
    }
    let ctx = request.context::<Fr>()?;
    let (_, steps) = request.outline::<Fr>(&ctx)?;
    let derived = 2 * ctx
        .max_serialized_len(helib_rs::ObjectKind::GaloisKeys(steps.max_keys()))
        .map_err(he_fft::Error::from)?;
    Ok((2 * bytes).max(derived + bytes))
}

/// A job as its owner sees it.
#[derive(Serialize)]
struct JobView {
    job: String,
    key_set: String,
    state: JobState,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    progress: Option<Progress>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outputs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_s: Option<f64>,
    created: u64,
}

#[derive(Serialize)]
struct Progress {
    done: usize,
    total: usize,
}

fn view(state: &AppState, row: JobRow) -> JobView {
    let progress = (row.state == JobState::Running)
        .then(|| state.scheduler.progress(&row.id))
        .flatten()
        .map(|(done, total)| Progress { done, total });
    JobView {
        job: row.id,
        key_set: row.key_set,
        state: row.state,
        error: row.error,
        progress,
        outputs: row.outputs,
        output_bytes: row.output_bytes,
        server_s: row.server_s,
        created: row.created,
    }
}

/// The most characters of an `Idempotency-Key`.
const MAX_IDEMPOTENCY_KEY: usize = 128;

/// `POST /v1/key-sets/{id}/jobs`: queues the key set's transform on the body's ciphertexts.
async fn post_job(
    State(state): State<Shared>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let admitted = admit_job(&state, caller, &id, &headers).await;
    let NewJob {
        tenant,
        idempotency,
        ctx,
        info,
        memory,
        slot,
    } = match admitted {
        Ok(Admission::New(job)) => job,
        Ok(Admission::Existing(job)) => {
            drain(body, state.idle_timeout).await;
            return Ok((StatusCode::OK, Json(view(&state, job))).into_response());
        }
        Err(e) => {
            drain(body, state.idle_timeout).await;
            return Err(e);
        }
    };
    let count = info.total_input_ciphertexts();
    let most = max_ciphertexts_len(&ctx, count)?;
    let job = random_id();
    let spooled = state.store.temp_path("job-body");
    receive(body, &spooled, Limit::Bytes(most), state.idle_timeout).await?;

    let shared = Arc::clone(&state);
    let (tenant_c, id_c, job_c) = (tenant.clone(), id.clone(), job.clone());
    let checked = tokio::task::spawn_blocking(move || {
        let result = unpack_inputs(&shared, &tenant_c, &id_c, &job_c, &spooled, &ctx, count);
        let _ = std::fs::remove_file(&spooled);
        result
    })
    .await
    .map_err(|e| ApiError::internal(format!("an input check stopped: {e}")))?;
    if let Err(e) = checked {
        let _ = std::fs::remove_dir_all(state.store.job_dir(&job));
        return Err(e);
    }
    let row = JobRow {
        id: job.clone(),
        key_set: id.clone(),
        state: JobState::Queued,
        error: None,
        created: now(),
        outputs: None,
        output_bytes: None,
        server_s: None,
        memory_bytes: memory,
    };
    if let Err(e) = state
        .store
        .insert_job(&tenant, &row, idempotency.as_deref())
    {
        let _ = std::fs::remove_dir_all(state.store.job_dir(&job));
        // The same key sent twice at once: the other request's job is the one.
        if let Some(key) = &idempotency {
            if let Some(job) = state.store.job_by_idempotency_key(&tenant, key)? {
                return Ok((StatusCode::OK, Json(view(&state, job))).into_response());
            }
        }
        return Err(e);
    }
    state.scheduler.enqueue(
        slot,
        Ticket {
            job: job.clone(),
            tenant: tenant.clone(),
            key_set: id,
            memory,
        },
    )?;
    tracing::info!(tenant, job, "job queued");
    Ok((StatusCode::ACCEPTED, Json(view(&state, row))).into_response())
}

/// What a job submission's headers decide before its body is read.
enum Admission<'a> {
    /// A new job.
    New(NewJob<'a>),
    /// The job already submitted with this `Idempotency-Key`.
    Existing(JobRow),
}

/// A job admitted before its body is read: whose, its idempotency key, its context and
/// transform facts, its working memory, and its place in the queue.
struct NewJob<'a> {
    tenant: String,
    idempotency: Option<String>,
    ctx: helib_rs::Context,
    info: he_fft::TransformInfo,
    memory: u64,
    slot: Slot<'a>,
}

/// The checks that need no body: the caller, the key set, the idempotency key, room in the
/// queue and in the memory budget.
async fn admit_job<'a>(
    state: &'a AppState,
    caller: Result<String, ApiError>,
    id: &str,
    headers: &HeaderMap,
) -> Result<Admission<'a>, ApiError> {
    let tenant = caller?;
    check_id(id)?;
    let row = state
        .store
        .key_set(&tenant, id)?
        .ok_or_else(|| ApiError::not_found("key set"))?;
    let idempotency = headers
        .get("idempotency-key")
        .map(|v| {
            v.to_str()
                .ok()
                .filter(|k| !k.is_empty() && k.len() <= MAX_IDEMPOTENCY_KEY)
                .map(str::to_string)
                .ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "an Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} visible characters"
                    ))
                })
        })
        .transpose()?;
    if let Some(key) = &idempotency {
        if let Some(job) = state.store.job_by_idempotency_key(&tenant, key)? {
            if job.key_set != id {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "this Idempotency-Key was used for a job on another key set",
                ));
            }
            return Ok(Admission::Existing(job));
        }
    }
    let slot = state.scheduler.reserve()?;
    // From the loaded key set if there is one; else built again from its request (the
    // context and the plans: a fraction of a second at N = 65536).
    let (ctx, info) = match state.scheduler.loaded_keys(&tenant, id) {
        Some(keys) => (keys.context().clone(), keys.transform().info()),
        None => {
            let request: Request = row
                .request
                .parse()
                .map_err(|e| ApiError::internal(format!("a stored request: {e}")))?;
            // A key set stored under another policy (toy rings allowed then, say).
            state.policy.check(&request)?;
            tokio::task::block_in_place(|| {
                let ctx = request.context::<Fr>()?;
                let (info, _) = request.outline::<Fr>(&ctx)?;
                Ok::<_, he_fft::Error>((ctx, info))
            })?
        }
    };
    let memory = working_memory(&ctx, &info);
    let budget = state.scheduler.gate().budget();
    if memory + row.memory_bytes > budget {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "this job needs about {} bytes of memory with its keys, more than the server's \
                 budget of {budget}",
                memory + row.memory_bytes
            ),
        ));
    }
    Ok(Admission::New(NewJob {
        tenant,
        idempotency,
        ctx,
        info,
        memory,
        slot,
    }))
}

/// Writes the body's ciphertexts into the job's folder and parses each under the key set's
/// public key: a truncated or foreign ciphertext is refused now, not when the job runs.
fn unpack_inputs(
    state: &AppState,
    tenant: &str,
    key_set: &str,
    job: &str,
    spooled: &std::path::Path,
    ctx: &helib_rs::Context,
    count: usize,
) -> Result<(), ApiError> {
    let dir = ExchangeDir::new(state.store.job_dir(job));
    let folder = dir.path(Side::Public, "");
    std::fs::create_dir_all(&folder)
        .map_err(|e| ApiError::internal(format!("a job folder: {e}")))?;
    let file = std::fs::File::open(spooled)
        .map_err(|e| ApiError::internal(format!("a received body: {e}")))?;
    read_ciphertexts_into(
        std::io::BufReader::new(file),
        ctx,
        count,
        &dir,
        ExchangeDir::input_name,
    )?;
    // The loaded key set's public key if there is one; else read from its folder.
    let pk = match state.scheduler.loaded_keys(tenant, key_set) {
        Some(keys) => keys.public_key().clone(),
        None => ExchangeDir::new(state.store.key_set_dir(tenant, key_set))
            .read_public_key(ctx, Side::Public)?,
    };
    for i in 0..count {
        let path = dir.path(Side::Public, &ExchangeDir::input_name(i));
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| ApiError::internal(format!("an input file: {e}")))?;
        Ctxt::from_bytes(&pk, &bytes).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("ciphertext {i}: {e}"),
            )
        })?;
    }
    sync_dir(&folder);
    Ok(())
}

async fn list_jobs(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
) -> Result<Json<Vec<JobView>>, ApiError> {
    let rows = state.store.jobs(&tenant, 100)?;
    Ok(Json(rows.into_iter().map(|r| view(&state, r)).collect()))
}

/// `?wait=S`: how long `GET /v1/jobs/{id}` may hold the answer until the job ends (parsed
/// here, so that a malformed one gets the JSON error every other refusal gets).
fn wait_seconds(query: Option<&str>) -> Result<u64, ApiError> {
    let Some(query) = query.filter(|q| !q.is_empty()) else {
        return Ok(0);
    };
    query
        .strip_prefix("wait=")
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| ApiError::bad_request("the only query is wait=SECONDS"))
}

/// The longest `wait` honoured, in seconds.
const MAX_WAIT_S: u64 = 60;

/// `GET /v1/jobs/{id}[?wait=S]`: the job's view, at once, or once it has ended (or `S`
/// seconds have passed, at most 60), so a client learns of the end without polling.
async fn get_job(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Json<JobView>, ApiError> {
    let wait = wait_seconds(query.as_deref())?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(wait.min(MAX_WAIT_S));
    loop {
        // Registered before the look, so that an end in between is not missed.
        let ended = state.scheduler.job_ended();
        let row = tenant_job(&state, &tenant, &id)?;
        if row.state.is_final() || tokio::time::Instant::now() >= deadline {
            return Ok(Json(view(&state, row)));
        }
        let _ = tokio::time::timeout_at(deadline, ended).await;
    }
}

/// `DELETE /v1/jobs/{id}`: cancels a queued or running job (`200` with its view); forgets a
/// finished one and its outputs (`204`).
async fn delete_job(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let row = tenant_job(&state, &tenant, &id)?;
    if !row.state.is_final() {
        // Cancelled now, or ended meanwhile: either way the view, and nothing deleted.
        if state.scheduler.cancel(&id)? {
            tracing::info!(tenant, job = id, "job cancelled");
        }
        let row = tenant_job(&state, &tenant, &id)?;
        return Ok(Json(view(&state, row)).into_response());
    }
    state.store.delete_job(&tenant, &id)?;
    let _ = std::fs::remove_dir_all(state.store.job_dir(&id));
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /v1/jobs/{id}/result`: the outputs as a list of ciphertexts, once done.
async fn get_result(
    State(state): State<Shared>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let row = tenant_job(&state, &tenant, &id)?;
    if row.state != JobState::Done {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("the job is {:?}, not done", row.state).to_lowercase(),
        ));
    }
    // Streamed from the files: a result is never held in memory whole.
    let dir = ExchangeDir::new(state.store.job_dir(&id));
    let count = row.outputs.unwrap_or(0);
    let gone = |_| ApiError::new(StatusCode::GONE, "the job's outputs were deleted");
    let mut head = he_fft::protocol::CIPHERTEXTS_MAGIC.to_vec();
    head.extend_from_slice(&count.to_le_bytes());
    let mut reader: std::pin::Pin<Box<dyn tokio::io::AsyncRead + Send>> =
        Box::pin(std::io::Cursor::new(head));
    let mut total = 0u64;
    for i in 0..count as usize {
        let path: PathBuf = dir.path(Side::Public, &ExchangeDir::output_name(i));
        let file = tokio::fs::File::open(&path).await.map_err(gone)?;
        let len = file.metadata().await.map_err(gone)?.len();
        total += len;
        let frame = std::io::Cursor::new(len.to_le_bytes().to_vec());
        reader = Box::pin(tokio::io::AsyncReadExt::chain(
            tokio::io::AsyncReadExt::chain(reader, frame),
            file,
        ));
    }
    let length = he_fft::protocol::ciphertexts_len(count as usize, total);
    let body = Body::from_stream(tokio_util::io::ReaderStream::with_capacity(reader, 1 << 20));
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CONTENT_LENGTH, length.to_string()),
        ],
        body,
    )
        .into_response())
}
