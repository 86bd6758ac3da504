//! [`Layout`]: how a length-`n` vector sits in the slots of one or more ciphertexts.

use crate::error::{Error, Result};
use ark_ff::PrimeField;
use helib_rs::{BatchEncoder, Computation, Context, Ctxt, PeriodicEncoder, PubKey, SecKey};

/// The order of a vector's entries along the slots, as far as a transform's layout check
/// needs it: natural, or a permutation a transform leaves (told apart by a salt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Order(pub u64);

impl Order {
    /// Entry `i` in slot `i`.
    pub(crate) const NATURAL: Order = Order(0);

    /// The transposed order of a two-stage split with first factor `n1`.
    pub(crate) fn transposed(n1: usize) -> Order {
        Order(0x7472_616e_0000_0000 | n1 as u64)
    }

    /// One of `c` polyphase components' values per ciphertext (a four-step witness map's
    /// input).
    pub(crate) fn components(c: usize) -> Order {
        Order(0x636f_6d70_0000_0000 | c as u64)
    }

    /// The rows of a four-step FFT's first step over `c` rows, run by the owner (the input of
    /// [`FirstStep::Owner`](crate::FirstStep::Owner)).
    pub(crate) fn owner_rows(c: usize) -> Order {
        Order(0x6f77_6e72_0000_0000 | c as u64)
    }

    /// A witness map's first-stage output over blocks of `n1`, computed by the owner (the input
    /// of a [`WitnessMap`](crate::WitnessMap) whose owner applies the first stage).
    pub(crate) fn witness_first_stage(n1: usize) -> Order {
        Order(0x7769_7473_0000_0000 | n1 as u64)
    }

    /// Between the two stages of a two-stage split with first factor `n1`.
    pub(crate) fn between_stages(n1: usize) -> Order {
        Order(0x6d69_6464_0000_0000 | n1 as u64)
    }
}

/// The slot layout of a length-`n` vector (`n` a power of two) in ring degree `N`.
///
/// Slots form two rows of `N/2`; rotations act on both rows at once.
/// - `n <= N/2` (*replicated*): one ciphertext; both rows hold `x` repeated `N/2n` times, so a
///   row rotation by `k` is a cyclic rotation of `x` by `k`.
/// - `n >= N` (*split*): `n/N` ciphertexts; ciphertext `c` holds segment `2c` of length
///   `N/2` in row 0 and segment `2c + 1` in row 1. A matrix then acts blockwise, the row swap
///   bringing the other row's segment into place.
///
/// ```
/// use he_fft::Layout;
///
/// let small = Layout::new(1024, 32768).unwrap();
/// assert_eq!((small.row_period(), small.num_ciphertexts()), (1024, 1));
/// let big = Layout::new(65536, 32768).unwrap();
/// assert_eq!((big.row_period(), big.num_ciphertexts()), (16384, 2));
/// assert!(Layout::new(1000, 32768).is_err());
/// ```
///
/// A replicated vector of length `n >= 2` comes in two flavours: row 1 equal to row 0, or
/// *half-rotated* (row 1 holds `x` rotated by `n/2`). A transform reads one flavour and writes
/// the other, which lets its two rows do different halves of the work
/// ([`TransformPlan`](crate::TransformPlan)); decryption reads row 0 either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    n: usize,
    ring_degree: usize,
    period: usize,
    cts: usize,
    half_rotated: bool,
}

impl Layout {
    /// The most ciphertexts one vector may span. A transform of a vector over `k`
    /// ciphertexts takes `2 k^2` products of ring-sized blocks, each as costly as a whole
    /// `n = N` transform, so 64 (8192 block products, weeks of work) is far beyond any
    /// practical size; the bound keeps plans small and their size arithmetic exact.
    pub const MAX_CIPHERTEXTS: usize = crate::params::MAX_CIPHERTEXTS;

    /// The layout of `n` values in ring degree `ring_degree` (a power of two): an error
    /// unless `n` is a power of two spanning at most [`Layout::MAX_CIPHERTEXTS`] ciphertexts.
    pub fn new(n: usize, ring_degree: usize) -> Result<Self> {
        if n == 0 || !n.is_power_of_two() {
            return Err(Error::InvalidArgument(format!(
                "the vector length must be a power of two, got {n}"
            )));
        }
        if ring_degree < 2 || !ring_degree.is_power_of_two() {
            return Err(Error::InvalidArgument(format!(
                "the ring degree must be a power of two of at least 2, got {ring_degree}"
            )));
        }
        let half = ring_degree / 2;
        let (period, cts) = if n <= half {
            (n, 1)
        } else {
            (half, n / ring_degree)
        };
        if cts > Self::MAX_CIPHERTEXTS {
            return Err(Error::InvalidArgument(format!(
                "a vector of {n} values spans {cts} ciphertexts at ring degree {ring_degree}; at most {} \
                 are supported (a transform costs 2 x {cts}^2 products of ring-sized blocks)",
                Self::MAX_CIPHERTEXTS
            )));
        }
        Ok(Layout {
            n,
            ring_degree,
            period,
            cts,
            half_rotated: false,
        })
    }

    /// The same layout with row 1 holding `x` rotated by `n/2`; only a replicated vector of
    /// length at least 2 has this flavour (others are returned unchanged).
    pub fn half_rotated(mut self) -> Self {
        self.half_rotated = self.is_replicated() && self.n >= 2;
        self
    }

    /// The same layout with both rows equal.
    pub fn identical_rows(mut self) -> Self {
        self.half_rotated = false;
        self
    }

    /// Whether row 1 holds `x` rotated by `n/2`.
    pub fn is_half_rotated(&self) -> bool {
        self.half_rotated
    }

    /// The vector length `n`.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false: a layout holds at least one value.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The row period `d`: the length of the cyclic vectors the rotations act on.
    pub fn row_period(&self) -> usize {
        self.period
    }

    /// How many ciphertexts hold the vector.
    pub fn num_ciphertexts(&self) -> usize {
        self.cts
    }

    /// Whether the vector is replicated along both rows (`n <= N/2`).
    pub fn is_replicated(&self) -> bool {
        self.n <= self.ring_degree / 2
    }

    /// The vector segment (of length `d`) in row `row` of ciphertext `ct`, as an offset.
    pub(crate) fn segment_offset(&self, ct: usize, row: usize) -> usize {
        if self.is_replicated() {
            0
        } else {
            (2 * ct + row) * self.period
        }
    }

    /// The two row patterns (each of length `d`) of every ciphertext.
    pub fn pack<F: PrimeField>(&self, x: &[F]) -> Result<Vec<[Vec<F>; 2]>> {
        if x.len() != self.n {
            return Err(Error::wrong_length("the layout's vector", self.n, x.len()));
        }
        let d = self.period;
        Ok((0..self.cts)
            .map(|c| {
                let row = |r: usize| x[self.segment_offset(c, r)..][..d].to_vec();
                if self.half_rotated {
                    let mut r1 = x.to_vec();
                    r1.rotate_left(self.n / 2);
                    [row(0), r1]
                } else {
                    [row(0), row(1)]
                }
            })
            .collect())
    }

    /// Reads the vector back from the decoded slots (`N` per ciphertext) of each ciphertext.
    pub fn unpack<F: PrimeField>(&self, slots: &[Vec<F>]) -> Result<Vec<F>> {
        if slots.len() != self.cts {
            return Err(Error::wrong_length(
                "the decoded ciphertexts",
                self.cts,
                slots.len(),
            ));
        }
        if let Some(s) = slots.iter().find(|s| s.len() != self.ring_degree) {
            return Err(Error::wrong_length(
                "a decoded ciphertext's slots",
                self.ring_degree,
                s.len(),
            ));
        }
        let d = self.period;
        let half = self.ring_degree / 2;
        let mut out = Vec::with_capacity(self.n);
        for s in slots {
            out.extend_from_slice(&s[..d]);
            if !self.is_replicated() {
                out.extend_from_slice(&s[half..half + d]);
            }
        }
        Ok(out)
    }
}

impl Layout {
    /// Encrypts `x` (exactly `n` values) into [`num_ciphertexts`](Self::num_ciphertexts)
    /// ciphertexts. A replicated vector is encoded as a sparse polynomial (a size-`2n`
    /// transform), so packing a short vector costs little.
    pub fn encrypt<F: PrimeField>(&self, ctx: &Context, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        self.check_ring(ctx)?;
        self.encrypt_with(&PeriodicEncoder::<F>::new(ctx, self.period, None)?, pk, x)
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes: one byte string per
    /// ciphertext, each about half of a public-key ciphertext's and with less noise
    /// ([`SecKey::encrypt_poly_to_bytes`]). The server reads them with
    /// [`Ctxt::from_bytes`]. This is how a data owner uploads its input.
    pub fn encrypt_to_bytes<F: PrimeField>(
        &self,
        ctx: &Context,
        sk: &SecKey,
        x: &[F],
    ) -> Result<Vec<Vec<u8>>> {
        self.check_ring(ctx)?;
        self.encrypt_to_bytes_with(&PeriodicEncoder::<F>::new(ctx, self.period, None)?, sk, x)
    }

    /// [`encrypt`](Self::encrypt) with an encoder of this layout's row period already built.
    pub(crate) fn encrypt_with<F: PrimeField>(
        &self,
        encoder: &PeriodicEncoder<F>,
        pk: &PubKey,
        x: &[F],
    ) -> Result<Vec<Ctxt>> {
        self.check_ring(pk.context())?;
        self.encode_with(encoder, x)?
            .iter()
            .map(|poly| {
                let mut ct = pk.encrypt_poly(poly)?;
                ct.set_layout_tag(self.tag(Order::NATURAL));
                Ok(ct)
            })
            .collect()
    }

    /// The [`Ctxt::layout_tag`] of ciphertexts holding a vector in this layout with its
    /// entries in `order`: never 0 (the tag of ciphertexts nothing is known about).
    pub(crate) fn tag(&self, order: Order) -> u64 {
        // FNV-1a over the fields that decide where each value sits.
        let fields = [
            self.n as u64,
            self.ring_degree as u64,
            self.period as u64,
            self.cts as u64,
            u64::from(self.half_rotated),
            order.0,
        ];
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for f in fields {
            for byte in f.to_le_bytes() {
                h = (h ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h | 1
    }

    /// [`encrypt_to_bytes`](Self::encrypt_to_bytes) with an encoder of this layout's row
    /// period already built.
    pub(crate) fn encrypt_to_bytes_with<F: PrimeField>(
        &self,
        encoder: &PeriodicEncoder<F>,
        sk: &SecKey,
        x: &[F],
    ) -> Result<Vec<Vec<u8>>> {
        self.check_ring(sk.context())?;
        self.encode_with(encoder, x)?
            .iter()
            .map(|poly| Ok(sk.encrypt_poly_to_bytes(poly)?))
            .collect()
    }

    /// The plaintext polynomial of each ciphertext.
    pub(crate) fn encode_with<F: PrimeField>(
        &self,
        encoder: &PeriodicEncoder<F>,
        x: &[F],
    ) -> Result<Vec<Vec<F>>> {
        if encoder.period() != self.period {
            return Err(Error::Mismatch(format!(
                "the encoder's row period is {} but the layout's is {}",
                encoder.period(),
                self.period
            )));
        }
        self.pack(x)?
            .iter()
            .map(|[r0, r1]| Ok(encoder.encode_poly(r0, r1)?))
            .collect()
    }

    /// Decrypts the `n` values held by `cts`, refusing a ciphertext whose plaintext factor no
    /// computation with at most one ciphertext product gives at its level (the routes that
    /// share this layout are linear, or multiply once, as a convolution does).
    pub fn decrypt<F: PrimeField>(
        &self,
        ctx: &Context,
        sk: &SecKey,
        cts: &[Ctxt],
    ) -> Result<Vec<F>> {
        let polys = cts
            .iter()
            .map(|c| Ok(sk.decrypt_poly_expecting(c, Computation::OneProduct)?))
            .collect::<Result<Vec<_>>>()?;
        self.decode(ctx, &polys)
    }

    /// The `n` values held by ciphertexts whose plaintext polynomials are `polys` (one per
    /// ciphertext): linear in them.
    pub fn decode<F: PrimeField>(&self, ctx: &Context, polys: &[Vec<F>]) -> Result<Vec<F>> {
        self.check_ring(ctx)?;
        let encoder = BatchEncoder::<F>::for_context(ctx)?;
        let slots: Vec<Vec<F>> = polys.iter().map(|p| encoder.decode(p)).collect();
        self.unpack(&slots)
    }

    fn check_ring(&self, ctx: &Context) -> Result<()> {
        if ctx.ring_degree() != self.ring_degree {
            return Err(Error::Mismatch(format!(
                "the layout is for ring degree {} but the context's is {}",
                self.ring_degree,
                ctx.ring_degree()
            )));
        }
        Ok(())
    }
}
