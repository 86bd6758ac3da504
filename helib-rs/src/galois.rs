//! Slot rotations: [`GaloisSteps`] (which rotations a computation needs), [`GaloisKeys`] (the
//! key-switching keys for exactly those) and the rotation methods of [`Ctxt`].
//!
//! With the [`BatchEncoder`](crate::BatchEncoder) slot layout a plaintext holds two rows of
//! `N/2` slots. The automorphism `X -> X^g` of the ring permutes the slots: `g = 3^k mod 2N`
//! rotates both rows left by `k`, `g = 2N - 1` swaps the rows, and `g = 1` is the identity.
//! On a ciphertext the automorphism must be followed by a key switch back to the secret key,
//! which needs one Galois key per element `g`; keys are large (a few tens of MiB each at
//! `N = 32768`), so only the requested ones are generated.

use std::fmt;
use std::ptr::{self, NonNull};

use helib_bindings as sys;
use rayon::prelude::*;

use crate::context::Context;
use crate::ctxt::Ctxt;
use crate::encoder::pow_mod;
use crate::error::{check, Error, Result};
use crate::keys::{KeyId, SecKey};

/// The rotations a computation needs, in user terms: row-rotation steps and, optionally, the
/// row swap. Turned into keys by [`GaloisKeys::generate`].
///
/// A step `k` rotates both rows of `N/2` slots **left** by `k` (the new slot `j` is the old
/// slot `j + k`); a negative `k` rotates right by `|k|`. Steps are taken modulo the row size
/// `N/2` when the keys are generated, so `-1` and `N/2 - 1` need the same key, and a step of
/// `0` (modulo `N/2`) needs no key at all. Duplicates are harmless.
///
/// # Example
///
/// ```
/// use helib_rs::GaloisSteps;
///
/// let steps = GaloisSteps::new().step(1).steps([2, 4, -1]).row_swap();
/// assert_eq!(steps.requested_steps(), &[1, 2, 4, -1]);
/// assert!(steps.includes_row_swap());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GaloisSteps {
    steps: Vec<i64>,
    row_swap: bool,
}

impl GaloisSteps {
    /// No rotations at all (keys generated from this are empty).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let none = GaloisSteps::new();
    /// assert!(none.requested_steps().is_empty());
    /// assert!(!none.includes_row_swap());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the row rotation by `k` (positive: left, negative: right).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step(5).step(-3);
    /// assert_eq!(steps.requested_steps(), &[5, -3]);
    /// ```
    pub fn step(mut self, k: i64) -> Self {
        self.steps.push(k);
        self
    }

    /// Adds every row rotation in `ks`.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// // The power-of-two steps: any rotation is a sum of them.
    /// let steps = GaloisSteps::new().steps((0..10).map(|i| 1i64 << i));
    /// assert_eq!(steps.requested_steps().len(), 10);
    /// ```
    pub fn steps(mut self, ks: impl IntoIterator<Item = i64>) -> Self {
        self.steps.extend(ks);
        self
    }

    /// Adds the row swap (Galois element `2N - 1`).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert!(GaloisSteps::new().row_swap().includes_row_swap());
    /// ```
    pub fn row_swap(mut self) -> Self {
        self.row_swap = true;
        self
    }

    /// The steps added so far, as given (not yet reduced modulo `N/2`).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert_eq!(GaloisSteps::new().step(-1).step(7).requested_steps(), &[-1, 7]);
    /// ```
    pub fn requested_steps(&self) -> &[i64] {
        &self.steps
    }

    /// Whether the row swap was requested.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert!(!GaloisSteps::new().step(1).includes_row_swap());
    /// ```
    pub fn includes_row_swap(&self) -> bool {
        self.row_swap
    }

    /// Everything either set asks for: the keys for two computations run with one key set.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let both = GaloisSteps::new().step(1).union(&GaloisSteps::new().step(2).row_swap());
    /// assert_eq!(both.requested_steps(), &[1, 2]);
    /// assert!(both.includes_row_swap());
    /// ```
    pub fn union(&self, other: &GaloisSteps) -> GaloisSteps {
        GaloisSteps {
            steps: self.steps.iter().chain(&other.steps).copied().collect(),
            row_swap: self.row_swap || other.row_swap,
        }
    }
}

/// Galois (rotation) keys for a chosen set of automorphisms, generated from a [`SecKey`].
///
/// Only the requested keys exist: [`Ctxt::rotate_rows`] by a step whose key is missing fails
/// with [`Error::MissingKey`] naming the step, and nothing is computed. The keys belong to
/// one context and one secret key; using them on a ciphertext of another context or key is
/// refused with [`Error::Mismatch`].
///
/// Immutable after generation, so one instance can serve many threads at once (share it by
/// reference or in an `Arc`).
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder()
///     .ring_degree(2048)
///     .plaintext_field::<Fr>()
///     .ciphertext_bits(600)
///     .allow_insecure(true) // a toy size; see Context::bn254 for real parameters
///     .build()?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1).step(-2).row_swap())?;
///
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect(); // rows 0..1024, 1024..2048
/// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
///
/// ct.rotate_rows(1, &gk)?; // both rows left by one
/// let rotated = enc.decode(&sk.decrypt_poly(&ct)?);
/// assert_eq!(rotated[0], Fr::from(1u64));
/// assert_eq!(rotated[1023], Fr::from(0u64));
/// assert_eq!(rotated[1024], Fr::from(1025u64));
///
/// ct.swap_rows(&gk)?;
/// let swapped = enc.decode(&sk.decrypt_poly(&ct)?);
/// assert_eq!(swapped[0], Fr::from(1025u64));
///
/// // No key for a rotation by 3:
/// let err = ct.rotate_rows(3, &gk).unwrap_err();
/// assert!(err.to_string().contains("rotation by 3"));
/// # Ok(())
/// # }
/// ```
pub struct GaloisKeys {
    raw: NonNull<sys::helib_galois_keys>,
    ctx: Context,
    secret_id: KeyId,
    /// The Galois elements that have a key: sorted, without duplicates, never 1.
    elements: Vec<u64>,
    size_bytes: u64,
}

// SAFETY: the engine's Galois keys are immutable after generation; this wrapper has no
// interior mutability and only ever passes the handle as a const pointer (to _has,
// _size_bytes and as the key argument of the rotations), and the C API declares const handles
// safe to use from several threads at once. The handle has no thread affinity and is freed
// once, from Drop; the context it refers to is kept alive by `ctx`.
unsafe impl Send for GaloisKeys {}
// SAFETY: as above — `&GaloisKeys` only reaches const C functions.
unsafe impl Sync for GaloisKeys {}

impl Drop for GaloisKeys {
    fn drop(&mut self) {
        // SAFETY: `raw` came from helib_galois_keys_new and is freed exactly once, here, while
        // the context is still alive (`self.ctx` is dropped after this runs). The C function
        // cannot fail or throw.
        unsafe { sys::helib_galois_keys_free(self.raw.as_ptr()) }
    }
}

impl GaloisKeys {
    /// Generates the keys for the rotations in `steps`, and nothing else.
    ///
    /// Each step is reduced modulo `N/2`; steps equal to 0 need no key and duplicates share
    /// one. Every key costs a key-switching key's worth of time and memory (see
    /// [`size_bytes`](Self::size_bytes)). With several threads in the current rayon pool
    /// (`ThreadPool::install`, or the global pool) the keys are generated in parallel.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// // -1 and 1023 are the same rotation of rows of 1024; 0 needs no key.
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps([1, -1, 1023, 0]))?;
    /// assert_eq!(gk.elements().len(), 2);
    /// assert!(gk.has_step(-1) && gk.has_step(1) && !gk.has_step(2));
    /// # Ok(())
    /// # }
    /// ```
    pub fn generate(sk: &SecKey, steps: &GaloisSteps) -> Result<GaloisKeys> {
        let ctx = sk.context();
        let mut elements: Vec<u64> = steps
            .steps
            .iter()
            .map(|&k| rotation_element(ctx, k))
            .collect();
        if steps.row_swap {
            elements.push(row_swap_element(ctx));
        }
        Self::generate_for_elements(sk, &elements)
    }

    /// Generates keys for raw Galois elements `g` (odd, below `2N`): the automorphisms
    /// `X -> X^g`. Duplicates share one key and `g = 1` (the identity) needs none, so it is
    /// left out of [`elements`](Self::elements).
    ///
    /// Fails with [`Error::InvalidArgument`] for an even element or one of `2N` or more.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, Error, GaloisKeys, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// // 3: rotate left by one; 4095 = 2N - 1: swap the rows.
    /// let gk = GaloisKeys::generate_for_elements(&sk, &[3, 4095, 1])?;
    /// assert_eq!(gk.elements(), &[3, 4095]);
    /// assert!(gk.has_step(1) && gk.has_row_swap());
    /// assert!(matches!(
    ///     GaloisKeys::generate_for_elements(&sk, &[4]),
    ///     Err(Error::InvalidArgument(_))
    /// ));
    /// # Ok(())
    /// # }
    /// ```
    pub fn generate_for_elements(sk: &SecKey, elements: &[u64]) -> Result<GaloisKeys> {
        let ctx = sk.context();
        if let Some(&g) = elements.iter().find(|&&g| !valid_element(ctx, g)) {
            return Err(Error::InvalidArgument(invalid_element_message(ctx, g)));
        }
        let mut wanted: Vec<u64> = elements.iter().copied().filter(|&g| g != 1).collect();
        wanted.sort_unstable();
        wanted.dedup();
        // The keys are independent and the secret key is only read, so with several threads in
        // the current rayon pool each key is generated on its own and the sets are merged (the
        // engine shares the keys, it does not copy them).
        if wanted.len() > 1 && rayon::current_num_threads() > 1 {
            let parts = wanted
                .par_iter()
                .map(|&g| Self::generate_raw(sk, &[g]))
                .collect::<Result<Vec<_>>>()?;
            return Self::merged(sk, &parts, wanted);
        }
        Self::generate_raw(sk, &wanted)
    }

    /// One engine call for `wanted` (valid, sorted, deduplicated, without 1).
    fn generate_raw(sk: &SecKey, wanted: &[u64]) -> Result<GaloisKeys> {
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: the secret-key handle is live and only read; `wanted` holds `wanted.len()`
        // elements and outlives the call (an empty slice's dangling pointer is never read for
        // count 0); `raw` is a valid out-pointer, set only on success.
        check(unsafe {
            sys::helib_galois_keys_new(&mut raw, sk.as_ptr(), wanted.as_ptr(), wanted.len())
        })?;
        Self::from_raw(raw, sk.context(), Some(wanted.to_vec()))
    }

    /// The union of `parts`, all generated from `sk`, whose elements are `elements`.
    fn merged(sk: &SecKey, parts: &[GaloisKeys], elements: Vec<u64>) -> Result<GaloisKeys> {
        let handles: Vec<*const sys::helib_galois_keys> =
            parts.iter().map(|p| p.raw.as_ptr().cast_const()).collect();
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: every handle is live (owned by `parts`, which outlives the call) and only
        // read; `handles` holds `handles.len()` pointers; `raw` is a valid out-pointer.
        check(unsafe { sys::helib_galois_keys_merge(&mut raw, handles.as_ptr(), handles.len()) })?;
        Self::from_raw(raw, sk.context(), Some(elements))
    }

    /// Takes ownership of a handle the engine just returned for `ctx`, whose elements are
    /// `elements` (sorted, without duplicates or 1), or are asked of the engine if `None`.
    pub(crate) fn from_raw(
        raw: *mut sys::helib_galois_keys,
        ctx: &Context,
        elements: Option<Vec<u64>>,
    ) -> Result<GaloisKeys> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no Galois keys".into()))?;
        let mut keys = GaloisKeys {
            raw,
            ctx: ctx.clone(),
            secret_id: 0,
            elements: elements.unwrap_or_default(),
            size_bytes: 0,
        };
        // SAFETY (these three calls): the handle is live and only read; the out-pointers are
        // valid, and `keys.elements` is written only after being sized to the engine's count.
        // On error `keys` is dropped, which frees the handle.
        check(unsafe { sys::helib_galois_keys_id(raw.as_ptr(), &mut keys.secret_id) })?;
        check(unsafe { sys::helib_galois_keys_size_bytes(raw.as_ptr(), &mut keys.size_bytes) })?;
        if keys.elements.is_empty() {
            let mut needed = 0usize;
            check(unsafe {
                sys::helib_galois_keys_elements(raw.as_ptr(), ptr::null_mut(), 0, &mut needed)
            })?;
            keys.elements = vec![0; needed];
            check(unsafe {
                sys::helib_galois_keys_elements(
                    raw.as_ptr(),
                    keys.elements.as_mut_ptr(),
                    needed,
                    &mut needed,
                )
            })?;
        }
        Ok(keys)
    }

    /// The context these keys belong to.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new())?;
    /// assert!(gk.context().same_as(&ctx));
    /// # Ok(())
    /// # }
    /// ```
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Whether these keys were generated from `sk`.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let other = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new())?;
    /// assert!(gk.belongs_to(&sk) && !gk.belongs_to(&other));
    /// # Ok(())
    /// # }
    /// ```
    pub fn belongs_to(&self, sk: &SecKey) -> bool {
        self.secret_id == sk.id() && self.ctx.same_as(sk.context())
    }

    /// Bytes of memory held by the key material (grows linearly with the number of keys).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let one = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1))?;
    /// let two = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1).step(2))?;
    /// assert!(two.size_bytes() > one.size_bytes());
    /// # Ok(())
    /// # }
    /// ```
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// Whether [`Ctxt::rotate_rows`] by `k` has its key: `k` is reduced modulo `N/2`, and a
    /// step of 0 needs no key (always `true`).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(5))?;
    /// assert!(gk.has_step(5));
    /// assert!(gk.has_step(5 - 1024)); // the same rotation of rows of N/2 = 1024
    /// assert!(gk.has_step(0));
    /// assert!(!gk.has_step(4));
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_step(&self, k: i64) -> bool {
        self.has_element(rotation_element(&self.ctx, k))
    }

    /// Whether [`Ctxt::swap_rows`] has its key.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1))?;
    /// assert!(!gk.has_row_swap());
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_row_swap(&self) -> bool {
        self.has_element(row_swap_element(&self.ctx))
    }

    /// Whether [`Ctxt::apply_galois`] by the raw element `g` has its key (`g = 1` needs none).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(2))?;
    /// assert!(gk.has_element(9)); // 3^2
    /// assert!(gk.has_element(1));
    /// assert!(!gk.has_element(3));
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_element(&self, g: u64) -> bool {
        g == 1 || self.elements.binary_search(&g).is_ok()
    }

    /// The Galois elements that have a key, ascending, without duplicates (never 1).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(2).step(1).row_swap())?;
    /// assert_eq!(gk.elements(), &[3, 9, 4095]); // 3^1, 3^2, 2N - 1
    /// # Ok(())
    /// # }
    /// ```
    pub fn elements(&self) -> &[u64] {
        &self.elements
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_galois_keys {
        self.raw.as_ptr()
    }
}

impl fmt::Debug for GaloisKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GaloisKeys")
            .field("ring_degree", &self.ctx.ring_degree())
            .field("elements", &self.elements)
            .field("size_bytes", &self.size_bytes)
            .finish_non_exhaustive()
    }
}

/// Rotations. Every method checks, before calling the engine, that the keys belong to this
/// ciphertext's context and secret key ([`Error::Mismatch`]) and that every key it needs is
/// there ([`Error::MissingKey`], naming the step); on any error the ciphertext is unchanged.
///
/// A rotation costs one key switch: its noise is added to the ciphertext's, a small and
/// constant amount, so long chains of rotations keep almost all of the noise budget.
impl Ctxt {
    /// In place: rotates both rows of slots left by `k` (right by `|k|` for a negative `k`),
    /// `k` taken modulo `N/2`. A step of 0 does nothing and needs no key.
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no key for this step; generate it with
    /// [`GaloisSteps::step`].
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(-1))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// ct.rotate_rows(-1, &gk)?; // right by one: row 0 becomes 1023, 0, 1, ...
    /// let got = enc.decode(&sk.decrypt_poly(&ct)?);
    /// assert_eq!(&got[..3], &[Fr::from(1023u64), Fr::from(0u64), Fr::from(1u64)]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotate_rows(&mut self, k: i64, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        let g = rotation_element(self.context(), k);
        self.apply_element(g, gk, || missing_step_message(gk, k))
    }

    /// The ciphertext with both rows rotated left by `k`, leaving `self` as it is (see
    /// [`rotate_rows`](Self::rotate_rows)).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(3))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// let rotated = ct.rotated_rows(3, &gk)?;
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&rotated)?)[0], Fr::from(3u64));
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&ct)?)[0], Fr::from(0u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotated_rows(&self, k: i64, gk: &GaloisKeys) -> Result<Ctxt> {
        // A batch of one (which checks the keys first): the engine builds the result from the key switch's outputs, with
        // no copy of `self` first.
        let mut out = self.rotate_rows_many(&[k], gk)?;
        out.pop()
            .ok_or_else(|| Error::InvalidArgument("the engine returned no rotation".into()))
    }

    /// Hoisted rotations: one new ciphertext per step, `out[i]` rotated left by `steps[i]`,
    /// sharing one digit decomposition of `self` (cheaper than separate
    /// [`rotated_rows`](Self::rotated_rows) calls; the results are the same). `self` is left
    /// as it is; a step of 0 gives a copy.
    ///
    /// All keys are checked before any work: a missing one fails with [`Error::MissingKey`]
    /// naming the first step without a key, and nothing is returned.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps([1, 2, 4]))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// let rotated = ct.rotate_rows_many(&[0, 1, 2, 4], &gk)?;
    /// for (r, k) in rotated.iter().zip([0u64, 1, 2, 4]) {
    ///     assert_eq!(enc.decode(&sk.decrypt_poly(r)?)[0], Fr::from(k));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotate_rows_many(&self, steps: &[i64], gk: &GaloisKeys) -> Result<Vec<Ctxt>> {
        self.ensure_galois_keys(gk)?;
        let elements: Vec<u64> = steps
            .iter()
            .map(|&k| rotation_element(self.context(), k))
            .collect();
        if let Some(i) = elements.iter().position(|&g| !gk.has_element(g)) {
            return Err(Error::MissingKey(missing_step_message(gk, steps[i])));
        }
        if steps.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = OwnedHandles(vec![ptr::null_mut(); elements.len()]);
        // SAFETY: `self` and the key handle are live and only read; `elements` holds
        // `elements.len()` values and `out.0` has room for as many handles. The engine sets
        // either all of them or none.
        check(unsafe {
            sys::helib_ctxt_apply_galois_many(
                self.as_ptr(),
                elements.as_ptr(),
                elements.len(),
                gk.as_ptr(),
                out.0.as_mut_ptr(),
            )
        })
        .map_err(|e| {
            engine_missing_key(e, || {
                format!("no Galois key for one of the row rotations by {steps:?}")
            })
        })?;
        // Each handle is taken out before it is wrapped: if wrapping fails, the ones already
        // wrapped are freed by `rotated` and the rest by `out`.
        let mut rotated = Vec::with_capacity(out.0.len());
        for handle in out.0.iter_mut() {
            let raw = std::mem::replace(handle, ptr::null_mut());
            rotated.push(Ctxt::from_raw(raw, self.pubkey())?);
        }
        Ok(rotated)
    }

    /// In place: swaps the two rows of slots (Galois element `2N - 1`).
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no row-swap key; generate it with
    /// [`GaloisSteps::row_swap`].
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().row_swap())?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// ct.swap_rows(&gk)?;
    /// let got = enc.decode(&sk.decrypt_poly(&ct)?);
    /// assert_eq!((got[0], got[1024]), (Fr::from(1024u64), Fr::from(0u64)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn swap_rows(&mut self, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        let g = row_swap_element(self.context());
        self.apply_element(g, gk, || {
            format!(
                "no Galois key for the row swap (element {g}); generate the keys with \
                 GaloisSteps::new().row_swap()"
            )
        })
    }

    /// In place: the automorphism `X -> X^g` for a raw Galois element `g` (odd, below `2N`),
    /// key-switched back to the secret key. `g = 1` does nothing and needs no key.
    ///
    /// On the plaintext this is [`BatchEncoder::apply_galois`](crate::BatchEncoder::apply_galois).
    /// Fails with [`Error::InvalidArgument`] for an invalid `g` and with
    /// [`Error::MissingKey`] when `gk` has no key for it.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate_for_elements(&sk, &[5])?;
    /// let mut ct = pk.encrypt_poly(&[Fr::from(0u64), Fr::from(7u64)])?; // 7X
    /// ct.apply_galois(5, &gk)?;                                          // 7X^5
    /// let got = sk.decrypt_poly::<Fr>(&ct)?;
    /// assert_eq!((got[1], got[5]), (Fr::from(0u64), Fr::from(7u64)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply_galois(&mut self, g: u64, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        if !valid_element(self.context(), g) {
            return Err(Error::InvalidArgument(invalid_element_message(
                self.context(),
                g,
            )));
        }
        let ctx = self.context().clone();
        self.apply_element(g, gk, || {
            format!(
                "no Galois key for element {g} ({}); generate it with \
                 GaloisKeys::generate_for_elements or GaloisSteps",
                describe_element(&ctx, g)
            )
        })
    }

    /// Fails with [`Error::Mismatch`] unless `gk` has this context and this secret key.
    pub(crate) fn ensure_galois_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.context()
            .ensure_same(gk.context(), "the ciphertext and the Galois keys")?;
        if self.pubkey().secret_id() != gk.secret_id {
            return Err(Error::Mismatch(
                "the Galois keys were generated from a different secret key than the one the \
                 ciphertext is encrypted under"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Applies the valid element `g` in place, after checking that its key is there; `missing`
    /// describes the missing key in the caller's terms.
    fn apply_element(
        &mut self,
        g: u64,
        gk: &GaloisKeys,
        missing: impl FnOnce() -> String,
    ) -> Result<()> {
        if g == 1 {
            return Ok(());
        }
        if !gk.has_element(g) {
            return Err(Error::MissingKey(missing()));
        }
        let keys = gk.as_ptr();
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed; `keys` is a live
        // handle (borrowed for the call) that the engine only reads.
        self.modify(|a| unsafe { sys::helib_ctxt_apply_galois(a, g, keys) })
            .map_err(|e| engine_missing_key(e, missing))
    }
}

/// Frees, on drop, every handle still in the vector (those not yet wrapped in a `Ctxt`).
struct OwnedHandles(Vec<*mut sys::helib_ctxt>);

impl Drop for OwnedHandles {
    fn drop(&mut self) {
        for &raw in &self.0 {
            // SAFETY: each non-null entry is a handle the engine produced that nothing else
            // owns (wrapped ones were replaced by null); helib_ctxt_free accepts null.
            unsafe { sys::helib_ctxt_free(raw) }
        }
    }
}

/// Rewrites a `MissingKey` from the engine in user terms (the Rust-side checks make this a
/// fallback: it means the engine and this crate disagree on which keys exist).
pub(crate) fn engine_missing_key(e: Error, describe: impl FnOnce() -> String) -> Error {
    match e {
        Error::MissingKey(engine) => Error::MissingKey(format!("{} ({engine})", describe())),
        other => other,
    }
}

/// `N / 2`, the length of a slot row.
fn row_size(ctx: &Context) -> u64 {
    ctx.ring_degree() as u64 / 2
}

/// `k` reduced to a left rotation in `0..N/2`.
fn normalized_step(ctx: &Context, k: i64) -> u64 {
    i128::from(k).rem_euclid(i128::from(row_size(ctx))) as u64
}

/// The Galois element `3^k mod 2N` of a left rotation by `k` (1 when `k = 0 mod N/2`).
pub(crate) fn rotation_element(ctx: &Context, k: i64) -> u64 {
    pow_mod(3, normalized_step(ctx, k), 2 * ctx.ring_degree() as u64)
}

/// The Galois element `2N - 1` that swaps the rows.
fn row_swap_element(ctx: &Context) -> u64 {
    2 * ctx.ring_degree() as u64 - 1
}

fn valid_element(ctx: &Context, g: u64) -> bool {
    g % 2 == 1 && g < 2 * ctx.ring_degree() as u64
}

fn invalid_element_message(ctx: &Context, g: u64) -> String {
    format!(
        "Galois element {g} must be odd and below 2N = {}",
        2 * ctx.ring_degree() as u64
    )
}

pub(crate) fn missing_step_message(gk: &GaloisKeys, k: i64) -> String {
    let ctx = gk.context();
    let left = normalized_step(ctx, k);
    let g = rotation_element(ctx, k);
    let same = if i128::from(k) == i128::from(left) {
        String::new()
    } else {
        format!(", i.e. left by {left}")
    };
    format!(
        "no Galois key for row rotation by {k} (element {g}{same}); generate the keys with \
         GaloisSteps::new().step({k}), or any step equal to it modulo N/2 = {}",
        row_size(ctx)
    )
}

/// What a valid element does to the slots: `3^k` rotates left by `k`, `-3^k` also swaps the
/// rows (every odd residue mod 2N is one of these). Linear in `N`; for error messages only.
fn describe_element(ctx: &Context, g: u64) -> String {
    let m = 2 * ctx.ring_degree() as u64;
    let mut power = 1u64;
    for k in 0..row_size(ctx) {
        if power == g {
            return format!("row rotation by {k}");
        }
        if m - power == g {
            return if k == 0 {
                "the row swap".to_string()
            } else {
                format!("row swap combined with row rotation by {k}")
            };
        }
        power = power * 3 % m;
    }
    "not a slot permutation".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context::builder()
            .ring_degree(2048)
            .plaintext_field::<ark_bn254::Fr>()
            .ciphertext_bits(400)
            .allow_insecure(true)
            .build()
            .expect("toy context")
    }

    #[test]
    fn steps_map_to_powers_of_three() {
        let ctx = ctx();
        assert_eq!(rotation_element(&ctx, 0), 1);
        assert_eq!(rotation_element(&ctx, 1), 3);
        assert_eq!(rotation_element(&ctx, 5), 243);
        assert_eq!(rotation_element(&ctx, 1024), 1);
        assert_eq!(rotation_element(&ctx, -1), rotation_element(&ctx, 1023));
        assert_eq!(rotation_element(&ctx, i64::MIN), 1); // -2^63 = 0 mod 1024
        assert_eq!(normalized_step(&ctx, -3), 1021);
        assert_eq!(row_swap_element(&ctx), 4095);
    }

    #[test]
    fn elements_are_described_in_slot_terms() {
        let ctx = ctx();
        assert_eq!(describe_element(&ctx, 243), "row rotation by 5");
        assert_eq!(describe_element(&ctx, 4095), "the row swap");
        assert_eq!(
            describe_element(&ctx, 4096 - 9),
            "row swap combined with row rotation by 2"
        );
        assert_eq!(describe_element(&ctx, 1), "row rotation by 0");
    }
}
