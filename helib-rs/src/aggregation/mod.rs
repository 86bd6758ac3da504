//! Private aggregation: many users encrypt vectors under one public key, a server adds them
//! up without seeing any, and the key owner decrypts only the sum.
//!
//! - [`Aggregation`] fixes the parameters for a number of users: a context whose noise
//!   budget holds their sum, and the level every upload is switched down to. Values go
//!   straight into the plaintext polynomial's coefficients: a sum needs no slot packing,
//!   and skipping its transform makes encryption about 40% cheaper.
//! - [`EncryptedSum`] is the server's running sum. It adds uploads as they come (bytes or
//!   ciphertexts), merges with other partial sums, and sums a list of files on all of rayon's
//!   threads while holding only one partial sum per thread: its memory does not grow with the
//!   number of users.
//!
//! Every upload's public fields are fixed by the parameters alone (the level, plaintext factor,
//! noise bound and size of an honest upload do not depend on the values in it), so the server
//! refuses, naming it, any upload that differs ([`Error::RefusedUpload`]). What it cannot see
//! is noise an upload's fields hide, or a value out of the range users agreed on: a malicious
//! user can add any field element it likes, and can spoil the sum's decryption, which the key
//! owner then gets as an error rather than a wrong sum. Only proofs of well-formed encryption
//! (and of the value's range) sent with each upload would stop that.

mod sum;

use std::sync::OnceLock;

use ark_ff::PrimeField;

use crate::error::{Error, Result};
use crate::serialization::frames::{join_frames, split_frames};
use crate::{Context, Ctxt, EncryptionPool, PubKey, DECRYPTION_MARGIN_BITS};

pub use sum::EncryptedSum;

/// The parameters of one aggregation: a context, and how many users' vectors its noise budget
/// lets the server add.
///
/// Every value is a field element, `N` of them per ciphertext, as the coefficients of the
/// plaintext polynomial (additions, and products by a constant, act on them one by one).
/// Counters (`u64`) are field
/// elements too ([`encode_counters`](Self::encode_counters)): their sum is exact as long as
/// `users * (2^64 - 1) < p`, which for BN254 leaves room for `2^189` users.
///
/// Uploads are public-key ciphertexts, since users do not hold the secret key. A ciphertext
/// made with the secret key could be sent as a seed and one polynomial, half the bytes; one made
/// with the public key cannot. What makes an upload small here instead is its level: it is
/// switched down to the fewest primes that still hold the sum of every user's noise with a
/// margin ([`upload_margin_bits`](Self::upload_margin_bits)).
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{Aggregation, Context, EncryptedSum, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// // A toy ring (insecure) for the example; Aggregation::new::<Fr>(users) sizes a secure one.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(400).allow_insecure(true).build()?;
/// let agg = Aggregation::with_context(&ctx, 3)?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
///
/// let mut sum = EncryptedSum::new(&agg, &pk);
/// for user in 1..=3u64 {
///     let values = vec![Fr::from(user); 10];
///     let upload = agg.encrypt(&pk, &values)?; // on the user's device
///     sum.add_bytes(&Aggregation::upload_to_bytes(&upload)?)?; // on the server
/// }
/// assert_eq!(sum.decrypt::<Fr>(&sk, 10)?, vec![Fr::from(6u64); 10]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Aggregation {
    ctx: Context,
    users: u64,
    /// What every honest upload ciphertext looks like, found once from an encryption of zero:
    /// every fresh encryption records the same noise bound, so every upload lands on the same
    /// level with the same fields whatever its values.
    shape: OnceLock<UploadShape>,
}

/// The public fields every honest upload ciphertext of an aggregation has.
#[derive(Clone, Copy, Debug)]
struct UploadShape {
    level: u32,
    log2_noise_bound: f64,
    bytes: usize,
}

/// The most users one [`Aggregation`] is sized for.
pub const MAX_USERS: u64 = 1 << 40;

impl Aggregation {
    /// The ring degree of [`new`](Self::new): 32768 values per ciphertext, and a modulus far
    /// inside its 128-bit bound.
    pub const RING_DEGREE: u64 = 32768;

    /// Parameters of at least 128-bit security for the sum of up to `users` vectors of `F`
    /// elements: ring degree [`RING_DEGREE`](Self::RING_DEGREE), and the smallest modulus
    /// whose fresh noise budget holds `users` additions with the decryption margin.
    ///
    /// ```
    /// let agg = helib_rs::Aggregation::new::<ark_bn254::Fr>(1000)?;
    /// assert_eq!(agg.values_per_ciphertext(), 32768);
    /// assert!(agg.context().security_bits() >= 128.0);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn new<F: PrimeField>(users: u64) -> Result<Self> {
        check_users(users)?;
        let need = upload_margin(users);
        let n = Self::RING_DEGREE;
        // A first guess from the fresh noise (about p N), then corrected by what the context
        // reports, since its estimate is the one decryption will be checked against.
        let mut bits = F::MODULUS_BIT_SIZE + (3 * n.ilog2()) / 2 + need.ceil() as u32 + 8;
        for _ in 0..4 {
            let ctx = Context::for_field::<F>(n, bits)?;
            let budget = ctx.fresh_noise_budget();
            if budget >= need {
                return Ok(Aggregation {
                    ctx,
                    users,
                    shape: OnceLock::new(),
                });
            }
            bits += (need - budget).ceil() as u32 + 1;
        }
        Err(Error::InvalidArgument(format!(
            "no context of ring degree {n} found for the sum of {users} users"
        )))
    }

    /// The parameters on a context of the caller's (e.g. a toy ring in tests), checked: its
    /// fresh noise budget must hold `users` additions and the decryption margin.
    pub fn with_context(ctx: &Context, users: u64) -> Result<Self> {
        check_users(users)?;
        let (need, budget) = (upload_margin(users), ctx.fresh_noise_budget());
        if budget < need {
            return Err(Error::InvalidArgument(format!(
                "the context's fresh noise budget ({budget:.1} bits) cannot hold the sum of {users} \
                 users ({need:.1} bits needed): use more ciphertext bits, or \
                 Aggregation::new to size them"
            )));
        }
        Ok(Aggregation {
            ctx: ctx.clone(),
            users,
            shape: OnceLock::new(),
        })
    }

    /// The context every key and ciphertext of this aggregation belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// How many users' vectors the sum may hold.
    pub fn users(&self) -> u64 {
        self.users
    }

    /// Values per ciphertext: the ring degree `N`.
    pub fn values_per_ciphertext(&self) -> usize {
        self.ctx.ring_degree()
    }

    /// Ciphertexts per user for vectors of `len` values.
    pub fn ciphertexts_for(&self, len: usize) -> usize {
        len.div_ceil(self.values_per_ciphertext()).max(1)
    }

    /// The noise budget an upload keeps when it is switched down: enough for `users` of them
    /// to be added and the sum still to decrypt with [`DECRYPTION_MARGIN_BITS`] to spare.
    pub fn upload_margin_bits(&self) -> f64 {
        upload_margin(self.users)
    }

    /// `u64` counters as field elements, refused if `users` of them could overflow `p`.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// let agg = helib_rs::Aggregation::new::<Fr>(1000)?;
    /// assert_eq!(agg.encode_counters::<Fr>(&[7, u64::MAX])?, vec![Fr::from(7u64), Fr::from(u64::MAX)]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn encode_counters<F: PrimeField>(&self, counters: &[u64]) -> Result<Vec<F>> {
        // users * (2^64 - 1) < p holds when log2(users) + 64 < bits(p) - 1.
        let room = F::MODULUS_BIT_SIZE.saturating_sub(65);
        if 64 - self.users.leading_zeros() > room {
            return Err(Error::InvalidArgument(format!(
                "{} users' u64 counters could overflow a {}-bit field",
                self.users,
                F::MODULUS_BIT_SIZE
            )));
        }
        Ok(counters.iter().map(|&c| F::from(c)).collect())
    }

    /// One user's upload: `values` (any length; `N` per ciphertext, the last zero-padded)
    /// encrypted under `pk` with fresh randomness, each ciphertext switched down to the fewest
    /// primes that hold the sum.
    pub fn encrypt<F: PrimeField>(&self, pk: &PubKey, values: &[F]) -> Result<Vec<Ctxt>> {
        self.check_context(pk.context())?;
        self.chunks(values)
            .map(|chunk| self.compact(pk.encrypt_poly(chunk)?))
            .collect()
    }

    /// [`encrypt`](Self::encrypt) online: each ciphertext takes one of `pool`'s fresh
    /// encryptions of zero (made offline) and adds the values, several times faster than a
    /// fresh encryption. Fails, having used none, when the pool holds too few.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{Aggregation, Context, EncryptionPool, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(400).allow_insecure(true).build()?; // toy ring
    /// let agg = Aggregation::with_context(&ctx, 100)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let mut pool = EncryptionPool::public(&pk, 1)?; // while the device is idle
    /// let upload = agg.encrypt_with_pool(&mut pool, &[Fr::from(5u64)])?;
    /// assert_eq!(sk.decrypt_poly::<Fr>(&upload[0])?[0], Fr::from(5u64));
    /// assert!(agg.encrypt_with_pool(&mut pool, &[Fr::from(5u64)]).is_err()); // used up
    /// # Ok(())
    /// # }
    /// ```
    pub fn encrypt_with_pool<F: PrimeField>(
        &self,
        pool: &mut EncryptionPool,
        values: &[F],
    ) -> Result<Vec<Ctxt>> {
        self.check_pool(pool, values)?;
        self.chunks(values)
            .map(|chunk| self.compact(pool.encrypt_poly(chunk)?))
            .collect()
    }

    /// [`encrypt_with_pool`](Self::encrypt_with_pool) straight to bytes, each ciphertext in
    /// the form [`Ctxt::from_bytes`] reads (join them with
    /// [`upload_parts_to_bytes`](Self::upload_parts_to_bytes)). When uploads travel at the
    /// zeros' level, as they do with [`new`](Self::new)'s parameters, each is
    /// [`EncryptionPool::encrypt_poly_to_bytes`]: the message added to the zero with no
    /// transform on the device, about three times faster than a fresh encryption. The first
    /// upload of an aggregation (which fixes the upload level) and uploads switched below the
    /// zeros' level go through a ciphertext in memory instead.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{Aggregation, Context, EncryptedSum, EncryptionPool, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(400).allow_insecure(true).build()?; // toy ring
    /// let agg = Aggregation::with_context(&ctx, 100)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let mut pool = EncryptionPool::public(&pk, 2)?; // while the device is idle
    /// let mut sum = EncryptedSum::new(&agg, &pk);
    /// for v in [5u64, 6] {
    ///     let parts = agg.encrypt_with_pool_to_bytes(&mut pool, &[Fr::from(v)])?;
    ///     sum.add_bytes(&Aggregation::upload_parts_to_bytes(&parts)?)?;
    /// }
    /// assert_eq!(sum.decrypt::<Fr>(&sk, 1)?, vec![Fr::from(11u64)]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn encrypt_with_pool_to_bytes<F: PrimeField>(
        &self,
        pool: &mut EncryptionPool,
        values: &[F],
    ) -> Result<Vec<Vec<u8>>> {
        self.check_pool(pool, values)?;
        let level = self.shape(pool.public_key())?.level;
        let margin = self.upload_margin_bits();
        self.chunks(values)
            .map(|chunk| {
                if pool.next_level() == Some(level) {
                    let (bytes, budget) = pool.add_to_next(chunk)?;
                    check_upload_budget(level, budget, margin)?;
                    Ok(bytes)
                } else {
                    self.compact(pool.encrypt_poly(chunk)?)?.to_bytes()
                }
            })
            .collect()
    }

    fn check_pool<F>(&self, pool: &EncryptionPool, values: &[F]) -> Result<()> {
        self.check_context(pool.public_key().context())?;
        let needed = self.chunks(values).count();
        if pool.len() < needed {
            return Err(Error::InvalidArgument(format!(
                "the pool holds {} encryption(s) of zero, this upload needs {needed}",
                pool.len()
            )));
        }
        Ok(())
    }

    fn chunks<'a, F>(&self, values: &'a [F]) -> impl Iterator<Item = &'a [F]> {
        let empty: Option<&[F]> = values.is_empty().then_some(&[]);
        values.chunks(self.values_per_ciphertext()).chain(empty)
    }

    fn compact(&self, mut ct: Ctxt) -> Result<Ctxt> {
        let level = self.shape(&ct.public_key())?.level;
        if ct.level() > level {
            ct.mod_switch_to(level)?;
        }
        check_upload_budget(level, ct.noise_budget(), self.upload_margin_bits())?;
        Ok(ct)
    }

    /// The fields of every honest upload ciphertext: an encryption of zero switched down to
    /// the fewest primes that hold the sum (the same for any values, since the fresh noise
    /// bound is).
    fn shape(&self, pk: &PubKey) -> Result<UploadShape> {
        if let Some(shape) = self.shape.get() {
            return Ok(*shape);
        }
        self.check_context(pk.context())?;
        let mut ct = pk.encrypt_limbs(&[])?;
        ct.compact_for_decryption(self.upload_margin_bits())?;
        let shape = UploadShape {
            level: ct.level(),
            log2_noise_bound: ct.log2_noise_bound(),
            bytes: ct.to_bytes()?.len(),
        };
        Ok(*self.shape.get_or_init(|| shape))
    }

    /// The size in bytes of one user's upload of `len` values, as
    /// [`upload_to_bytes`](Self::upload_to_bytes) writes it.
    pub fn upload_len(&self, pk: &PubKey, len: usize) -> Result<u64> {
        let per = self.shape(pk)?.bytes as u64 + 8;
        Ok(4 + self.ciphertexts_for(len) as u64 * per)
    }

    /// An upload's bytes: the ciphertext count (u32, little-endian), then each ciphertext's
    /// byte length (u64) and its [`Ctxt::to_bytes`] form.
    pub fn upload_to_bytes(upload: &[Ctxt]) -> Result<Vec<u8>> {
        let parts = upload
            .iter()
            .map(Ctxt::to_bytes)
            .collect::<Result<Vec<_>>>()?;
        join_frames(&parts)
    }

    /// The same upload form from ciphertexts already in bytes, as
    /// [`encrypt_with_pool_to_bytes`](Self::encrypt_with_pool_to_bytes) gives them.
    pub fn upload_parts_to_bytes(parts: &[Vec<u8>]) -> Result<Vec<u8>> {
        join_frames(parts)
    }

    /// Reads [`upload_to_bytes`](Self::upload_to_bytes)' form, every ciphertext validated
    /// against `pk` (context, key and noise bound), and every length checked against what is
    /// left before anything is allocated.
    pub fn upload_from_bytes(pk: &PubKey, bytes: &[u8]) -> Result<Vec<Ctxt>> {
        split_frames(bytes, "the upload")?
            .into_iter()
            .map(|part| Ctxt::from_bytes(pk, part))
            .collect()
    }

    fn check_context(&self, ctx: &Context) -> Result<()> {
        if ctx.same_as(&self.ctx) {
            Ok(())
        } else {
            Err(Error::Mismatch(
                "the key belongs to another context than the aggregation's".into(),
            ))
        }
    }
}

fn upload_margin(users: u64) -> f64 {
    DECRYPTION_MARGIN_BITS + (users.max(1) as f64).log2()
}

fn check_users(users: u64) -> Result<()> {
    if users == 0 || users > MAX_USERS {
        return Err(Error::InvalidArgument(format!(
            "an aggregation is for 1 to 2^40 users, got {users}"
        )));
    }
    Ok(())
}

fn too_many(capacity: u64, users: u64) -> Error {
    Error::InvalidArgument(format!(
        "the aggregation was sized for {capacity} users, {users} would be added"
    ))
}

/// An upload at `level` must keep the budget its sum needs (the parameters guarantee it: a
/// failure here is the library's).
fn check_upload_budget(level: u32, budget: f64, margin: f64) -> Result<()> {
    if budget < margin {
        return Err(Error::Internal(format!(
            "an upload at level {level} kept {budget:.1} bits of budget, below the {margin:.1} \
             its sum needs"
        )));
    }
    Ok(())
}
