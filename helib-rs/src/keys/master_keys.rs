//! [`MasterKeys`](crate::MasterKeys): a few Galois keys from which a server derives the rest.

use std::collections::HashMap;
use std::fmt;
use std::ptr::{self, NonNull};

use helib_bindings as sys;
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{check, Error, Result};
use crate::keys::galois_elements::*;
use crate::keys::{GaloisKeys, GaloisSteps, KeyId, SecKey};

/// The rotations [`MasterKeys::generate`] makes masters of: the powers of this base below a
/// slot row (1, 16, 256, 4096 at `N = 65536`), and the row swap.
pub const MASTER_STEP_BASE: u64 = 16;

/// Master Galois keys: what a data owner ships instead of every Galois key a computation
/// uses. A server turns them into exactly the keys it needs with [`derive`](Self::derive).
///
/// The context must be built with [`derivable_keys`](crate::ContextBuilder::derivable_keys).
/// The masters are ordinary Galois keys over the whole chain for a few rotations, plus one key
/// for the identity in the form derived keys take. Deriving the key of a rotation `g h` from
/// that of `g` and the master of `h` is a key switch of each of its digits with the master,
/// done at the top level; the extra primes of a derivable context are the special modulus of
/// the derived keys, so the noise each derivation adds is divided away when they are used.
/// Derived keys therefore rotate ciphertexts at [`Context::derivation_level`] and below, with
/// the noise their derivation added counted in every rotation's tracked bound.
///
/// A rotation by `k` is derived along a shortest path of master steps from the identity (for
/// the default masters, about the sum of `k`'s base-16 digits key switches), and keys on
/// shared paths are derived once, in parallel on the current rayon pool.
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, GaloisSteps, MasterKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).derivable_keys(true)
///     .allow_insecure(true) // a toy size, for the example's speed
///     .build()?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let masters = MasterKeys::generate(&sk)?; // what the owner ships: rotations 1, 16, 256, swap
///
/// // The server: the keys for rotations by 3 and 37 from the masters alone.
/// let gk = masters.derive(&GaloisSteps::new().steps([3, 37]))?;
///
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
/// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
/// ct.rotate_rows(37, &gk)?;
/// assert_eq!(enc.decode(&sk.decrypt_poly(&ct)?)[0], Fr::from(37u64));
/// # Ok(())
/// # }
/// ```
pub struct MasterKeys {
    raw: NonNull<sys::helib_master_keys>,
    ctx: Context,
    pub(crate) secret_id: KeyId,
    /// The master elements, sorted.
    elements: Vec<u64>,
    size_bytes: u64,
}

// SAFETY: the engine's master keys are immutable after generation; the wrapper only passes the
// handle as a const pointer to functions the C API declares safe to call from several threads
// at once; it is freed once, from Drop, and its context is kept alive by `ctx`.
unsafe impl Send for MasterKeys {}
// SAFETY: as above.
unsafe impl Sync for MasterKeys {}

impl Drop for MasterKeys {
    fn drop(&mut self) {
        // SAFETY: `raw` came from the engine and is freed exactly once, here.
        unsafe { sys::helib_master_keys_free(self.raw.as_ptr()) }
    }
}

impl MasterKeys {
    /// The default masters: rotations by the powers of [`MASTER_STEP_BASE`] below a slot row,
    /// and the row swap. Every rotation derives from them.
    ///
    /// Fails with [`Error::InvalidArgument`] unless the context was built with
    /// [`derivable_keys`](crate::ContextBuilder::derivable_keys).
    pub fn generate(sk: &SecKey) -> Result<MasterKeys> {
        Self::generate_for(sk, &Self::default_steps(sk.context()))
    }

    /// The rotations [`generate`](Self::generate) makes masters of, for `ctx`.
    pub fn default_steps(ctx: &Context) -> GaloisSteps {
        let row = row_size(ctx);
        let mut steps = GaloisSteps::new().row_swap();
        let mut k = 1u64;
        while k < row {
            steps = steps.step(k as i64);
            k = k.saturating_mul(MASTER_STEP_BASE);
        }
        steps
    }

    /// Masters for the rotations (and row swap) in `steps`: [`derive`](Self::derive) then
    /// serves the products of these rotations. Fewer masters mean less to ship and longer
    /// derivations.
    pub fn generate_for(sk: &SecKey, steps: &GaloisSteps) -> Result<MasterKeys> {
        let ctx = sk.context();
        if ctx.derivation_level().is_none() {
            return Err(Error::InvalidArgument(
                "master keys need a context built with derivable_keys(true) (extra primes for \
                 the derived keys)"
                    .into(),
            ));
        }
        let mut elements: Vec<u64> = steps
            .steps
            .iter()
            .map(|&k| rotation_element(ctx, k))
            .filter(|&g| g != 1)
            .collect();
        if steps.row_swap {
            elements.push(row_swap_element(ctx));
        }
        elements.sort_unstable();
        elements.dedup();
        let mut raw: *mut sys::helib_master_keys = ptr::null_mut();
        // SAFETY: the secret-key handle is live and only read; `elements` holds its length in
        // elements and outlives the call; `raw` is a valid out-pointer set only on success.
        check(unsafe {
            sys::helib_master_keys_new(&mut raw, sk.as_ptr(), elements.as_ptr(), elements.len())
        })?;
        Self::from_raw(raw, ctx)
    }

    /// Takes ownership of a handle the engine just returned for `ctx`.
    pub(crate) fn from_raw(raw: *mut sys::helib_master_keys, ctx: &Context) -> Result<MasterKeys> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no master keys".into()))?;
        let mut keys = MasterKeys {
            raw,
            ctx: ctx.clone(),
            secret_id: 0,
            elements: Vec::new(),
            size_bytes: 0,
        };
        // SAFETY (these calls): the handle is live and only read; the out-pointers are valid
        // (`out` null for the size query, else writable for `len` elements). On error `keys` is
        // dropped, which frees the handle.
        check(unsafe { sys::helib_master_keys_id(raw.as_ptr(), &mut keys.secret_id) })?;
        check(unsafe { sys::helib_master_keys_size_bytes(raw.as_ptr(), &mut keys.size_bytes) })?;
        keys.elements = query_elements(|out, len, needed| unsafe {
            sys::helib_master_keys_elements(raw.as_ptr(), out, len, needed)
        })?;
        Ok(keys)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_master_keys {
        self.raw.as_ptr()
    }

    /// The context these keys belong to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The master Galois elements (`3^k mod 2N` for a rotation by `k`, `2N - 1` for the row
    /// swap), sorted.
    pub fn elements(&self) -> &[u64] {
        &self.elements
    }

    /// Bytes of memory the keys hold (about twice what [`to_bytes`](Self::to_bytes) writes).
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// Derives the Galois keys for the rotations in `steps`: what
    /// [`GaloisKeys::generate`](crate::GaloisKeys::generate) would give the owner, computed by
    /// the server from the masters. The keys are [derived](GaloisKeys::is_derived): they
    /// rotate ciphertexts at [`Context::derivation_level`] and below. Level caps in `steps`
    /// ([`GaloisSteps::step_up_to_level`]) are not applied: derived keys stay in memory, and
    /// cutting them after derivation raised the server's peak memory more than it saved.
    ///
    /// Fails with [`Error::MissingKey`] for a rotation the masters do not generate.
    pub fn derive(&self, steps: &GaloisSteps) -> Result<GaloisKeys> {
        let ctx = &self.ctx;
        let mut elements: Vec<u64> = steps
            .steps
            .iter()
            .map(|&k| rotation_element(ctx, k))
            .collect();
        if steps.row_swap {
            elements.push(row_swap_element(ctx));
        }
        self.derive_elements(&elements)
    }

    /// [`derive`](Self::derive) for raw Galois elements (odd, below `2N`; 1 needs no key).
    pub fn derive_elements(&self, elements: &[u64]) -> Result<GaloisKeys> {
        let ctx = &self.ctx;
        if let Some(&g) = elements.iter().find(|&&g| !valid_element(ctx, g)) {
            return Err(Error::InvalidArgument(invalid_element_message(ctx, g)));
        }
        let mut targets: Vec<u64> = elements.iter().copied().filter(|&g| g != 1).collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            return Err(Error::InvalidArgument(
                "nothing to derive: the rotations asked for need no key".into(),
            ));
        }
        let plan = DerivationPlan::new(ctx, &self.elements, &targets)?;
        let mut keys: HashMap<u64, GaloisKeys> = HashMap::new();
        for level in &plan.levels {
            let derived = level
                .par_iter()
                .map(|&(g, parent, master)| {
                    let from = if parent == 1 { None } else { keys.get(&parent) };
                    Ok((g, self.compose(from, parent, master, g)?))
                })
                .collect::<Result<Vec<_>>>()?;
            // The previous level's keys are needed only as parents and as targets.
            keys.retain(|g, _| targets.binary_search(g).is_ok());
            keys.extend(derived);
        }
        let parts: Vec<GaloisKeys> = targets
            .iter()
            .map(|g| {
                keys.remove(g)
                    .ok_or_else(|| Error::Internal(format!("no derived key for element {g}")))
            })
            .collect::<Result<_>>()?;
        match <[GaloisKeys; 1]>::try_from(parts) {
            Ok([only]) => Ok(only),
            Err(parts) => GaloisKeys::merged_in(ctx, &parts, targets),
        }
    }

    /// The derived key of `g = parent * master` from that of `parent` (`None`: the identity).
    fn compose(
        &self,
        from: Option<&GaloisKeys>,
        parent: u64,
        master: u64,
        g: u64,
    ) -> Result<GaloisKeys> {
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: both handles are live and only read (`from` is null for the identity); `raw`
        // is a valid out-pointer set only on success.
        check(unsafe {
            sys::helib_master_keys_compose(
                &mut raw,
                self.as_ptr(),
                from.map_or(ptr::null(), |k| k.as_ptr()),
                parent,
                master,
            )
        })?;
        GaloisKeys::from_raw(raw, &self.ctx, Some(vec![g]))
    }
}

/// Which keys to derive in which order: a breadth-first search of the Galois group from the
/// identity along the master elements gives every target a shortest path; the keys on the
/// paths, level by level (each `(element, parent, master)`), share their prefixes.
struct DerivationPlan {
    levels: Vec<Vec<(u64, u64, u64)>>,
}

impl DerivationPlan {
    fn new(ctx: &Context, masters: &[u64], targets: &[u64]) -> Result<Self> {
        let two_n = 2 * ctx.ring_degree() as u64;
        let index = |g: u64| ((g - 1) / 2) as usize;
        let size = ctx.ring_degree();
        // parent element and master of every element reached; the identity is its own parent.
        let mut reached: Vec<Option<(u64, u64, u32)>> = vec![None; size];
        reached[index(1)] = Some((1, 1, 0));
        let mut frontier = vec![1u64];
        let mut missing = targets.len();
        let mut depth = 0u32;
        while missing > 0 && !frontier.is_empty() {
            depth += 1;
            let mut next = Vec::new();
            for &g in &frontier {
                for &h in masters {
                    let gh = ((u128::from(g) * u128::from(h)) % u128::from(two_n)) as u64;
                    if reached[index(gh)].is_none() {
                        reached[index(gh)] = Some((g, h, depth));
                        if targets.binary_search(&gh).is_ok() {
                            missing -= 1;
                        }
                        next.push(gh);
                    }
                }
            }
            frontier = next;
        }
        if let Some(&g) = targets.iter().find(|&&g| reached[index(g)].is_none()) {
            return Err(Error::MissingKey(format!(
                "Galois element {g} is not a product of the master elements {masters:?}: \
                 generate masters that include it or its factors"
            )));
        }
        // Every key on the targets' paths, by depth.
        let mut levels: Vec<Vec<(u64, u64, u64)>> = Vec::new();
        let mut on_path = vec![false; size];
        for &t in targets {
            let mut g = t;
            while g != 1 && !on_path[index(g)] {
                on_path[index(g)] = true;
                let (parent, master, d) = reached[index(g)].ok_or_else(|| {
                    Error::Internal(format!("element {g} left the search's paths"))
                })?;
                let d = d as usize;
                if levels.len() < d {
                    levels.resize(d, Vec::new());
                }
                levels[d - 1].push((g, parent, master));
                g = parent;
            }
        }
        Ok(DerivationPlan { levels })
    }
}

impl fmt::Debug for MasterKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKeys")
            .field("ring_degree", &self.ctx.ring_degree())
            .field("elements", &self.elements)
            .field("size_bytes", &self.size_bytes)
            .finish_non_exhaustive()
    }
}
