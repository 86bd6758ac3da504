//! Encryption parameters: [`ContextBuilder`] and the shared, immutable [`Context`].

use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use ark_ff::PrimeField;
use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::limbs::{modulus_limbs, trim_high_zeros};

/// Default number of key-switching digits (`dnum`), a balance between key size and noise.
pub const DEFAULT_KS_DIGITS: u32 = 3;

/// The BGV parameters — ring, plaintext modulus `p`, ciphertext-modulus chain, key-switching
/// primes — shared by every key and ciphertext made from them.
///
/// Cloning is cheap (a reference count). Keys and ciphertexts hold a clone, so a `Context`
/// lives as long as anything made from it. Objects of different contexts never mix: such
/// operations return [`Error::Mismatch`].
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    raw: NonNull<sys::helib_context>,
    info: sys::helib_context_info,
    ring_degree: usize,
    plaintext_limbs: usize,
    p_limbs: Vec<u64>,
}

// SAFETY: the engine's Context is immutable once built and the C API declares const handles
// safe to use from several threads at once; the wrapper only ever passes it as a const pointer
// and frees it once, from Drop, when the last reference is gone.
unsafe impl Send for ContextInner {}
// SAFETY: as above — there is no interior mutation, on either side of the FFI boundary.
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // SAFETY: `raw` came from helib_context_new and is freed exactly once, here; every key
        // and ciphertext holds an Arc to this value, so none of them outlives the handle.
        unsafe { sys::helib_context_free(self.raw.as_ptr()) }
    }
}

impl Context {
    /// Starts describing a context; see [`ContextBuilder`].
    pub fn builder() -> ContextBuilder {
        ContextBuilder::new()
    }

    /// A 128-bit secure context for the BN254 scalar field (`ark_bn254::Fr`), the field of
    /// most zk provers.
    ///
    /// `ring_degree` is `N` (a power of two, at least 1024) and `ciphertext_bits` the size of
    /// the ciphertext modulus. The number of key-switching digits is the smallest (from
    /// [`DEFAULT_KS_DIGITS`] up) that passes the 128-bit gate: more digits mean fewer special
    /// primes, so more of the security budget goes to the ciphertext modulus, at the price of
    /// a larger relinearization key. For example at `N = 32768` a 550-bit chain passes with
    /// 3 digits and a 760-bit chain with 8; at `N = 65536` about 1600 bits fit.
    ///
    /// Fails with [`Error::InsecureParameters`] when no digit count reaches 128 bits.
    #[cfg(feature = "bn254")]
    pub fn bn254(ring_degree: u64, ciphertext_bits: u32) -> Result<Context> {
        Self::for_field::<ark_bn254::Fr>(ring_degree, ciphertext_bits)
    }

    /// As [`Context::bn254`] for any prime field `F`: the fewest key-switching digits that
    /// reach 128-bit security, or [`Error::InsecureParameters`] if none does.
    pub fn for_field<F: PrimeField>(ring_degree: u64, ciphertext_bits: u32) -> Result<Context> {
        ContextBuilder::new()
            .ring_degree(ring_degree)
            .plaintext_field::<F>()
            .ciphertext_bits(ciphertext_bits)
            .build_with_fewest_digits()
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_context {
        self.inner.raw.as_ptr()
    }

    /// Whether `self` and `other` are the same context (not merely equal parameters).
    pub fn same_as(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Fails with [`Error::Mismatch`] unless `other` is this very context.
    pub(crate) fn ensure_same(&self, other: &Context, what: &str) -> Result<()> {
        if self.same_as(other) {
            Ok(())
        } else {
            Err(Error::Mismatch(format!(
                "{what} belong to different contexts"
            )))
        }
    }

    /// The cyclotomic index `m` (a power of two); the ring is `Z[X]/(X^N + 1)` with `N = m/2`.
    pub fn m(&self) -> u64 {
        self.inner.info.m
    }

    /// The ring degree `N = m / 2`: the number of plaintext coefficients.
    pub fn ring_degree(&self) -> usize {
        self.inner.ring_degree
    }

    /// The plaintext modulus `p` as little-endian `u64` limbs, without high zero limbs.
    pub fn plaintext_modulus_limbs(&self) -> &[u64] {
        &self.inner.p_limbs
    }

    /// Bit length of the plaintext modulus `p`.
    pub fn plaintext_bits(&self) -> u32 {
        self.inner.info.plaintext_bits
    }

    /// Number of `u64` limbs the engine uses per plaintext coefficient.
    pub fn plaintext_limbs(&self) -> usize {
        self.inner.plaintext_limbs
    }

    /// Number of primes in the ciphertext chain, `L`: the level of a fresh ciphertext and the
    /// highest level there is. Level 1 is the lowest.
    pub fn num_ctxt_primes(&self) -> u32 {
        self.inner.info.num_ctxt_primes
    }

    /// Number of special primes `K` used only during key switching.
    pub fn num_special_primes(&self) -> u32 {
        self.inner.info.num_special_primes
    }

    /// Number of key-switching digits (`dnum`) the engine settled on (with
    /// [`derivable_keys`](ContextBuilder::derivable_keys), one more for the extra primes).
    pub fn ks_digits(&self) -> u32 {
        self.inner.info.ks_digits
    }

    /// For a context built with [`derivable_keys`](ContextBuilder::derivable_keys): the
    /// highest level derived Galois keys serve (the chain below the extra primes), where a
    /// computation with them starts. `None` for other contexts.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::Context;
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).derivable_keys(true).allow_insecure(true).build()?;
    /// let top = ctx.derivation_level().expect("derivable");
    /// assert!(top < ctx.num_ctxt_primes());
    /// # Ok(())
    /// # }
    /// ```
    pub fn derivation_level(&self) -> Option<u32> {
        match self.inner.info.derivation_level {
            0 => None,
            level => Some(level),
        }
    }

    /// The parties whose key shares make the secret key
    /// ([`ContextBuilder::parties`]): 1 for a key of one owner.
    pub fn parties(&self) -> u32 {
        self.inner.info.parties
    }

    /// Whether `p = 1 mod m`, so that the plaintext ring splits into `N` slots (full SIMD
    /// packing). True for BN254's scalar field up to `m = 2^28`.
    pub fn slots_available(&self) -> bool {
        self.inner.info.slots_available != 0
    }

    /// `log2(Q)`, the size in bits of the full ciphertext modulus.
    pub fn log2_q(&self) -> f64 {
        self.inner.info.log2_q
    }

    /// `log2(Q * P)`, ciphertext plus special primes: the size security is judged on.
    pub fn log2_qp(&self) -> f64 {
        self.inner.info.log2_qp
    }

    /// Estimated classical security level in bits (from the HE Standard table for a uniform
    /// ternary secret). Below 128 only if the context was built with
    /// [`ContextBuilder::allow_insecure`].
    ///
    /// The estimate never goes past its table: it is capped at 256, the table's last column
    /// (read 256 as "at least 256"), and it is 0 for ring degrees outside the table (1024 to
    /// 131072), which are refused unless the caller opts out.
    /// [`security_label`](Self::security_label) formats it that way.
    pub fn security_bits(&self) -> f64 {
        self.inner.info.security_bits
    }

    /// [`security_bits`](Self::security_bits) for people: `"~171 bits"`, `">= 256 bits"` at the
    /// table's cap, `"none claimed (...)"` where the estimate is 0.
    pub fn security_label(&self) -> String {
        let bits = self.security_bits();
        if bits >= 256.0 {
            ">= 256 bits".into()
        } else if bits <= 0.0 {
            "none claimed (far below 128 bits, or a ring size outside the table)".into()
        } else {
            format!("~{bits:.0} bits")
        }
    }

    /// Noise budget, in bits, of a fresh encryption: roughly how much noise growth the
    /// parameters leave for computation.
    pub fn fresh_noise_budget(&self) -> f64 {
        self.inner.info.fresh_noise_budget
    }

    /// The levels at which the stages of a computation run, for planning Galois keys that
    /// serve only the levels they are used at ([`GaloisSteps::step_up_to_level`](crate::GaloisSteps::step_up_to_level)):
    /// `out[s]` is stage `s`'s level when the input is a fresh (secret-key) encryption of
    /// random values, each stage first switches to its natural level
    /// ([`Ctxt::mod_switch_to_natural_level`](crate::Ctxt::mod_switch_to_natural_level)), and
    /// its key switches and plaintext products then grow the noise by `log2_growth[s]` bits
    /// (beyond one key switch's noise). A noisier ciphertext drops more primes, so growths
    /// above the true ones give levels at or below the true ones (by one level while the
    /// excess stays under a prime's bits).
    ///
    /// Fails with [`Error::InvalidArgument`] for a growth outside `[0, 10000]` bits.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::Context;
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(1200).allow_insecure(true).build()?;
    /// // Two stages, each multiplying by plaintexts of about 254 + 11 bits of norm.
    /// let levels = ctx.stage_levels(&[265.0, 265.0])?;
    /// assert_eq!(levels[0], ctx.num_ctxt_primes()); // a fresh input stays at the top
    /// assert!(levels[1] < levels[0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn stage_levels(&self, log2_growth: &[f64]) -> Result<Vec<u32>> {
        let mut out = vec![0u32; log2_growth.len()];
        // SAFETY: the context handle is live (held by self); `log2_growth` and `out` hold
        // `log2_growth.len()` entries each and outlive the call.
        check(unsafe {
            sys::helib_context_stage_levels(
                self.as_ptr(),
                log2_growth.as_ptr(),
                log2_growth.len(),
                out.as_mut_ptr(),
            )
        })?;
        Ok(out)
    }

    /// The ciphertext-chain primes `q_0 .. q_{L-1}`.
    pub fn primes(&self) -> Result<Vec<u64>> {
        let mut out = vec![0u64; self.inner.info.num_ctxt_primes as usize];
        let mut needed = 0usize;
        // SAFETY: the context handle is live (held by self); `out` is writable for
        // `out.len()` elements and `needed` is a valid out-pointer.
        check(unsafe {
            sys::helib_context_primes(self.as_ptr(), out.as_mut_ptr(), out.len(), &mut needed)
        })?;
        out.truncate(needed);
        Ok(out)
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("m", &self.m())
            .field("ring_degree", &self.ring_degree())
            .field("plaintext_bits", &self.plaintext_bits())
            .field("num_ctxt_primes", &self.num_ctxt_primes())
            .field("num_special_primes", &self.num_special_primes())
            .field("ks_digits", &self.ks_digits())
            .field("log2_q", &self.log2_q())
            .field("log2_qp", &self.log2_qp())
            .field("security_bits", &self.security_bits())
            .finish()
    }
}

/// How the ring size was given: both forms end up as `m` for the engine.
#[derive(Debug, Clone, Copy)]
enum RingSize {
    CyclotomicIndex(u64),
    Degree(u64),
}

/// Describes a [`Context`]; every setting is checked by [`build`](ContextBuilder::build).
///
/// Required: the ring size ([`m`](Self::m) or [`ring_degree`](Self::ring_degree)), the
/// plaintext modulus ([`plaintext_field`](Self::plaintext_field) or
/// [`plaintext_modulus_limbs`](Self::plaintext_modulus_limbs)) and
/// [`ciphertext_bits`](Self::ciphertext_bits).
#[derive(Debug, Clone)]
pub struct ContextBuilder {
    ring: Option<RingSize>,
    p_limbs: Option<Vec<u64>>,
    ciphertext_bits: Option<u32>,
    ks_digits: u32,
    allow_insecure: bool,
    derivable_keys: bool,
    parties: u32,
}

impl Default for ContextBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ContextBuilder {
    /// An empty description with `ks_digits = 3` and the 128-bit security gate on.
    pub fn new() -> Self {
        ContextBuilder {
            ring: None,
            p_limbs: None,
            ciphertext_bits: None,
            ks_digits: DEFAULT_KS_DIGITS,
            allow_insecure: false,
            derivable_keys: false,
            parties: 1,
        }
    }

    /// The cyclotomic index `m`, a power of two of at least 2048 (ring degree `N = m / 2`).
    /// Replaces an earlier [`ring_degree`](Self::ring_degree).
    pub fn m(mut self, m: u64) -> Self {
        self.ring = Some(RingSize::CyclotomicIndex(m));
        self
    }

    /// The ring degree `N`, a power of two of at least 1024 (`m = 2N`). Replaces an earlier
    /// [`m`](Self::m).
    pub fn ring_degree(mut self, n: u64) -> Self {
        self.ring = Some(RingSize::Degree(n));
        self
    }

    /// Uses the modulus of the arkworks field `F` as the plaintext modulus `p`, so that
    /// elements of `F` can be encrypted.
    pub fn plaintext_field<F: PrimeField>(mut self) -> Self {
        self.p_limbs = Some(modulus_limbs::<F>());
        self
    }

    /// The plaintext modulus `p` (an odd prime) as little-endian `u64` limbs.
    pub fn plaintext_modulus_limbs(mut self, limbs: &[u64]) -> Self {
        self.p_limbs = Some(limbs.to_vec());
        self
    }

    /// Requested size in bits of the ciphertext modulus `Q`; the engine's prime chain is at
    /// least this large. More bits allow more multiplications but lower security.
    pub fn ciphertext_bits(mut self, bits: u32) -> Self {
        self.ciphertext_bits = Some(bits);
        self
    }

    /// Number of key-switching digits (`dnum`, at least 1; default 3). More digits mean
    /// fewer special primes (more room in the security budget) but larger keys.
    pub fn ks_digits(mut self, digits: u32) -> Self {
        self.ks_digits = digits;
        self
    }

    /// Accept parameters estimated below 128-bit security (default `false`: such parameters
    /// are refused with [`Error::InsecureParameters`]). Only for tests and demos.
    pub fn allow_insecure(mut self, allow: bool) -> Self {
        self.allow_insecure = allow;
        self
    }

    /// Room for Galois keys a server derives from a few master keys
    /// ([`MasterKeys`](crate::MasterKeys)), default `false`. The chain gets extra primes above
    /// the [`ciphertext_bits`](Self::ciphertext_bits) asked for (about one digit's worth plus
    /// 40 bits), which derived keys divide by and which the security check counts; ciphertexts
    /// work at [`Context::derivation_level`] and below.
    pub fn derivable_keys(mut self, derivable: bool) -> Self {
        self.derivable_keys = derivable;
        self
    }

    /// A secret key shared by `parties` parties (2 to 64; default 1, a key of one owner): each
    /// makes a [`KeyShare`](crate::threshold::KeyShare), the joint keys are their sums, and
    /// decryption takes every party. The noise model counts the joint secret and the joint
    /// keys' errors as sums of `parties` terms (about `log2(parties) / 2` bits more noise),
    /// and the context's bytes and fingerprint name the count.
    pub fn parties(mut self, parties: u32) -> Self {
        self.parties = parties;
        self
    }

    /// [`build`](Self::build) with the fewest key-switching digits (from
    /// [`DEFAULT_KS_DIGITS`] up) that pass the 128-bit gate, as [`Context::for_field`] picks
    /// them: [`Error::InsecureParameters`] if none does.
    pub fn build_with_fewest_digits(self) -> Result<Context> {
        let first = self.clone().ks_digits(DEFAULT_KS_DIGITS).build();
        let Err(Error::InsecureParameters(_)) = first else {
            return first;
        };
        // Digits beyond one per chain prime change nothing, so the chain length bounds the
        // search. Security only improves with more digits: the first pass is the smallest.
        let probe = self.clone().allow_insecure(true).build()?;
        for digits in DEFAULT_KS_DIGITS + 1..=probe.num_ctxt_primes() {
            match self.clone().ks_digits(digits).build() {
                Err(Error::InsecureParameters(_)) => continue,
                other => return other,
            }
        }
        first
    }

    /// Checks the parameters and builds the context (prime chain and precomputed tables).
    pub fn build(self) -> Result<Context> {
        let m = match self.ring {
            None => {
                return Err(Error::InvalidArgument(
                    "ring size not set: call m() or ring_degree()".into(),
                ))
            }
            Some(RingSize::CyclotomicIndex(m)) => m,
            // Checked here so that the message speaks of N, the size the caller gave.
            Some(RingSize::Degree(n)) if n.is_power_of_two() && (1024..=1 << 19).contains(&n) => {
                2 * n
            }
            Some(RingSize::Degree(n)) => {
                return Err(Error::InvalidArgument(format!(
                    "the ring degree N must be a power of two in [1024, 2^19] (got {n})"
                )))
            }
        };
        let p_limbs = self.p_limbs.ok_or_else(|| {
            Error::InvalidArgument(
                "plaintext modulus not set: call plaintext_field() or plaintext_modulus_limbs()"
                    .into(),
            )
        })?;
        let ciphertext_bits = self.ciphertext_bits.ok_or_else(|| {
            Error::InvalidArgument("ciphertext modulus size not set: call ciphertext_bits()".into())
        })?;

        let params = sys::helib_context_params {
            m,
            p_limbs: if p_limbs.is_empty() {
                ptr::null()
            } else {
                p_limbs.as_ptr()
            },
            p_len: p_limbs.len(),
            ciphertext_bits,
            ks_digits: self.ks_digits,
            allow_insecure: i32::from(self.allow_insecure),
            derivable_keys: i32::from(self.derivable_keys),
            parties: self.parties,
        };
        let mut raw: *mut sys::helib_context = ptr::null_mut();
        // SAFETY: `params` and the limbs it points to live across the call; `raw` is a valid
        // out-pointer that the engine sets only on success.
        check(unsafe { sys::helib_context_new(&mut raw, &params) })?;
        Context::from_raw(raw, Some(trim_high_zeros(&p_limbs).to_vec()))
    }
}

impl Context {
    /// Takes ownership of a context handle the engine just produced; `p_limbs` is its
    /// plaintext modulus without high zero limbs, or asked of the engine if `None`.
    pub(crate) fn from_raw(
        raw: *mut sys::helib_context,
        p_limbs: Option<Vec<u64>>,
    ) -> Result<Context> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no context".into()))?;
        // Owned from here on: an early return below frees the handle through Drop.
        let mut inner = ContextInner {
            raw,
            info: empty_info(),
            ring_degree: 0,
            plaintext_limbs: 0,
            p_limbs: p_limbs.unwrap_or_default(),
        };
        // SAFETY: the handle is live; `inner.info` is a valid out-pointer.
        check(unsafe { sys::helib_context_get_info(raw.as_ptr(), &mut inner.info) })?;
        inner.ring_degree = usize::try_from(inner.info.ring_degree)
            .map_err(|_| Error::Internal("ring degree does not fit in usize".into()))?;
        inner.plaintext_limbs = inner.info.plaintext_limbs as usize;
        if inner.plaintext_limbs == 0 || inner.ring_degree == 0 {
            return Err(Error::Internal(
                "engine reports an empty ring or zero-limb plaintexts".into(),
            ));
        }
        if inner.p_limbs.is_empty() {
            let mut limbs = vec![0u64; inner.plaintext_limbs];
            let mut needed = 0usize;
            // SAFETY: the handle is live; `limbs` is writable for its length and `needed` is a
            // valid out-pointer.
            check(unsafe {
                sys::helib_context_plaintext_modulus(
                    raw.as_ptr(),
                    limbs.as_mut_ptr(),
                    limbs.len(),
                    &mut needed,
                )
            })?;
            limbs.truncate(needed);
            inner.p_limbs = trim_high_zeros(&limbs).to_vec();
        }
        Ok(Context {
            inner: Arc::new(inner),
        })
    }
}

fn empty_info() -> sys::helib_context_info {
    sys::helib_context_info {
        m: 0,
        ring_degree: 0,
        plaintext_bits: 0,
        plaintext_limbs: 0,
        num_ctxt_primes: 0,
        num_special_primes: 0,
        ks_digits: 0,
        slots_available: 0,
        log2_q: 0.0,
        log2_qp: 0.0,
        security_bits: 0.0,
        fresh_noise_budget: 0.0,
        derivation_level: 0,
        parties: 0,
    }
}
