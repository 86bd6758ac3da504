//! This library at BN254: 32768 254-bit elements per ciphertext, packed in the slots (every
//! operation, products by plaintext vectors included), or in the coefficients on the
//! aggregation parameters (sums and products by constants, no slot transform).

use std::time::Duration;

use ark_bn254::Fr;
use ark_std::UniformRand;
use helib_rs::{
    Aggregation, BatchEncoder, Context, Ctxt, EncodedPtxt, EncryptionPool, PubKey, SecKey,
};

use crate::measure::{median, Figures};

/// `op` on a copy of `ct`, timed (median): the copy is inside the timing, on every row.
fn on_copy(
    ct: &Ctxt,
    runs: usize,
    budget: Duration,
    op: impl Fn(&mut Ctxt) -> helib_rs::Result<()>,
) -> (helib_rs::Result<Ctxt>, Duration) {
    median(runs, budget, || {
        let mut s = ct.try_clone()?;
        op(&mut s).map(|()| s)
    })
}

/// Room for one product by a plaintext: a 254-bit plaintext times a fresh ciphertext's noise,
/// well inside `N = 32768`'s 128-bit bound of 881 bits.
const CIPHERTEXT_BITS: u32 = 600;

pub fn measure_slots(budget: Duration) -> Result<Figures, Box<dyn std::error::Error>> {
    let ctx = Context::bn254(32768, CIPHERTEXT_BITS)?;
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    let n = ctx.ring_degree();
    let mut rng = ark_std::test_rng();
    let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let y: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let k = Fr::rand(&mut rng);

    let (cx, encrypt) = median(5, budget, || pk.encrypt_slots(&enc, &x));
    let cx = cx?;
    let cy = pk.encrypt_slots(&enc, &y)?;
    let runs = 40;
    let mut pool = EncryptionPool::public(&pk, runs)?;
    // Online straight to the bytes sent: the zero's rows plus the message, no transform.
    let (online, encrypt_online) = median(runs, Duration::ZERO, || {
        pool.encrypt_slots_to_bytes(&enc, &x)
    });
    let ok_online = sk.decrypt_slots(&enc, &Ctxt::from_bytes(&pk, &online?)?)? == x;
    let (sum, add) = on_copy(&cx, 20, budget, |s| s.add_assign(&cy));
    let (scaled, mul_const) = on_copy(&cx, 10, budget, |s| s.mul_const(k));
    let py = EncodedPtxt::from_slots(&ctx, &enc, &y, None)?;
    let (product, mul_plain) = on_copy(&cx, 10, budget, |s| s.mul_ptxt(&py));
    let (decrypted, decrypt) = median(5, budget, || sk.decrypt_slots(&enc, &cx));

    // Every result against the same computation on the plain values.
    let ok_sum =
        sk.decrypt_slots(&enc, &sum?)? == x.iter().zip(&y).map(|(a, b)| a + b).collect::<Vec<_>>();
    let ok_scaled =
        sk.decrypt_slots(&enc, &scaled?)? == x.iter().map(|a| *a * k).collect::<Vec<_>>();
    let ok_product = sk.decrypt_slots(&enc, &product?)?
        == x.iter().zip(&y).map(|(a, b)| a * b).collect::<Vec<_>>();
    let verified = decrypted? == x && ok_sum && ok_scaled && ok_product && ok_online;

    Ok(Figures {
        scheme: "this library, slots",
        parameters: format!(
            "N = {n}, log2 QP = {:.0}, {}",
            ctx.log2_qp(),
            ctx.security_label()
        ),
        plaintext_bits: ctx.plaintext_bits(),
        elements: n,
        encrypt,
        encrypt_online: Some(encrypt_online),
        add,
        mul_const,
        mul_plain: Some(mul_plain),
        decrypt,
        bytes: cx.to_bytes()?.len(),
        verified,
    })
}

/// The users of an aggregation: [`Aggregation`]'s parameters for 1000 users, values in the
/// plaintext's coefficients, uploads switched down to what the sum needs.
pub fn measure_coefficients(budget: Duration) -> Result<Figures, Box<dyn std::error::Error>> {
    let agg = Aggregation::new::<Fr>(1000)?;
    let ctx = agg.context();
    let sk = SecKey::generate(ctx)?;
    let pk = PubKey::generate(&sk)?;
    let n = ctx.ring_degree();
    let mut rng = ark_std::test_rng();
    let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let y: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let k = Fr::from(1000u64); // a small weight: the sum's budget holds it

    let (cx, encrypt) = median(5, budget, || agg.encrypt(&pk, &x));
    let cx = cx?.remove(0);
    let cy = agg.encrypt(&pk, &y)?.remove(0);
    let runs = 40;
    let mut pool = EncryptionPool::public(&pk, runs)?;
    let (online, encrypt_online) = median(runs, Duration::ZERO, || {
        agg.encrypt_with_pool_to_bytes(&mut pool, &x)
    });
    let (sum, add) = on_copy(&cx, 20, budget, |s| s.add_assign(&cy));
    let (scaled, mul_const) = on_copy(&cx, 10, budget, |s| s.mul_const(k));
    let (decrypted, decrypt) = median(5, budget, || sk.decrypt_poly::<Fr>(&cx));
    let online = Aggregation::upload_parts_to_bytes(&online?)?;
    let ok_online = sk.decrypt_poly::<Fr>(&Aggregation::upload_from_bytes(&pk, &online)?[0])? == x;
    let verified = decrypted? == x
        && ok_online
        && sk.decrypt_poly::<Fr>(&sum?)?
            == x.iter().zip(&y).map(|(a, b)| a + b).collect::<Vec<_>>()
        && sk.decrypt_poly::<Fr>(&scaled?)? == x.iter().map(|a| *a * k).collect::<Vec<_>>();
    Ok(Figures {
        scheme: "this library, coefficients",
        parameters: format!(
            "aggregation of 1000 users: N = {n}, log2 QP = {:.0}, {}, uploads at {} of {} primes",
            ctx.log2_qp(),
            ctx.security_label(),
            cx.level(),
            ctx.num_ctxt_primes()
        ),
        plaintext_bits: ctx.plaintext_bits(),
        elements: n,
        encrypt,
        encrypt_online: Some(encrypt_online),
        add,
        mul_const,
        mul_plain: None,
        decrypt,
        bytes: cx.to_bytes()?.len(),
        verified,
    })
}
