//! [`Outsourcing`]: the data owner's session, its keys and its server, entered on a thread so
//! that ark-groth16's static `R1CSToQAP` calls find it.

use std::any::Any;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::Matrix;
use he_fft::{ClientAssistedWitnessMap, DiagonalCache, EncryptedWitnessMap, FftOptions};
use helib_rs::{Context, GaloisKeys, PubKey, SecKey};

use crate::{Error, Evaluations, InProcessServer, WitnessMapRoute, WitnessServer};

/// The owner's side of `route` for domain size `n`, shaped by the server's `options` (whose
/// plan decides the Galois keys): encryption, decryption and the keys' steps only (no
/// diagonals encoded).
fn owner_map<F: FftField + PrimeField>(
    ctx: &Context,
    n: usize,
    route: WitnessMapRoute,
    options: &FftOptions,
) -> Result<Box<dyn EncryptedWitnessMap<F>>, Error> {
    Ok(match route {
        WitnessMapRoute::ServerOnly => {
            he_fft::witness_map_for(ctx, n, &options.clone().with_cache(DiagonalCache::Never))?
        }
        WitnessMapRoute::ClientAssisted => Box::new(ClientAssistedWitnessMap::new(ctx, n)?),
    })
}

/// An encrypted vector as the server receives or returns it: one byte string per ciphertext.
pub type Ciphertexts = Vec<Vec<u8>>;

/// What the owner's side of the witness maps cost so far (summed over calls).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Witness maps computed.
    pub calls: usize,
    /// Encrypting `a` and `b`.
    pub encrypt: Duration,
    /// Waiting for the server (in process: the server's computation).
    pub server: Duration,
    /// Decrypting `h`.
    pub decrypt: Duration,
    /// The owner's `O(n)` check of `h`.
    pub check: Duration,
    /// The owner's work after the check: circom's coset evaluation
    /// ([`Outsourcing::circom_witness_map`]); zero for ark-groth16's form.
    pub finish: Duration,
    /// Ciphertext bytes sent to the server.
    pub upload_bytes: u64,
    /// Ciphertext bytes received.
    pub download_bytes: u64,
    /// The noise budget the last result arrived with (bits, the least over its ciphertexts):
    /// the margin the server's computation left.
    pub noise_budget_bits: f64,
}

/// The data owner's session: its secret key, the server that computes witness maps for it,
/// and the domain size the keys were made for.
///
/// [`witness_map`](Self::witness_map) is the direct call (matrices and assignment in, `h`
/// out). For ark-groth16's prover, [`enter`](Self::enter) the session on the proving thread
/// and prove with [`EncryptedReduction`](crate::EncryptedReduction):
///
/// ```no_run
/// # use std::sync::Arc;
/// # fn demo<C: ark_relations::gr1cs::ConstraintSynthesizer<ark_bn254::Fr>>(
/// #     circuit: C, pk: &ark_groth16::ProvingKey<ark_bn254::Bn254>,
/// #     rng: &mut ark_std::rand::rngs::StdRng) -> Result<(), Box<dyn std::error::Error>> {
/// use ark_groth16::Groth16;
/// use he_groth16::{EncryptedReduction, Outsourcing, WitnessMapRoute};
///
/// let (session, _setup) = Outsourcing::<ark_bn254::Fr>::in_process(1024, WitnessMapRoute::ServerOnly)?;
/// let session = Arc::new(session);
/// let _guard = session.enter();
/// let proof = Groth16::<ark_bn254::Bn254, EncryptedReduction>::create_random_proof_with_reduction(
///     circuit, pk, rng)?;
/// # Ok(()) }
/// ```
pub struct Outsourcing<F: FftField + PrimeField> {
    sk: SecKey,
    pk: PubKey,
    map: Box<dyn EncryptedWitnessMap<F>>,
    server: Box<dyn WitnessServer>,
    report: Mutex<Report>,
}

/// What [`Outsourcing::in_process`] set up, and what it took.
#[derive(Debug)]
pub struct Setup {
    /// The context (its ring, modulus and security say what the session runs on).
    pub context: Context,
    /// Secret, public and relinearization key generation.
    pub keygen: Duration,
    /// Galois key generation.
    pub galois_keygen: Duration,
    /// How many Galois keys.
    pub galois_keys: usize,
    /// Bytes of the Galois keys as the owner would upload them.
    pub galois_key_bytes: u64,
    /// Bytes the Galois keys take in the server's memory (about twice the wire size: the
    /// uniform halves travel as seeds).
    pub galois_key_memory: u64,
    /// Bytes of the public key (with its relinearization key) on the wire.
    pub public_key_bytes: u64,
    /// The server's one-time preparation (encoding its plaintext matrices).
    pub server_setup: Duration,
}

impl<F: FftField + PrimeField> Outsourcing<F> {
    /// A session for domain size `n` with the key pair `sk`, `pk`, whose witness maps
    /// `server` computes (a server that holds `pk` and the Galois keys of the map on `sk`'s
    /// context).
    pub fn new(
        sk: SecKey,
        pk: PubKey,
        server: Box<dyn WitnessServer>,
        n: usize,
        route: WitnessMapRoute,
    ) -> Result<Self, Error> {
        Self::with_options(sk, pk, server, n, route, &FftOptions::default())
    }

    /// [`new`](Self::new) with the plan options the server builds its witness map with (they
    /// decide its Galois keys): a remote server's are those its request names
    /// ([`he_fft::protocol::Request::options`]), whatever either side's thread count.
    pub fn with_options(
        sk: SecKey,
        pk: PubKey,
        server: Box<dyn WitnessServer>,
        n: usize,
        route: WitnessMapRoute,
        options: &FftOptions,
    ) -> Result<Self, Error> {
        if !pk.belongs_to(&sk) {
            return Err(Error::SessionMismatch(
                "the public key is not the secret key's".into(),
            ));
        }
        let map = owner_map::<F>(sk.context(), n, route, options)?;
        Ok(Outsourcing {
            sk,
            pk,
            map,
            server,
            report: Mutex::new(Report::default()),
        })
    }

    /// A session with everything in this process: a >= 128-bit secure context for `n` and
    /// the route ([`he_fft::witness_map_context`], [`he_fft::ClientAssistedWitnessMap::secure_context`]), fresh
    /// keys, and an [`InProcessServer`] holding only the public ones.
    pub fn in_process(n: usize, route: WitnessMapRoute) -> Result<(Self, Setup), Error> {
        let context = match route {
            WitnessMapRoute::ServerOnly => he_fft::witness_map_context::<F>(n)?,
            WitnessMapRoute::ClientAssisted => {
                he_fft::ClientAssistedWitnessMap::<F>::secure_context(n)?
            }
        };
        Self::in_process_on(context, n, route)
    }

    /// [`in_process`](Self::in_process) on a context of the caller's (tests use toy rings).
    ///
    /// The server encodes its plaintext diagonals when a witness map needs them
    /// ([`DiagonalCache::Never`]): for one proof that costs less in all than encoding them up
    /// front, and it keeps the least memory (n = 32768: 14.6 s and 6.6 GiB peak, against
    /// 4.7-5.6 s of encoding, then 11-12.5 s and 9.4 GiB with the default cache). A server that
    /// proves many times at one size caches them: [`in_process_with`](Self::in_process_with).
    pub fn in_process_on(
        context: Context,
        n: usize,
        route: WitnessMapRoute,
    ) -> Result<(Self, Setup), Error> {
        let options = FftOptions::default().with_cache(DiagonalCache::Never);
        Self::in_process_with(context, n, route, &options)
    }

    /// [`in_process_on`](Self::in_process_on) with the server's options: its diagonal cache
    /// policy ([`he_fft::DiagonalCache::Never`] for the least memory, say) and its plan, whose
    /// bound on the baby steps the owner's Galois keys follow (fewer keys, more rotations).
    pub fn in_process_with(
        context: Context,
        n: usize,
        route: WitnessMapRoute,
        options: &FftOptions,
    ) -> Result<(Self, Setup), Error> {
        let t = Instant::now();
        let sk = SecKey::generate(&context)?;
        let pk = PubKey::generate(&sk)?;
        let keygen = t.elapsed();
        let session_map = owner_map::<F>(&context, n, route, options)?;
        let t = Instant::now();
        let gk = GaloisKeys::generate(&sk, &session_map.galois_steps())?;
        let galois_keygen = t.elapsed();
        let galois_keys = gk.elements().len();
        let galois_key_bytes = gk.serialized_len()?;
        let galois_key_memory = gk.size_bytes();
        let public_key_bytes = pk.serialized_len()?;
        let t = Instant::now();
        let server = match route {
            WitnessMapRoute::ServerOnly => {
                InProcessServer::<F>::new(&context, pk.clone(), gk, n, options)?
            }
            WitnessMapRoute::ClientAssisted => {
                InProcessServer::<F>::client_assisted(&context, pk.clone(), n)?
            }
        };
        let server_setup = t.elapsed();
        let session = Outsourcing {
            sk,
            pk,
            map: session_map,
            server: Box::new(server),
            report: Mutex::new(Report::default()),
        };
        Ok((
            session,
            Setup {
                context,
                keygen,
                galois_keygen,
                galois_keys,
                galois_key_bytes,
                galois_key_memory,
                public_key_bytes,
                server_setup,
            },
        ))
    }

    /// The same session with its server wrapped by `wrap` (a proxy, a logger, or in tests a
    /// server that misbehaves).
    pub fn with_server(
        self,
        wrap: impl FnOnce(Box<dyn WitnessServer>) -> Box<dyn WitnessServer>,
    ) -> Self {
        Outsourcing {
            server: wrap(self.server),
            ..self
        }
    }

    /// The domain size the session serves.
    pub fn domain_size(&self) -> usize {
        self.map.info().len
    }

    /// The witness map's route, for reports ("server-only, one ciphertext", ...).
    pub fn route_name(&self) -> &'static str {
        self.map.route_name()
    }

    /// The context of the session's keys.
    pub fn context(&self) -> &Context {
        self.sk.context()
    }

    /// What the witness maps cost so far.
    pub fn report(&self) -> Report {
        self.report.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Groth16's witness map `h` for the R1CS `matrices` and `full_assignment`, with the FFT
    /// work done by the server on ciphertexts: the same arguments and the same result as
    /// ark-groth16's `LibsnarkReduction::witness_map_from_matrices` (for an assignment that
    /// satisfies the constraints).
    ///
    /// The owner computes `a`, `b`, `c` on `H` (sparse matrix-vector products), encrypts `a`
    /// and `b`, decrypts what the server returns, and checks it in `O(n)`
    /// ([`he_fft::check::quotient`]) before returning it: a wrong `h`, whoever caused it, is
    /// [`Error::Rejected`], never returned.
    pub fn witness_map(
        &self,
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, Error> {
        self.check_domain(num_constraints, num_inputs)?;
        let e = Evaluations::new(matrices, num_inputs, num_constraints, full_assignment)?;
        self.quotient(&e)
    }

    /// circom's form of the quotient for the same arguments, equal to ark-circom's
    /// `CircomReduction::witness_map_from_matrices`: what a snarkjs proving key (`.zkey`)
    /// expects. `matrices` is `[A, B]` or `[A, B, C]` (`C` unused; see
    /// [`Evaluations::circom`]).
    ///
    /// The server's work is [`witness_map`](Self::witness_map)'s, on the same keys; after the
    /// check, the owner turns `h` into the values of `A B - C` on the coset of the `2n`-th
    /// roots of unity ([`he_fft::circom_quotient`]: one FFT of size `n` in the clear, counted
    /// in [`Report::finish`]).
    pub fn circom_witness_map(
        &self,
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, Error> {
        let n = self.check_domain(num_constraints, num_inputs)?;
        let e = Evaluations::circom(matrices, num_inputs, num_constraints, full_assignment)?;
        let h = self.quotient(&e)?;
        let t = Instant::now();
        let domain = Radix2EvaluationDomain::<F>::new(n)
            .ok_or_else(|| Error::InvalidInput(format!("no domain of size {n}")))?;
        let values = he_fft::circom_quotient(&domain, &h)?;
        if let Ok(mut r) = self.report.lock() {
            r.finish += t.elapsed();
        }
        Ok(values)
    }

    /// The circuit's domain size, when it is the one the session's keys are for.
    fn check_domain(&self, num_constraints: usize, num_inputs: usize) -> Result<usize, Error> {
        let n = Evaluations::<F>::domain_size(num_constraints, num_inputs)?;
        if n != self.domain_size() {
            return Err(Error::SessionMismatch(format!(
                "the circuit's domain has {n} points, the session's keys are for {}",
                self.domain_size()
            )));
        }
        Ok(n)
    }

    /// `h` for evaluations on `H`: encrypted, sent, computed, decrypted and checked.
    fn quotient(&self, e: &Evaluations<F>) -> Result<Vec<F>, Error> {
        let t = Instant::now();
        let (a, b) = self.encrypt(e)?;
        let encrypt = t.elapsed();
        let t = Instant::now();
        let h_bytes = self.server.witness_map(&a, &b)?;
        let server = t.elapsed();
        if let Ok(mut r) = self.report.lock() {
            r.calls += 1;
            r.encrypt += encrypt;
            r.server += server;
            r.upload_bytes += a.iter().chain(&b).map(|x| x.len() as u64).sum::<u64>();
            r.download_bytes += h_bytes.iter().map(|x| x.len() as u64).sum::<u64>();
        }
        self.decrypt_and_check(e, &h_bytes)
    }

    /// The owner's first half of [`witness_map`](Self::witness_map): `a` and `b` encrypted
    /// with the secret key, as bytes for the server (half the size of public-key
    /// ciphertexts); on the client-assisted route, after the owner's two inverse FFTs.
    /// One byte string per ciphertext (several from `n = N` on).
    pub fn encrypt(&self, e: &Evaluations<F>) -> Result<(Ciphertexts, Ciphertexts), Error> {
        self.check_size(e.len())?;
        Ok((
            self.map.encrypt_to_bytes(&self.sk, &e.a)?,
            self.map.encrypt_to_bytes(&self.sk, &e.b)?,
        ))
    }

    /// The owner's second half: `h` from the server's bytes, decrypted and checked against
    /// `e` in `O(n)`; a wrong `h` is [`Error::Rejected`].
    pub fn decrypt_and_check(
        &self,
        e: &Evaluations<F>,
        h_bytes: &[Vec<u8>],
    ) -> Result<Vec<F>, Error> {
        self.check_size(e.len())?;
        // Counted before anything is parsed: each ciphertext costs its rows.
        let count = self.map.info().output_ciphertexts;
        if h_bytes.len() != count {
            return Err(Error::InvalidInput(format!(
                "{} ciphertexts for h, where the witness map returns {count}",
                h_bytes.len()
            )));
        }
        let t = Instant::now();
        let h = h_bytes
            .iter()
            .map(|bytes| helib_rs::Ctxt::from_bytes(&self.pk, bytes))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        let budget = h
            .iter()
            .map(helib_rs::Ctxt::noise_budget)
            .fold(f64::INFINITY, f64::min);
        let h = self.map.decrypt(&self.sk, &h)?;
        let decrypt = t.elapsed();
        let t = Instant::now();
        let domain = Radix2EvaluationDomain::<F>::new(e.len())
            .ok_or_else(|| Error::InvalidInput(format!("no domain of size {}", e.len())))?;
        let checked = he_fft::check::quotient(&domain, &e.a, &e.b, &e.c, &h);
        let check = t.elapsed();
        if let Ok(mut r) = self.report.lock() {
            r.decrypt += decrypt;
            r.check += check;
            r.noise_budget_bits = budget;
        }
        checked.map_err(|e| Error::Rejected(e.to_string()))?;
        Ok(h)
    }

    fn check_size(&self, n: usize) -> Result<(), Error> {
        if n != self.domain_size() {
            return Err(Error::SessionMismatch(format!(
                "the evaluations have {n} points, the session's keys are for {}",
                self.domain_size()
            )));
        }
        Ok(())
    }

    /// The Galois keys a server of this session needs (for a server elsewhere).
    pub fn galois_steps(&self) -> helib_rs::GaloisSteps {
        self.map.galois_steps()
    }
}

impl<F: FftField + PrimeField> Outsourcing<F> {
    /// Makes this session the one [`EncryptedReduction`](crate::EncryptedReduction) uses on
    /// the current thread until the guard is dropped (sessions entered later take
    /// precedence until their guards go).
    pub fn enter(self: &Arc<Self>) -> SessionGuard {
        let session: Arc<dyn Any + Send + Sync> = self.clone();
        let id = NEXT_GUARD.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        SESSIONS.with(|s| s.borrow_mut().push((id, session)));
        SessionGuard {
            id,
            _not_send: std::marker::PhantomData,
        }
    }
}

thread_local! {
    /// The sessions entered on this thread, each with the id of the guard that keeps it.
    static SESSIONS: RefCell<Vec<(u64, Arc<dyn Any + Send + Sync>)>> = const { RefCell::new(Vec::new()) };
    static NEXT_GUARD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static LAST_ERROR: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// Keeps a session entered on this thread ([`Outsourcing::enter`]); dropping it leaves that
/// session, whatever order guards are dropped in.
#[must_use = "the session is left when the guard is dropped"]
pub struct SessionGuard {
    id: u64,
    // The guard belongs to the thread whose session stack it edits.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        // Its own entry, not the top one: dropping an outer guard first must not leave the
        // inner session (and so switch the active server back).
        SESSIONS.with(|s| s.borrow_mut().retain(|(id, _)| *id != self.id));
    }
}

/// Runs `f` on the innermost session for field `F` entered on this thread.
pub(crate) fn with_session<F: FftField + PrimeField, T>(
    f: impl FnOnce(&Outsourcing<F>) -> Result<T, Error>,
) -> Result<T, Error> {
    let session = SESSIONS.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .find_map(|(_, any)| any.clone().downcast::<Outsourcing<F>>().ok())
    });
    match session {
        Some(s) => f(&s),
        None => Err(Error::NoSession),
    }
}

/// Records the error a `SynthesisError` stands for, for [`last_error`].
pub(crate) fn set_last_error(e: Error) {
    LAST_ERROR.with(|l| *l.borrow_mut() = Some(e));
}

/// The error behind the last `SynthesisError` that
/// [`EncryptedReduction`](crate::EncryptedReduction) returned on this thread (ark-groth16's
/// error type carries no text), taken out.
pub fn last_error() -> Option<Error> {
    LAST_ERROR.with(|l| l.borrow_mut().take())
}
