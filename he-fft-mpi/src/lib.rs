//! The four-step encrypted FFT ([`he_fft::FourStepFft`]) across MPI ranks.
//!
//! The four-step FFT of `c / 2` ciphertexts has two steps: step 1 makes every output
//! ciphertext a sum of products of *all* the inputs (an all-to-all), and step 2 transforms each
//! output ciphertext on its own. With `P` ranks, rank `r` holds a contiguous block of about
//! `c / (2P)` input ciphertexts and the same block of outputs ([`owned`]):
//!
//! 1. Each rank switches its inputs to the common level (the minimum over all ranks) and
//!    swaps their rows, making its share of step 1's `c` terms.
//! 2. The terms go out in step 1's own order, one batch of
//!    [`FourStepFft::FIRST_STEP_BATCH`] at a time: each term is broadcast by the rank that holds
//!    it, as bytes in chunks of at most [`CHUNK_BYTES`], and every rank adds the batch to the
//!    sums of its outputs as soon as it has arrived. A rank holds one batch of other ranks'
//!    terms at a time, whatever `c` is.
//! 3. Each rank runs step 2 on its outputs.
//!
//! The sums take their terms in the same batches and order as in one process, so every
//! output ciphertext is byte for byte the one [`FourStepFft`]'s own `apply` gives.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (fft, gk, pk, mine): (he_fft::FourStepFft<ark_bn254::Fr>, helib_rs::GaloisKeys, helib_rs::PubKey, Vec<helib_rs::Ctxt>) = unimplemented!();
//! let universe = mpi::initialize().ok_or("MPI was initialized already")?;
//! let world = universe.world();
//! // `mine`: this rank's inputs, he_fft_mpi::owned(fft.num_ciphertexts(), size, rank).
//! let run = he_fft_mpi::four_step(&world, &fft, &gk, &pk, &mine, &|_, _| {})?;
//! // run.outputs: this rank's outputs, in the same block of indices.
//! # Ok(())
//! # }
//! ```

use std::ops::Range;
use std::time::Instant;

use ark_ff::{FftField, PrimeField};
use he_fft::{Error, FourStepFft, FourStepWitnessMap, Result};
use helib_rs::{Ctxt, GaloisKeys, ObjectKind, PubKey};
use mpi::collective::SystemOperation;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use rayon::prelude::*;

/// The largest message: 2^30 bytes, well inside MPI's `int` counts (2^31 - 1 elements).
pub const CHUNK_BYTES: usize = 1 << 30;

/// The ciphertexts rank `rank` of `ranks` holds, of `count`: contiguous blocks, the first
/// `count % ranks` one larger.
///
/// ```
/// assert_eq!(he_fft_mpi::owned(5, 2, 0), 0..3);
/// assert_eq!(he_fft_mpi::owned(5, 2, 1), 3..5);
/// assert_eq!(he_fft_mpi::owned(2, 4, 3), 2..2); // more ranks than ciphertexts: some idle
/// ```
pub fn owned(count: usize, ranks: usize, rank: usize) -> Range<usize> {
    let ranks = ranks.max(1);
    let (base, extra) = (count / ranks, count % ranks);
    let start = rank * base + rank.min(extra);
    let len = base + usize::from(rank < extra);
    start.min(count)..(start + len).min(count)
}

/// The rank holding ciphertext `i` of `count` ([`owned`]'s inverse).
pub fn owner(count: usize, ranks: usize, i: usize) -> usize {
    (0..ranks)
        .find(|&r| owned(count, ranks, r).contains(&i))
        .unwrap_or(0)
}

/// What one rank computed and sent.
pub struct RankRun {
    /// This rank's output ciphertexts, for the indices [`owned`] gives it.
    pub outputs: Vec<Ctxt>,
    /// Bytes this rank broadcast (once each, as the root): the FFT's step-1 terms, the
    /// witness map's components and products.
    pub bytes_broadcast: u64,
    /// Bytes of other ranks' ciphertexts this rank received.
    pub bytes_received: u64,
    /// Seconds in each phase: preparing its terms (the FFT: level, row swaps; the witness
    /// map: none), broadcasting and reading (waiting for other ranks included), the first
    /// step (the FFT's products across rows; the witness map's row maps), the second (the
    /// FFT's row FFTs; the witness map's products).
    pub prepare_s: f64,
    pub exchange_s: f64,
    pub first_step_s: f64,
    pub second_step_s: f64,
}

/// Runs `fft` across the ranks of `comm`, every rank calling it with its own inputs `mine`
/// (the ciphertexts [`owned`] gives it, in order). `progress(done, total)` counts batches of
/// step 1, then the outputs of step 2. Every rank needs the Galois keys and the public key
/// (to read other ranks' terms).
pub fn four_step<C, F>(
    comm: &C,
    fft: &FourStepFft<F>,
    gk: &GaloisKeys,
    pk: &PubKey,
    mine: &[Ctxt],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<RankRun>
where
    C: Communicator + CommunicatorCollectives,
    F: FftField + PrimeField,
{
    let (ranks, rank) = (comm.size() as usize, comm.rank() as usize);
    let max_term = pk.context().max_serialized_len(ObjectKind::Ciphertext)?;
    let cts = fft.num_ciphertexts();
    let block = owned(cts, ranks, rank);
    if mine.len() != block.len() {
        return Err(Error::wrong_length(
            format!("rank {rank} of {ranks}'s ciphertexts ({block:?} of {cts})"),
            block.len(),
            mine.len(),
        ));
    }
    let level = common_level(comm, mine);
    let clock = Instant::now();
    let inputs = fft.first_step_inputs(gk, mine, level)?;
    let prepare_s = clock.elapsed().as_secs_f64();
    let own_terms: Vec<&Ctxt> = inputs.terms();
    let term_of = |t: usize| -> Option<&Ctxt> {
        let i = t % cts;
        block
            .contains(&i)
            .then(|| own_terms[(i - block.start) + if t >= cts { block.len() } else { 0 }])
    };

    let mut sums = block
        .clone()
        .map(|out| fft.first_step_sum(out))
        .collect::<Result<Vec<_>>>()?;
    let terms = fft.first_step_terms();
    let batch = FourStepFft::<F>::FIRST_STEP_BATCH;
    let total = terms.div_ceil(batch) + block.len();
    let (mut sent, mut received) = (0u64, 0u64);
    let (mut exchange_s, mut first_step_s) = (0.0, 0.0);
    for (b, first) in (0..terms).step_by(batch).enumerate() {
        let range = first..(first + batch).min(terms);
        let clock = Instant::now();
        // Every term of the batch from its holder, in order.
        let mut arrived: Vec<Option<Ctxt>> = Vec::with_capacity(range.len());
        for t in range.clone() {
            let root = owner(cts, ranks, t % cts);
            match term_of(t) {
                Some(ct) => {
                    sent +=
                        broadcast_bytes(comm, root, Some(ct.to_bytes()?), max_term)?.len() as u64;
                    arrived.push(None);
                }
                None => {
                    let bytes = broadcast_bytes(comm, root, None, max_term)?;
                    received += bytes.len() as u64;
                    arrived.push(Some(Ctxt::from_bytes(pk, &bytes)?));
                }
            }
        }
        let batch_terms: Vec<&Ctxt> = range
            .clone()
            .zip(&arrived)
            .map(|(t, a)| a.as_ref().or_else(|| term_of(t)))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::Internal("a step-1 term neither held nor received".into()))?;
        exchange_s += clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        sums.par_iter_mut()
            .try_for_each(|sum| sum.add_terms(range.start, &batch_terms))?;
        first_step_s += clock.elapsed().as_secs_f64();
        progress(b + 1, total);
    }
    let clock = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(terms.div_ceil(batch));
    let outputs = sums
        .into_par_iter()
        .map(|sum| {
            let y = fft.second_step(gk, sum.finish()?)?;
            progress(
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                total,
            );
            Ok(y)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RankRun {
        outputs,
        bytes_broadcast: sent,
        bytes_received: received,
        prepare_s,
        exchange_s,
        first_step_s,
        second_step_s: clock.elapsed().as_secs_f64(),
    })
}

/// Runs Groth16's witness map `map` ([`FourStepWitnessMap`]) across the ranks of `comm`, every
/// rank calling it with its blocks of `a` and `b` (the input ciphertexts [`owned`] gives it of
/// `map.info().input_ciphertexts`, one per component, the same block of each). It returns this
/// rank's block of the `c` result ciphertexts (`owned(c, ranks, rank)`, `c = map.num_rows()`),
/// each byte for byte the one `map`'s own `apply` gives:
///
/// 1. each rank runs the row maps of the components it holds (no exchange: the owner's
///    upload already holds one component per ciphertext);
/// 2. the components, at their low levels, are broadcast in turn, as bytes in chunks of at
///    most [`CHUNK_BYTES`];
/// 3. every rank transforms all components across (additions only) and multiplies its block
///    of the `2c` positions; the products are broadcast in turn, and every rank finishes the
///    inverse transform and keeps its block of results.
///
/// In [`RankRun`], `first_step_s` is step 1 here (the components), `second_step_s` step 3
/// (the products) and `prepare_s` is zero; `progress(done, total)` counts this rank's
/// components, then its products.
pub fn witness_map<C, F>(
    comm: &C,
    map: &FourStepWitnessMap<F>,
    gk: &GaloisKeys,
    pk: &PubKey,
    mine_a: &[Ctxt],
    mine_b: &[Ctxt],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<RankRun>
where
    C: Communicator + CommunicatorCollectives,
    F: FftField + PrimeField,
{
    let (ranks, rank) = (comm.size() as usize, comm.rank() as usize);
    let max_ct = pk.context().max_serialized_len(ObjectKind::Ciphertext)?;
    let rows = map.num_rows();
    let block = owned(rows, ranks, rank);
    for (name, mine) in [("a", mine_a), ("b", mine_b)] {
        if mine.len() != block.len() {
            return Err(Error::wrong_length(
                format!("rank {rank} of {ranks}'s ciphertexts of {name} ({block:?} of {rows})"),
                block.len(),
                mine.len(),
            ));
        }
    }
    let positions = owned(2 * rows, ranks, rank);
    let total = block.len() + positions.len();

    let clock = Instant::now();
    let mut computed: Vec<Option<(Ctxt, Ctxt)>> = Vec::with_capacity(block.len());
    for (done, (a_k, b_k)) in mine_a.iter().zip(mine_b).enumerate() {
        computed.push(Some(map.component(gk, a_k, b_k, &|_, _| {})?));
        progress(done + 1, total);
    }
    let first_step_s = clock.elapsed().as_secs_f64();

    // Every component from its rank.
    let (mut sent, mut received) = (0u64, 0u64);
    let clock = Instant::now();
    let mut components = Vec::with_capacity(rows);
    for k in 0..rows {
        let root = owner(rows, ranks, k);
        if root == rank {
            let (ak, bk) = computed[k - block.start]
                .take()
                .ok_or_else(|| Error::Internal("a component taken twice".into()))?;
            sent += broadcast_bytes(comm, root, Some(ak.to_bytes()?), max_ct)?.len() as u64;
            sent += broadcast_bytes(comm, root, Some(bk.to_bytes()?), max_ct)?.len() as u64;
            components.push((ak, bk));
        } else {
            let ak = broadcast_bytes(comm, root, None, max_ct)?;
            let bk = broadcast_bytes(comm, root, None, max_ct)?;
            received += (ak.len() + bk.len()) as u64;
            components.push((Ctxt::from_bytes(pk, &ak)?, Ctxt::from_bytes(pk, &bk)?));
        }
    }
    let mut exchange_s = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let spectra = map.spectra(components)?;
    let mut mine = map
        .spectrum_products(spectra, positions.clone())?
        .into_iter()
        .map(Some)
        .collect::<Vec<_>>();
    progress(total, total);
    let mut second_step_s = clock.elapsed().as_secs_f64();

    // Every product from its rank.
    let clock = Instant::now();
    let mut products = Vec::with_capacity(2 * rows);
    for j in 0..2 * rows {
        let root = owner(2 * rows, ranks, j);
        if root == rank {
            let p = mine[j - positions.start]
                .take()
                .ok_or_else(|| Error::Internal("a product taken twice".into()))?;
            sent += broadcast_bytes(comm, root, Some(p.to_bytes()?), max_ct)?.len() as u64;
            products.push(p);
        } else {
            let bytes = broadcast_bytes(comm, root, None, max_ct)?;
            received += bytes.len() as u64;
            products.push(Ctxt::from_bytes(pk, &bytes)?);
        }
    }
    exchange_s += clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let mut results = map.results(products)?;
    let outputs = results.drain(block).collect();
    second_step_s += clock.elapsed().as_secs_f64();
    Ok(RankRun {
        outputs,
        bytes_broadcast: sent,
        bytes_received: received,
        prepare_s: 0.0,
        exchange_s,
        first_step_s,
        second_step_s,
    })
}

/// The common level of an input held in blocks: the lowest of every rank's ciphertexts.
fn common_level<C: CommunicatorCollectives>(comm: &C, mine: &[Ctxt]) -> u32 {
    let my_level = mine.iter().map(Ctxt::level).min().unwrap_or(u32::MAX);
    let mut level = u32::MAX;
    comm.all_reduce_into(&my_level, &mut level, SystemOperation::min());
    level
}

/// Broadcasts `bytes` from `root` (which passes `Some`), others receiving (`None`): the length,
/// then chunks of at most [`CHUNK_BYTES`].
fn broadcast_bytes<C: Communicator>(
    comm: &C,
    root: usize,
    bytes: Option<Vec<u8>>,
    max: u64,
) -> Result<Vec<u8>> {
    let root_process = comm.process_at_rank(root as i32);
    let mut len = bytes.as_ref().map_or(0, |b| b.len() as u64);
    root_process.broadcast_into(&mut len);
    // Every rank, the root too, sees the same length and refuses it alike: none is left
    // waiting for chunks.
    if len > max {
        return Err(Error::InvalidArgument(format!(
            "rank {root} announced a term of {len} bytes, more than the {max} of a ciphertext \
             of this context"
        )));
    }
    let mut buf = match bytes {
        Some(b) => b,
        None => vec![0u8; len as usize],
    };
    for chunk in buf.chunks_mut(CHUNK_BYTES) {
        root_process.broadcast_into(chunk);
    }
    Ok(buf)
}
