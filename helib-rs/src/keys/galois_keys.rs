//! [`GaloisKeys`](crate::GaloisKeys): the key-switching keys for exactly the rotations asked for.

use std::fmt;
use std::ptr::{self, NonNull};

use helib_bindings as sys;
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{check, Error, Result};
use crate::keys::galois_elements::*;
use crate::keys::{GaloisSteps, KeyId, SecKey};

/// Galois (rotation) keys for a chosen set of automorphisms, generated from a [`SecKey`](crate::SecKey).
///
/// Only the requested keys exist: [`Ctxt::rotate_rows`](crate::Ctxt::rotate_rows) by a step whose key is missing fails
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
    pub(crate) secret_id: KeyId,
    /// The Galois elements that have a key: sorted, without duplicates, never 1.
    elements: Vec<u64>,
    size_bytes: u64,
    /// Derived from master keys ([`MasterKeys`](crate::MasterKeys)).
    derived: bool,
    /// Parallel to `elements`: the levels each key serves.
    levels: Vec<u32>,
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
    ///
    /// A step asked for [up to a level](GaloisSteps::step_up_to_level) gets a key for the
    /// levels up to it only, smaller by the primes above:
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let full = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1))?;
    /// let low = GaloisKeys::generate(&sk, &GaloisSteps::new().step_up_to_level(1, 3))?;
    /// assert!(low.size_bytes() < full.size_bytes());
    /// assert_eq!(low.max_level_for(&GaloisSteps::new().step(1)), Some(3));
    /// assert_eq!(full.max_level_for(&GaloisSteps::new().step(1)), None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn generate(sk: &SecKey, steps: &GaloisSteps) -> Result<GaloisKeys> {
        let ctx = sk.context();
        let mut wanted: Vec<(u64, Option<u32>)> = steps
            .steps
            .iter()
            .zip(&steps.levels)
            .map(|(&k, &level)| (rotation_element(ctx, k), level))
            .collect();
        if steps.row_swap {
            wanted.push((row_swap_element(ctx), None));
        }
        Self::generate_capped(sk, &wanted)
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
        let wanted: Vec<(u64, Option<u32>)> = elements.iter().map(|&g| (g, None)).collect();
        Self::generate_capped(sk, &wanted)
    }

    /// Keys for the elements of `wanted`, each for the levels up to its cap (`None`: all).
    fn generate_capped(sk: &SecKey, wanted: &[(u64, Option<u32>)]) -> Result<GaloisKeys> {
        let ctx = sk.context();
        if let Some(&(g, _)) = wanted.iter().find(|&&(g, _)| !valid_element(ctx, g)) {
            return Err(Error::InvalidArgument(invalid_element_message(ctx, g)));
        }
        let top = ctx.num_ctxt_primes();
        if let Some(level) = wanted
            .iter()
            .filter_map(|&(_, l)| l)
            .find(|&l| l == 0 || l > top)
        {
            return Err(Error::InvalidArgument(format!(
                "a Galois key up to level {level}: levels run from 1 to the context's {top}"
            )));
        }
        // One key per element, serving the most levels asked of it (0: all, for the engine).
        let mut keys: Vec<(u64, u32)> = wanted
            .iter()
            .filter(|&&(g, _)| g != 1)
            .map(|&(g, l)| (g, l.map_or(0, |l| if l == top { 0 } else { l })))
            .collect();
        // Per element, the most levels first (0, all of them, above any cap).
        keys.sort_unstable_by_key(|&(g, l)| (g, std::cmp::Reverse(l.wrapping_sub(1))));
        keys.dedup_by_key(|&mut (g, _)| g);
        // The keys are independent and the secret key is only read, so with several threads in
        // the current rayon pool each key is generated on its own and the sets are merged (the
        // engine shares the keys, it does not copy them).
        let elements: Vec<u64> = keys.iter().map(|&(g, _)| g).collect();
        if keys.len() > 1 && rayon::current_num_threads() > 1 {
            let parts = keys
                .par_iter()
                .map(|&key| Self::generate_raw(sk, &[key]))
                .collect::<Result<Vec<_>>>()?;
            return Self::merged(sk, &parts, elements);
        }
        Self::generate_raw(sk, &keys)
    }

    /// One engine call for `keys` (valid elements, sorted, deduplicated, without 1; each with
    /// its levels, 0 for all).
    fn generate_raw(sk: &SecKey, keys: &[(u64, u32)]) -> Result<GaloisKeys> {
        let (elements, levels): (Vec<u64>, Vec<u32>) = keys.iter().copied().unzip();
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: the secret-key handle is live and only read; `elements` and `levels` hold
        // `elements.len()` entries each and outlive the call (an empty slice's dangling pointer
        // is never read for count 0); `raw` is a valid out-pointer, set only on success.
        check(unsafe {
            sys::helib_galois_keys_new_capped(
                &mut raw,
                sk.as_ptr(),
                elements.as_ptr(),
                levels.as_ptr(),
                elements.len(),
            )
        })?;
        Self::from_raw(raw, sk.context(), Some(elements))
    }

    /// The union of `parts`, all generated from `sk`, whose elements are `elements`.
    fn merged(sk: &SecKey, parts: &[GaloisKeys], elements: Vec<u64>) -> Result<GaloisKeys> {
        Self::merged_in(sk.context(), parts, elements)
    }

    /// The union of `parts`, all of `ctx` and one secret key, whose elements are `elements`.
    pub(crate) fn merged_in(
        ctx: &Context,
        parts: &[GaloisKeys],
        elements: Vec<u64>,
    ) -> Result<GaloisKeys> {
        let handles: Vec<*const sys::helib_galois_keys> =
            parts.iter().map(|p| p.raw.as_ptr().cast_const()).collect();
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: every handle is live (owned by `parts`, which outlives the call) and only
        // read; `handles` holds `handles.len()` pointers; `raw` is a valid out-pointer.
        check(unsafe { sys::helib_galois_keys_merge(&mut raw, handles.as_ptr(), handles.len()) })?;
        Self::from_raw(raw, ctx, Some(elements))
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
            derived: false,
            levels: Vec::new(),
        };
        // SAFETY (these three calls): the handle is live and only read; the out-pointers are
        // valid, and `keys.elements` is written only after being sized to the engine's count.
        // On error `keys` is dropped, which frees the handle.
        check(unsafe { sys::helib_galois_keys_id(raw.as_ptr(), &mut keys.secret_id) })?;
        check(unsafe { sys::helib_galois_keys_size_bytes(raw.as_ptr(), &mut keys.size_bytes) })?;
        let mut derived = 0i32;
        // SAFETY: as above.
        check(unsafe { sys::helib_galois_keys_derived(raw.as_ptr(), &mut derived) })?;
        keys.derived = derived != 0;
        if keys.elements.is_empty() {
            // SAFETY: as above; `out` is null (the size query) or writable for `len` elements.
            keys.elements = query_elements(|out, len, needed| unsafe {
                sys::helib_galois_keys_elements(raw.as_ptr(), out, len, needed)
            })?;
        }
        keys.levels = keys
            .elements
            .iter()
            .map(|&g| {
                let mut levels = 0u32;
                // SAFETY: as above; `levels` is a valid out-pointer.
                check(unsafe { sys::helib_galois_keys_levels(raw.as_ptr(), g, &mut levels) })?;
                Ok(levels)
            })
            .collect::<Result<_>>()?;
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

    /// Whether these keys and `pk` come from the same secret key: what a server, which holds
    /// no secret key, can check of an owner's upload (keys of another key would rotate
    /// ciphertexts into garbage).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let other = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new())?;
    /// assert!(gk.matches(&PubKey::generate(&sk)?));
    /// assert!(!gk.matches(&PubKey::generate(&other)?));
    /// # Ok(())
    /// # }
    /// ```
    pub fn matches(&self, pk: &crate::PubKey) -> bool {
        self.secret_id == pk.inner.secret_id() && self.ctx.same_as(pk.context())
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

    /// Whether these keys were derived from master keys
    /// ([`MasterKeys::derive`](crate::MasterKeys::derive)): they then serve ciphertexts up to
    /// [`max_level`](Self::max_level) and are not serialized (ship the master keys instead).
    pub fn is_derived(&self) -> bool {
        self.derived
    }

    /// The highest level every one of these keys rotates at: the context's
    /// [`derivation_level`](Context::derivation_level) for derived keys, the lowest
    /// [level cap](GaloisSteps::step_up_to_level) among capped keys, `None` (every level) for
    /// keys generated from the secret key without caps. A computation switches its
    /// ciphertexts down to it first; one that uses only some of the keys asks
    /// [`max_level_for`](Self::max_level_for) instead.
    pub fn max_level(&self) -> Option<u32> {
        self.lowest_cap(self.levels.iter().copied())
    }

    /// The highest level at which every key `steps` asks for rotates (`None`: every level):
    /// what a computation that rotates by `steps` switches its ciphertexts down to first.
    /// Steps without a key here are left out (a rotation by them fails anyway).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, GaloisSteps, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1).step_up_to_level(2, 4))?;
    /// assert_eq!(gk.max_level_for(&GaloisSteps::new().step(1)), None);
    /// assert_eq!(gk.max_level_for(&GaloisSteps::new().steps([1, 2])), Some(4));
    /// assert_eq!(gk.max_level(), Some(4));
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_level_for(&self, steps: &GaloisSteps) -> Option<u32> {
        let mut elements: Vec<u64> = steps
            .steps
            .iter()
            .map(|&k| rotation_element(&self.ctx, k))
            .collect();
        if steps.row_swap {
            elements.push(row_swap_element(&self.ctx));
        }
        self.lowest_cap(
            elements
                .iter()
                .filter_map(|g| self.elements.binary_search(g).ok())
                .map(|i| self.levels[i]),
        )
    }

    /// The lowest of `levels` if it is below what an uncapped key of this set serves.
    fn lowest_cap(&self, levels: impl Iterator<Item = u32>) -> Option<u32> {
        let full = if self.derived {
            self.ctx.derivation_level()?
        } else {
            self.ctx.num_ctxt_primes()
        };
        let lowest = levels.min().map_or(full, |l| l.min(full));
        (self.derived || lowest < full).then_some(lowest)
    }

    /// Whether [`Ctxt::rotate_rows`](crate::Ctxt::rotate_rows) by `k` has its key: `k` is reduced modulo `N/2`, and a
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

    /// Whether [`Ctxt::swap_rows`](crate::Ctxt::swap_rows) has its key.
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

    /// Whether [`Ctxt::apply_galois`](crate::Ctxt::apply_galois) by the raw element `g` has its key (`g = 1` needs none).
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
