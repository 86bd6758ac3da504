//! Pre-encoded plaintexts ([`EncodedPtxt`]) and periodic encodings ([`PeriodicEncoder`])
//! against plain field arithmetic: slotwise and polynomial products, sums and differences,
//! lower-level encodings, inner products, sharing across ciphertexts and threads, the
//! errors of every misuse, and the noise bookkeeping of ciphertext-plaintext operations.

mod common;

use std::sync::OnceLock;

use ark_ff::{One, Zero};
use ark_std::rand::rngs::StdRng;
use common::*;
use helib_rs::{BatchEncoder, Context, Ctxt, EncodedPtxt, Error, PeriodicEncoder, PubKey, SecKey};

/// Slots (and coefficients) at the test ring degree.
const SLOTS: usize = N as usize;
/// Slots per row.
const HALF: usize = SLOTS / 2;

/// Fails with a readable message unless `$result` is `Err(Error::$variant(_))` with a
/// non-empty message.
macro_rules! assert_err {
    ($result:expr, $variant:ident, $what:expr) => {
        match $result {
            Err(Error::$variant(ref msg)) => {
                assert!(!msg.is_empty(), "{}: empty error message", $what)
            }
            other => panic!(
                "{}: expected Error::{}, got {:?}",
                $what,
                stringify!($variant),
                other
            ),
        }
    };
}

fn ctx() -> &'static Context {
    &fixture().ctx
}

fn encoder() -> &'static BatchEncoder<F> {
    static ENC: OnceLock<BatchEncoder<F>> = OnceLock::new();
    ENC.get_or_init(|| BatchEncoder::for_context(ctx()).expect("encoder"))
}

/// A second context with its own keys (same ring degree and field as the fixture).
fn other() -> &'static Fixture {
    static OTHER: OnceLock<Fixture> = OnceLock::new();
    OTHER.get_or_init(|| new_fixture(600))
}

fn top() -> u32 {
    ctx().num_ctxt_primes()
}

fn random_slots(rng: &mut StdRng) -> Vec<F> {
    random_poly(rng, SLOTS)
}

fn encrypt(v: &[F]) -> Ctxt {
    fixture()
        .pk
        .encrypt_slots(encoder(), v)
        .expect("encrypt_slots")
}

/// Slots encoded at the top level.
fn encode(v: &[F]) -> EncodedPtxt {
    EncodedPtxt::from_slots(ctx(), encoder(), v, None).expect("from_slots")
}

fn mul(a: &[F], b: &[F]) -> Vec<F> {
    a.iter().zip(b).map(|(x, y)| *x * y).collect()
}

fn neg(a: &[F]) -> Vec<F> {
    a.iter().map(|x| -*x).collect()
}

/// The slot vector whose row 0 repeats `row0` and row 1 repeats `row1`.
fn periodic(row0: &[F], row1: &[F]) -> Vec<F> {
    let d = row0.len();
    (0..HALF)
        .map(|j| row0[j % d])
        .chain((0..HALF).map(|j| row1[j % d]))
        .collect()
}

/// `row` repeated along both slot rows, through the periodic encoder of its period.
fn encode_replicated(row: &[F]) -> EncodedPtxt {
    PeriodicEncoder::new(ctx(), row.len(), None)
        .expect("periodic encoder")
        .encode_replicated(row)
        .expect("periodic encoding")
}

/// Decrypts the slots, compares them with `expected` (zero-padded to N) and checks that the
/// measured noise is under the tracked bound.
fn assert_slots(ct: &Ctxt, expected: &[F], what: &str) {
    assert_decrypts_to_slots(&fixture().sk, encoder(), ct, expected, what);
}

fn assert_send_sync<T: Send + Sync>() {}

// ------------------------------------------------------------------ 1. slotwise operations

#[test]
fn slotwise_ops_match_plain_field_arithmetic() {
    let mut rng = rng(1);
    let x = random_slots(&mut rng);
    let w = random_slots(&mut rng);
    let ct = encrypt(&x);
    let pt = encode(&w);
    assert_eq!(pt.level(), top(), "None encodes at the top level");
    assert!(pt.context().same_as(ctx()));

    assert_slots(&(&ct * &pt).expect("ct * pt"), &mul(&x, &w), "ct * pt");
    assert_slots(&(&ct + &pt).expect("ct + pt"), &add(&x, &w), "ct + pt");
    assert_slots(&(&ct - &pt).expect("ct - pt"), &sub(&x, &w), "ct - pt");
    assert_slots(&(&pt - &ct).expect("pt - ct"), &sub(&w, &x), "pt - ct");

    // The in-place methods agree with the operators.
    let mut c = ct.clone();
    c.mul_ptxt(&pt).expect("mul_ptxt");
    assert_slots(&c, &mul(&x, &w), "mul_ptxt");
    let mut c = ct.clone();
    c.add_ptxt(&pt).expect("add_ptxt");
    assert_slots(&c, &add(&x, &w), "add_ptxt");
    let mut c = ct.clone();
    c.sub_ptxt(&pt).expect("sub_ptxt");
    assert_slots(&c, &sub(&x, &w), "sub_ptxt");
    let mut c = ct.clone();
    c.rsub_ptxt(&pt).expect("rsub_ptxt");
    assert_slots(&c, &sub(&w, &x), "rsub_ptxt");

    // The operators leave their operand untouched.
    assert_eq!(ct.level(), top());
    assert_slots(&ct, &x, "operand after the operators");

    // Chained: (x * w + v) - w, then v - that; products keep plaintext factor 1, so adding
    // an encoding after a plaintext product is allowed.
    let v = random_slots(&mut rng);
    let ptv = encode(&v);
    let mut c = (&ct * &pt).expect("mul");
    c.add_ptxt(&ptv).expect("add after mul_ptxt");
    c.sub_ptxt(&pt).expect("sub after mul_ptxt");
    let want = sub(&add(&mul(&x, &w), &v), &w);
    assert_slots(&c, &want, "x * w + v - w");
    c.rsub_ptxt(&ptv).expect("rsub after mul_ptxt");
    assert_slots(&c, &sub(&v, &want), "v - (x * w + v - w)");

    // Mixed with ciphertext arithmetic: (x * w) * y relinearized, then + w.
    let y = random_slots(&mut rng);
    let cy = encrypt(&y);
    let prod = (&(&ct * &pt).expect("mul") * &cy).expect("ct x ct");
    assert_slots(&prod, &mul(&mul(&x, &w), &y), "(x * w) * y");
}

#[test]
fn short_and_special_slot_vectors() {
    let mut rng = rng(2);
    let x = random_slots(&mut rng);
    let ct = encrypt(&x);

    // A short vector is zero-padded: the product is zero beyond it, the sum is x there.
    let w = random_poly(&mut rng, 10);
    let pt = encode(&w);
    assert_slots(&(&ct * &pt).expect("mul"), &mul(&x, &w), "short * ");
    assert_slots(
        &(&ct + &pt).expect("add"),
        &add(&x, &padded(&w, SLOTS)),
        "short +",
    );

    // All ones is the identity, all zeros annihilates, the empty vector is zero.
    let ones = encode(&vec![F::one(); SLOTS]);
    assert_slots(&(&ct * &ones).expect("mul"), &x, "x * 1");
    let zeros = encode(&vec![F::zero(); SLOTS]);
    assert_slots(&(&ct * &zeros).expect("mul"), &[], "x * 0");
    let empty = encode(&[]);
    assert_slots(&(&ct * &empty).expect("mul"), &[], "x * []");
    assert_slots(&(&ct + &empty).expect("add"), &x, "x + []");

    // -1 everywhere negates; p - 1 is the largest value.
    let minus_one = encode(&vec![-F::one(); SLOTS]);
    assert_slots(&(&ct * &minus_one).expect("mul"), &neg(&x), "x * -1");
    assert_slots(
        &(&minus_one - &ct).expect("rsub"),
        &sub(&vec![-F::one(); SLOTS], &x),
        "-1 - x",
    );
}

// ------------------------------------------------------------------ 2. polynomial encodings

#[test]
fn poly_encoding_multiplies_negacyclically() {
    let n = SLOTS;
    let mut rng = rng(3);
    let fx = fixture();
    let a = random_poly(&mut rng, n);
    let b = random_poly(&mut rng, n);
    let ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    let pt = EncodedPtxt::from_poly(ctx(), &b, None).expect("from_poly");
    assert_eq!(pt.level(), top());

    let reference = negacyclic_mul_schoolbook(&a, &b, n);
    assert_eq!(
        reference,
        negacyclic_mul(&a, &b, n),
        "the two references agree"
    );
    let prod = (&ct * &pt).expect("ct * pt");
    assert_decrypts_to(&fx.sk, &prod, &reference, "full polynomial product");
    assert_noise_within_bound(&fx.sk, &prod, "full polynomial product");
    assert_decrypts_to(&fx.sk, &(&ct + &pt).expect("add"), &add(&a, &b), "poly sum");
    assert_decrypts_to(
        &fx.sk,
        &(&ct - &pt).expect("sub"),
        &sub(&a, &b),
        "poly difference",
    );
    assert_decrypts_to(
        &fx.sk,
        &(&pt - &ct).expect("rsub"),
        &sub(&b, &a),
        "poly rsub",
    );

    // X^(N-1) wraps around: a * X^(N-1) = -a_1 - a_2 X - ... + a_0 X^(N-1).
    let mut monomial = vec![F::zero(); n];
    monomial[n - 1] = F::one();
    let pt = EncodedPtxt::from_poly(ctx(), &monomial, None).expect("from_poly");
    let mut want: Vec<F> = a[1..].iter().map(|c| -*c).collect();
    want.push(a[0]);
    assert_decrypts_to(&fx.sk, &(&ct * &pt).expect("mul"), &want, "a * X^(N-1)");

    // A short (sparse) multiplier.
    let c = random_poly(&mut rng, 5);
    let pt = EncodedPtxt::from_poly(ctx(), &c, None).expect("from_poly");
    let want = negacyclic_mul_schoolbook(&a, &c, n);
    assert_decrypts_to(&fx.sk, &(&ct * &pt).expect("mul"), &want, "a * short poly");

    // Polynomial and slot encodings of the same plaintext act the same.
    let slots = random_slots(&mut rng);
    let via_poly =
        EncodedPtxt::from_poly(ctx(), &encoder().encode(&slots).expect("encode"), None).unwrap();
    let x = random_slots(&mut rng);
    assert_slots(
        &(&encrypt(&x) * &via_poly).expect("mul"),
        &mul(&x, &slots),
        "poly of slots",
    );
}

/// Coefficients at the edges of the conversion's centring and digit cutting: 0, 1, p - 1, the
/// two sides of p/2, powers of two at and around the 51-bit digit boundaries, and their
/// negatives, with a length that leaves a tail after the whole groups of four. `Enc(1) * pt`
/// must decrypt to exactly these coefficients.
#[test]
fn edge_coefficients_convert_exactly() {
    use ark_ff::{BigInteger, PrimeField};
    let fx = fixture();
    let two = F::from(2u64);
    let mut half = F::MODULUS;
    half.div2();
    let half = F::from_bigint(half).expect("(p - 1) / 2 is below p");
    let mut coeffs = vec![
        F::zero(),
        F::one(),
        -F::one(),
        half,
        half + F::one(),
        half - F::one(),
        half + two,
    ];
    let mut power = F::one();
    for bit in 0..F::MODULUS_BIT_SIZE {
        if bit % 51 <= 1 || bit % 51 >= 49 || bit >= 250 {
            coeffs.extend([power, -power, power - F::one(), F::one() - power]);
        }
        power *= two;
    }
    let mut rng = rng(17);
    coeffs.extend(random_poly(&mut rng, 3));
    assert_ne!(coeffs.len() % 4, 0, "a tail after the groups of four");
    assert!(coeffs.len() < SLOTS);

    let one = fx.pk.encrypt_poly(&[F::one()]).expect("encrypt 1");
    let pt = EncodedPtxt::from_poly(ctx(), &coeffs, None).expect("from_poly");
    assert_decrypts_to(
        &fx.sk,
        &(&one * &pt).expect("mul"),
        &coeffs,
        "1 * edge coefficients",
    );
}

#[test]
fn poly_encoding_works_without_slots() {
    // BN254's base field is 3 mod 4: no slots at any N, but polynomials still multiply.
    type Fq = ark_bn254::Fq;
    let qctx = Context::builder()
        .ring_degree(N)
        .plaintext_field::<Fq>()
        .ciphertext_bits(600)
        .allow_insecure(true)
        .build()
        .expect("context");
    assert!(!qctx.slots_available());
    let sk = SecKey::generate(&qctx).expect("key");
    let pk = PubKey::generate(&sk).expect("key");
    let mut rng = rng(4);
    let n = qctx.ring_degree();
    let a: Vec<Fq> = (0..n)
        .map(|_| ark_std::UniformRand::rand(&mut rng))
        .collect();
    let b: Vec<Fq> = (0..n)
        .map(|_| ark_std::UniformRand::rand(&mut rng))
        .collect();
    let ct = pk.encrypt_poly(&a).expect("encrypt");
    let pt = EncodedPtxt::from_poly(&qctx, &b, None).expect("from_poly");
    let got = sk
        .decrypt_poly::<Fq>(&(&ct * &pt).expect("mul"))
        .expect("decrypt");
    let mut want = vec![Fq::zero(); n];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if i + j < n {
                want[i + j] += *x * y;
            } else {
                want[i + j - n] -= *x * y;
            }
        }
    }
    assert_eq!(got, want, "negacyclic product over Fq");

    assert_err!(
        PeriodicEncoder::<Fq>::new(&qctx, 4, None),
        NoSlots,
        "periodic without slots"
    );
    assert_err!(
        BatchEncoder::<Fq>::for_context(&qctx),
        NoSlots,
        "batch encoder without slots"
    );
    // The fixture's field does not match this context.
    assert_err!(
        EncodedPtxt::from_poly(&qctx, &[F::one()], None),
        FieldMismatch,
        "Fr coefficients for an Fq context"
    );
    assert_err!(
        EncodedPtxt::from_poly(ctx(), &[Fq::one()], None),
        FieldMismatch,
        "Fq coefficients for an Fr context"
    );
}

// ------------------------------------------------------------------ 3. reuse and threads

#[test]
fn one_encoding_serves_many_ciphertexts_and_threads() {
    assert_send_sync::<EncodedPtxt>();
    assert_send_sync::<PeriodicEncoder<F>>();

    let mut rng = rng(5);
    let w = random_slots(&mut rng);
    let pt = encode(&w);
    let xs: Vec<Vec<F>> = (0..3).map(|_| random_slots(&mut rng)).collect();
    let cts: Vec<Ctxt> = xs.iter().map(|x| encrypt(x)).collect();

    // Sequential reuse, twice over, including products of products.
    for round in 0..2 {
        for (i, (ct, x)) in cts.iter().zip(&xs).enumerate() {
            let what = format!("round {round}, ciphertext {i}");
            assert_slots(&(ct * &pt).expect("mul"), &mul(x, &w), &what);
            assert_slots(&(ct + &pt).expect("add"), &add(x, &w), &what);
        }
    }
    let mut twice = cts[0].clone();
    twice.mul_ptxt(&pt).expect("mul");
    twice.mul_ptxt(&pt).expect("mul again");
    assert_slots(&twice, &mul(&mul(&xs[0], &w), &w), "x * w * w");

    // Shared by reference between two threads, with a periodic encoder shared too.
    let periodic_enc = PeriodicEncoder::<F>::new(ctx(), 8, None).expect("periodic");
    let row = random_poly(&mut rng, 8);
    let results: Vec<Vec<(usize, Ctxt, Ctxt)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2usize)
            .map(|t| {
                let (pt, cts, periodic_enc, row) = (&pt, &cts, &periodic_enc, &row);
                s.spawn(move || {
                    (0..6)
                        .map(|k| {
                            let i = (k + t) % cts.len();
                            let prod = (&cts[i] * pt).expect("mul on a thread");
                            let ppt = periodic_enc.encode_replicated(row).expect("encode");
                            let pprod = (&cts[i] * &ppt).expect("periodic mul on a thread");
                            (i, prod, pprod)
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let rep = periodic(&row, &row);
    for (t, batch) in results.iter().enumerate() {
        assert_eq!(batch.len(), 6);
        for (i, prod, pprod) in batch {
            assert_slots(prod, &mul(&xs[*i], &w), &format!("thread {t}, ct {i}"));
            assert_slots(
                pprod,
                &mul(&xs[*i], &rep),
                &format!("thread {t}, ct {i}, periodic"),
            );
        }
    }

    // Moved to another thread (Send) and used there.
    let ct = cts[1].clone();
    let moved = std::thread::spawn(move || (&ct * &pt).expect("mul after move"))
        .join()
        .expect("thread");
    assert_slots(&moved, &mul(&xs[1], &w), "encoding moved to a thread");
}

#[test]
fn an_encoding_keeps_its_context_alive() {
    let mut rng = rng(6);
    let w = random_slots(&mut rng);
    let x = random_slots(&mut rng);
    let (sk, ct, pt) = {
        let fx = new_fixture(600);
        let enc = BatchEncoder::<F>::for_context(&fx.ctx).expect("encoder");
        let pt = EncodedPtxt::from_slots(&fx.ctx, &enc, &w, None).expect("encode");
        let ct = fx.pk.encrypt_slots(&enc, &x).expect("encrypt");
        (fx.sk, ct, pt)
        // fx.ctx, fx.pk and the encoder are dropped here.
    };
    let prod = (&ct * &pt).expect("mul");
    drop(pt);
    let got = sk.decrypt_slots(encoder(), &prod).expect("decrypt");
    assert_eq!(got, mul(&x, &w));
}

// ------------------------------------------------------------------ 4. levels

#[test]
fn lower_level_encodings() {
    let top = top();
    assert!(top >= 4, "the fixture has {top} primes");
    let low = top - 3;
    let mut rng = rng(7);
    let x = random_slots(&mut rng);
    let w = random_slots(&mut rng);
    let ct = encrypt(&x);
    assert_eq!(ct.level(), top);

    let pt_low = EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(low)).expect("encode low");
    assert_eq!(pt_low.level(), low);
    let pt_top = EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(top)).expect("encode top");
    assert_eq!(pt_top.level(), top);
    assert!(
        pt_low.size_bytes() < pt_top.size_bytes(),
        "fewer primes, less memory: {} vs {}",
        pt_low.size_bytes(),
        pt_top.size_bytes()
    );
    for level in [1, 2, top / 2, top - 1] {
        let pt = EncodedPtxt::from_poly(ctx(), &w[..16], Some(level)).expect("encode");
        assert_eq!(pt.level(), level);
    }

    // A top-level ciphertext is switched down to the encoding's level.
    let prod = (&ct * &pt_low).expect("ct * low pt");
    assert_eq!(prod.level(), low);
    assert_slots(&prod, &mul(&x, &w), "top ct * low pt");
    let mut in_place = ct.clone();
    in_place.mul_ptxt(&pt_low).expect("mul_ptxt");
    assert_eq!(in_place.level(), low);
    assert_slots(&in_place, &mul(&x, &w), "mul_ptxt with a low pt");
    assert_eq!(ct.level(), top, "the operator's operand is untouched");

    // A ciphertext below the encoding's level uses its lower primes (factor != 1 is fine).
    let mut below = ct.clone();
    below.mod_switch_to(low - 1).expect("switch");
    for (pt, what) in [(&pt_low, "low"), (&pt_top, "top")] {
        let prod = (&below * pt).expect("low ct * pt");
        assert_eq!(prod.level(), low - 1);
        assert_slots(&prod, &mul(&x, &w), &format!("ct below {what} pt"));
    }

    // A periodic encoder at a lower level.
    let row0 = random_poly(&mut rng, 4);
    let row1 = random_poly(&mut rng, 4);
    let penc = PeriodicEncoder::new(ctx(), 4, Some(low)).expect("periodic low");
    let ppt = penc.encode(&row0, &row1).expect("encode");
    assert_eq!(ppt.level(), low);
    let prod = (&ct * &ppt).expect("mul");
    assert_eq!(prod.level(), low);
    assert_slots(&prod, &mul(&x, &periodic(&row0, &row1)), "periodic low");

    // Above the top is refused.
    assert_err!(
        EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(top + 1)),
        InvalidArgument,
        "from_slots above the top"
    );
    assert_err!(
        EncodedPtxt::from_poly(ctx(), &w, Some(u32::MAX)),
        InvalidArgument,
        "from_poly at u32::MAX"
    );
    assert_err!(
        PeriodicEncoder::<F>::new(ctx(), 4, Some(top + 1)),
        InvalidArgument,
        "periodic encoder above the top"
    );
}

/// `Some(0)` is not a level (levels are 1..=top), but the engine reads 0 as "top".
#[test]
fn encoding_at_level_zero_is_refused() {
    let w = random_slots(&mut rng(8));
    let r = EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(0));
    assert_err!(r, InvalidArgument, "from_slots at level 0");
    assert_err!(
        EncodedPtxt::from_poly(ctx(), &w, Some(0)),
        InvalidArgument,
        "from_poly at level 0"
    );
    assert_err!(
        PeriodicEncoder::<F>::new(ctx(), 4, Some(0)),
        InvalidArgument,
        "periodic encoder at level 0"
    );
}

#[test]
fn adding_a_lower_level_encoding_fails_cleanly() {
    // Switching a ciphertext down changes its plaintext factor, so adding an encoding below
    // the ciphertext's level cannot be done: it must fail, and leave the plaintext intact.
    let mut rng = rng(9);
    let x = random_slots(&mut rng);
    let w = random_slots(&mut rng);
    let ct = encrypt(&x);
    let pt_low = EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(top() - 2)).expect("enc");
    assert!((&ct + &pt_low).is_err(), "ct + lower pt");
    assert!((&ct - &pt_low).is_err(), "ct - lower pt");
    assert!((&pt_low - &ct).is_err(), "lower pt - ct");
    let mut c = ct.clone();
    assert!(c.add_ptxt(&pt_low).is_err());
    assert_slots(&c, &x, "after a failed add_ptxt");
    assert!(c.sub_ptxt(&pt_low).is_err());
    assert_slots(&c, &x, "after a failed sub_ptxt");
    assert_slots(&ct, &x, "operand of the failed operators");
}

// ------------------------------------------------------------------ 5. inner products

#[test]
fn inner_product_equals_sum_of_slotwise_products() {
    const K: usize = 5;
    let mut rng = rng(10);
    let xs: Vec<Vec<F>> = (0..K).map(|_| random_slots(&mut rng)).collect();
    let ws: Vec<Vec<F>> = (0..K).map(|_| random_slots(&mut rng)).collect();
    let cts: Vec<Ctxt> = xs.iter().map(|x| encrypt(x)).collect();
    let pts: Vec<EncodedPtxt> = ws.iter().map(|w| encode(w)).collect();
    let ct_refs: Vec<&Ctxt> = cts.iter().collect();
    let pt_refs: Vec<&EncodedPtxt> = pts.iter().collect();

    let mut want = vec![F::zero(); SLOTS];
    for (x, w) in xs.iter().zip(&ws) {
        want = add(&want, &mul(x, w));
    }
    let dot = Ctxt::inner_product(&ct_refs, &pt_refs).expect("inner product");
    assert_eq!(dot.level(), top());
    assert_slots(&dot, &want, "inner product of 5");

    // The same as separate products added up.
    let mut sum = (&cts[0] * &pts[0]).expect("mul");
    for i in 1..K {
        sum.add_assign(&(&cts[i] * &pts[i]).expect("mul"))
            .expect("add");
    }
    assert_slots(&sum, &want, "sum of products");

    // One term is a product; repeated terms are fine.
    let one = Ctxt::inner_product(&ct_refs[..1], &pt_refs[..1]).expect("one term");
    assert_slots(&one, &mul(&xs[0], &ws[0]), "inner product of 1");
    let rep = Ctxt::inner_product(&[&cts[2], &cts[2]], &[&pts[3], &pts[3]]).expect("repeat");
    let xw = mul(&xs[2], &ws[3]);
    assert_slots(&rep, &add(&xw, &xw), "repeated term");

    // Ciphertexts switched down together (factor != 1) with top-level plaintexts, and
    // periodic plaintexts mixed with full ones.
    let low = top() - 2;
    let lows: Vec<Ctxt> = cts
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.mod_switch_to(low).expect("switch");
            c
        })
        .collect();
    let low_refs: Vec<&Ctxt> = lows.iter().collect();
    let dot = Ctxt::inner_product(&low_refs, &pt_refs).expect("low inner product");
    assert_eq!(dot.level(), low);
    assert_slots(&dot, &want, "inner product at a lower level");

    let rows: Vec<Vec<F>> = [1usize, 2, 64, HALF, 4]
        .iter()
        .map(|&d| random_poly(&mut rng, d))
        .collect();
    let mixed: Vec<EncodedPtxt> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i == 4 {
                encode(&periodic(r, r))
            } else {
                encode_replicated(r)
            }
        })
        .collect();
    let mixed_refs: Vec<&EncodedPtxt> = mixed.iter().collect();
    let dot = Ctxt::inner_product(&ct_refs, &mixed_refs).expect("mixed inner product");
    let mut want = vec![F::zero(); SLOTS];
    for (x, r) in xs.iter().zip(&rows) {
        want = add(&want, &mul(x, &periodic(r, r)));
    }
    assert_slots(&dot, &want, "inner product with periodic plaintexts");
}

/// Many terms (the engine reduces its accumulators every few terms) with plaintexts of every
/// storage form: full, and periodic with each value repeated 2, 4 and many times.
#[test]
fn inner_product_of_many_terms_and_every_period() {
    const K: usize = 13;
    let mut rng = rng(12);
    let xs: Vec<Vec<F>> = (0..K).map(|_| random_slots(&mut rng)).collect();
    let cts: Vec<Ctxt> = xs.iter().map(|x| encrypt(x)).collect();
    let periods = [HALF, HALF / 2, HALF / 4, 64, 2, 1];
    let rows: Vec<Vec<F>> = (0..K)
        .map(|i| random_poly(&mut rng, periods[i % periods.len()]))
        .collect();
    let pts: Vec<EncodedPtxt> = rows.iter().map(|r| encode_replicated(r)).collect();
    let ct_refs: Vec<&Ctxt> = cts.iter().collect();
    let pt_refs: Vec<&EncodedPtxt> = pts.iter().collect();
    for terms in [4, 8, K] {
        let dot = Ctxt::inner_product(&ct_refs[..terms], &pt_refs[..terms]).expect("inner product");
        let mut want = vec![F::zero(); SLOTS];
        for (x, r) in xs.iter().zip(&rows).take(terms) {
            want = add(&want, &mul(x, &periodic(r, r)));
        }
        assert_slots(&dot, &want, &format!("{terms} terms"));
    }
}

#[test]
fn inner_product_errors() {
    let mut rng = rng(11);
    let xs: Vec<Vec<F>> = (0..5).map(|_| random_slots(&mut rng)).collect();
    let cts: Vec<Ctxt> = xs.iter().map(|x| encrypt(x)).collect();
    let pts: Vec<EncodedPtxt> = xs.iter().map(|x| encode(x)).collect();
    let c: Vec<&Ctxt> = cts.iter().collect();
    let p: Vec<&EncodedPtxt> = pts.iter().collect();

    assert_err!(Ctxt::inner_product(&[], &[]), InvalidLength, "empty");
    assert_err!(Ctxt::inner_product(&c, &p[..4]), InvalidLength, "5 vs 4");
    assert_err!(Ctxt::inner_product(&c[..3], &p), InvalidLength, "3 vs 5");
    assert_err!(Ctxt::inner_product(&[], &p[..1]), InvalidLength, "0 vs 1");
    assert_err!(Ctxt::inner_product(&c[..1], &[]), InvalidLength, "1 vs 0");

    // Another key in the same context.
    let sk2 = SecKey::generate(ctx()).expect("key");
    let pk2 = PubKey::generate(&sk2).expect("key");
    let foreign = pk2.encrypt_slots(encoder(), &xs[0]).expect("encrypt");
    assert_err!(
        Ctxt::inner_product(&[c[0], &foreign], &p[..2]),
        Mismatch,
        "ciphertext under another key"
    );
    assert_err!(
        Ctxt::inner_product(&[&foreign, c[0]], &p[..2]),
        Mismatch,
        "another key first"
    );

    // Another context: its ciphertexts, and its plaintexts.
    let fx2 = other();
    let enc2 = BatchEncoder::<F>::for_context(&fx2.ctx).expect("encoder");
    let ct2 = fx2.pk.encrypt_slots(&enc2, &xs[0]).expect("encrypt");
    let pt2 = EncodedPtxt::from_slots(&fx2.ctx, &enc2, &xs[0], None).expect("encode");
    assert_err!(
        Ctxt::inner_product(&[c[0], &ct2], &p[..2]),
        Mismatch,
        "ciphertext of another context"
    );
    assert_err!(
        Ctxt::inner_product(&c[..2], &[p[0], &pt2]),
        Mismatch,
        "plaintext of another context"
    );
    assert_err!(
        Ctxt::inner_product(&[&ct2], &[p[0]]),
        Mismatch,
        "single term across contexts"
    );

    // Terms at different levels, and a plaintext below the ciphertexts' level.
    let mut low = cts[1].clone();
    low.mod_switch_down().expect("switch");
    assert!(
        Ctxt::inner_product(&[c[0], &low], &p[..2]).is_err(),
        "levels differ"
    );
    let pt_low = EncodedPtxt::from_slots(ctx(), encoder(), &xs[0], Some(top() - 1)).unwrap();
    assert!(
        Ctxt::inner_product(&c[..2], &[p[0], &pt_low]).is_err(),
        "plaintext below the ciphertexts"
    );
    // Same level, different plaintext factors: the square of a switched-down ciphertext
    // (factor f^2) and a ciphertext switched down to its level (factor f, times the same).
    let mut a = cts[2].clone();
    a.mod_switch_down().expect("switch");
    let prod = a.checked_square().expect("square");
    let mut switched = cts[4].clone();
    switched.mod_switch_to(prod.level()).expect("switch");
    assert_eq!(prod.level(), switched.level());
    assert!(
        Ctxt::inner_product(&[&prod, &switched], &p[..2]).is_err(),
        "different plaintext factors"
    );
    // Each alone is fine.
    let single = Ctxt::inner_product(&[&switched], &[p[0]]).expect("single switched");
    assert_slots(&single, &mul(&xs[4], &xs[0]), "single switched term");
}

// ------------------------------------------------------------------ 6. periodic encodings

/// Every way of using a period-`d` encoding of (`row0`, `row1`) against `ct` (which encrypts
/// `x`), compared with the plain periodic vector. Returns the encoding's size.
fn check_periodic(d: usize, row0: &[F], row1: &[F], ct: &Ctxt, x: &[F]) -> u64 {
    let fx = fixture();
    let enc = PeriodicEncoder::<F>::new(ctx(), d, None).expect("periodic encoder");
    assert_eq!(enc.period(), d);
    let pt = enc.encode(row0, row1).expect("encode");
    assert_eq!(pt.level(), top(), "d = {d}");

    // ct * pt, slot by slot: row 0 column j is x[j] * row0[j % d], row 1 likewise.
    let prod = (ct * &pt).expect("mul");
    let got = fx.sk.decrypt_slots(encoder(), &prod).expect("decrypt");
    for j in 0..HALF {
        assert_eq!(got[j], x[j] * row0[j % d], "d = {d}, row 0, column {j}");
        assert_eq!(
            got[HALF + j],
            x[HALF + j] * row1[j % d],
            "d = {d}, row 1, column {j}"
        );
    }
    assert_noise_within_bound(&fx.sk, &prod, &format!("d = {d}"));

    let v = periodic(row0, row1);
    assert_slots(
        &(ct + &pt).expect("add"),
        &add(x, &v),
        &format!("d = {d}, +"),
    );
    assert_slots(
        &(ct - &pt).expect("sub"),
        &sub(x, &v),
        &format!("d = {d}, -"),
    );
    assert_slots(
        &(&pt - ct).expect("rsub"),
        &sub(&v, x),
        &format!("d = {d}, rsub"),
    );

    // The same product as the full encoding of the periodic vector.
    let full = encode(&v);
    assert_eq!(
        fx.sk
            .decrypt_slots(encoder(), &(ct * &full).expect("mul"))
            .unwrap(),
        got,
        "d = {d}: periodic and full encodings agree"
    );

    // encode_poly: the polynomial BatchEncoder gives for the periodic vector, nonzero only at
    // multiples of N / 2d; encrypted, it decrypts to the periodic slots.
    let poly = enc.encode_poly(row0, row1).expect("encode_poly");
    assert_eq!(poly.len(), SLOTS);
    assert_eq!(poly, encoder().encode(&v).unwrap(), "d = {d}: encode_poly");
    // Period 1 is stored as period 2 (rows a, b need X^(N/4) terms), hence max(d, 2).
    let stride = SLOTS / (2 * d.max(2));
    assert!(
        poly.iter()
            .enumerate()
            .all(|(i, c)| i % stride == 0 || c.is_zero()),
        "d = {d}: the polynomial is sparse"
    );
    let enc_ct = fx.pk.encrypt_poly(&poly).expect("encrypt_poly");
    assert_slots(&enc_ct, &v, &format!("d = {d}, encrypt(encode_poly)"));
    let as_poly = EncodedPtxt::from_poly(ctx(), &poly, None).expect("from_poly");
    assert_slots(
        &(ct * &as_poly).expect("mul"),
        &mul(x, &v),
        &format!("d = {d}, poly"),
    );

    // encode_replicated repeats one vector in both rows.
    let rep = enc.encode_replicated(row0).expect("replicated");
    assert_slots(
        &(ct * &rep).expect("mul"),
        &mul(x, &periodic(row0, row0)),
        &format!("d = {d}, replicated"),
    );
    pt.size_bytes()
}

#[test]
fn periodic_encodings_for_every_period() {
    let mut rng = rng(12);
    let x = random_slots(&mut rng);
    let ct = encrypt(&x);
    let mut sizes = Vec::new();
    let mut d = 1;
    while d <= HALF {
        let row0 = random_poly(&mut rng, d);
        // Period 1 with two different rows is broken (see
        // `period_one_keeps_the_two_rows_apart`); the same value in both rows works.
        let row1 = if d == 1 {
            row0.clone()
        } else {
            random_poly(&mut rng, d)
        };
        sizes.push(check_periodic(d, &row0, &row1, &ct, &x));
        d *= 2;
    }
    assert_eq!(sizes.len(), 11, "periods 1 ..= N/2");
    assert!(
        sizes.windows(2).all(|s| s[0] <= s[1]),
        "sizes grow with the period: {sizes:?}"
    );
}

/// Period 1 means "row 0 is constant, row 1 is constant". But 3 = -1 mod 4, so in the
/// 2-coefficient ring of period 1 the generator 3 swaps the two slots: row 0 of the result
/// alternates row0[0], row1[0] (and row 1 alternates row1[0], row0[0]).
#[test]
fn period_one_keeps_the_two_rows_apart() {
    let mut rng = rng(17);
    let x = random_slots(&mut rng);
    let ct = encrypt(&x);
    let row0 = random_poly(&mut rng, 1);
    let row1 = random_poly(&mut rng, 1);
    check_periodic(1, &row0, &row1, &ct, &x);
}

#[test]
fn periodic_encoding_is_much_smaller() {
    let mut rng = rng(13);
    let row0 = random_poly(&mut rng, 4);
    let row1 = random_poly(&mut rng, 4);
    let small = PeriodicEncoder::new(ctx(), 4, None)
        .expect("periodic")
        .encode(&row0, &row1)
        .expect("encode");
    let full = encode(&periodic(&row0, &row1));
    let half = PeriodicEncoder::new(ctx(), HALF, None)
        .expect("periodic")
        .encode(&random_poly(&mut rng, HALF), &random_poly(&mut rng, HALF))
        .expect("encode");
    assert!(small.size_bytes() > 0);
    assert!(
        small.size_bytes() < full.size_bytes(),
        "d = 4: {} bytes, full: {}",
        small.size_bytes(),
        full.size_bytes()
    );
    // 8 words per prime instead of 2048.
    assert!(
        small.size_bytes() * 64 < full.size_bytes(),
        "d = 4: {} bytes, full: {}",
        small.size_bytes(),
        full.size_bytes()
    );
    // Period N/2 is no sparsity at all: about the full size.
    assert!(half.size_bytes() * 2 > full.size_bytes());
    assert!(half.size_bytes() <= full.size_bytes() * 2);
    let dbg = format!("{small:?}");
    assert!(
        dbg.contains("EncodedPtxt") && dbg.contains("level"),
        "{dbg}"
    );
}

// ------------------------------------------------------------------ 7. errors

#[test]
fn periodic_encoder_errors() {
    for period in [0, 3, 6, 1000, HALF + 1, SLOTS, 2 * SLOTS, usize::MAX] {
        assert_err!(
            PeriodicEncoder::<F>::new(ctx(), period, None),
            InvalidArgument,
            format!("period {period}")
        );
    }
    let enc = PeriodicEncoder::<F>::new(ctx(), 4, None).expect("periodic");
    let four = vec![F::one(); 4];
    let three = vec![F::one(); 3];
    let five = vec![F::one(); 5];
    assert_err!(enc.encode(&three, &four), InvalidLength, "row 0 short");
    assert_err!(enc.encode(&four, &five), InvalidLength, "row 1 long");
    assert_err!(enc.encode(&[], &[]), InvalidLength, "empty rows");
    assert_err!(
        enc.encode_replicated(&five),
        InvalidLength,
        "replicated long"
    );
    assert_err!(
        enc.encode_poly(&four, &three),
        InvalidLength,
        "encode_poly short"
    );
    assert!(enc.encode(&four, &four).is_ok());
    assert!(format!("{enc:?}").contains("period"));
    // Another field than the context's.
    assert_err!(
        PeriodicEncoder::<ark_bn254::Fq>::new(ctx(), 4, None),
        FieldMismatch,
        "periodic encoder for the wrong field"
    );
}

#[test]
fn encoded_plaintext_errors() {
    let mut rng = rng(14);
    let x = random_slots(&mut rng);
    let w = random_slots(&mut rng);
    let ct = encrypt(&x);

    // Too many values or coefficients.
    let long = random_poly(&mut rng, SLOTS + 1);
    assert_err!(
        EncodedPtxt::from_slots(ctx(), encoder(), &long, None),
        InvalidLength,
        "N + 1 slots"
    );
    assert_err!(
        EncodedPtxt::from_poly(ctx(), &long, None),
        InvalidLength,
        "N + 1 coeffs"
    );
    assert!(EncodedPtxt::from_slots(ctx(), encoder(), &long[..SLOTS], None).is_ok());

    // A batch encoder for another ring degree.
    let small_enc = BatchEncoder::<F>::new(SLOTS / 2).expect("encoder");
    assert_err!(
        EncodedPtxt::from_slots(ctx(), &small_enc, &w[..8], None),
        Mismatch,
        "from_slots with an N/2 encoder"
    );
    assert_err!(
        fixture().pk.encrypt_slots(&small_enc, &w[..8]),
        Mismatch,
        "encrypt_slots with an N/2 encoder"
    );
    assert_err!(
        fixture().sk.decrypt_slots(&small_enc, &ct),
        Mismatch,
        "decrypt_slots with an N/2 encoder"
    );
    let big_enc = BatchEncoder::<F>::new(2 * SLOTS).expect("encoder");
    assert_err!(
        EncodedPtxt::from_slots(ctx(), &big_enc, &w, None),
        Mismatch,
        "from_slots with a 2N encoder"
    );

    // A plaintext of another context, with every operation.
    let fx2 = other();
    let enc2 = BatchEncoder::<F>::for_context(&fx2.ctx).expect("encoder");
    let pt2 = EncodedPtxt::from_slots(&fx2.ctx, &enc2, &w, None).expect("encode");
    assert_err!(&ct * &pt2, Mismatch, "ct * foreign pt");
    assert_err!(&ct + &pt2, Mismatch, "ct + foreign pt");
    assert_err!(&ct - &pt2, Mismatch, "ct - foreign pt");
    assert_err!(&pt2 - &ct, Mismatch, "foreign pt - ct");
    let mut c = ct.clone();
    assert_err!(c.mul_ptxt(&pt2), Mismatch, "mul_ptxt");
    assert_err!(c.add_ptxt(&pt2), Mismatch, "add_ptxt");
    assert_err!(c.sub_ptxt(&pt2), Mismatch, "sub_ptxt");
    assert_err!(c.rsub_ptxt(&pt2), Mismatch, "rsub_ptxt");
    assert_slots(&c, &x, "after the refused operations");
    let foreign_periodic = PeriodicEncoder::<F>::new(&fx2.ctx, 2, None)
        .expect("periodic")
        .encode_replicated(&w[..2])
        .expect("encode");
    assert_err!(
        &ct * &foreign_periodic,
        Mismatch,
        "ct * foreign periodic pt"
    );

    // Adding to a switched-down ciphertext (plaintext factor != 1) is an error, not a panic;
    // multiplying is fine.
    let pt = encode(&w);
    let mut switched = ct.clone();
    switched.mod_switch_down().expect("switch");
    assert!(
        matches!(&switched + &pt, Err(Error::InvalidArgument(_))),
        "switched + pt"
    );
    assert!((&switched - &pt).is_err(), "switched - pt");
    assert!((&pt - &switched).is_err(), "pt - switched");
    let mut c = switched.clone();
    assert!(c.add_ptxt(&pt).is_err(), "add_ptxt after mod_switch_down");
    assert!(c.sub_ptxt(&pt).is_err(), "sub_ptxt after mod_switch_down");
    assert_slots(&c, &x, "after the refused additions");
    assert_slots(
        &(&switched * &pt).expect("mul"),
        &mul(&x, &w),
        "switched * pt",
    );
    // A product of fresh ciphertexts that stayed at the top level keeps factor 1, so adding
    // works (and must be right); once switched down, it is refused.
    let mut sq = ct.checked_square().expect("square");
    if let Ok(sum) = &sq + &pt {
        assert_slots(&sum, &add(&mul(&x, &x), &w), "ct^2 + pt");
    }
    sq.mod_switch_down().expect("switch");
    assert!((&sq + &pt).is_err(), "switched ct^2 + pt");
}

/// A failed in-place `rsub_ptxt` must not change the plaintext. It negates first and then
/// adds, so when the addition is refused the ciphertext is left holding `-x`.
#[test]
fn failed_rsub_ptxt_leaves_the_ciphertext_unchanged() {
    let mut rng = rng(15);
    let x = random_slots(&mut rng);
    let pt = encode(&random_slots(&mut rng));
    let mut c = encrypt(&x);
    c.mod_switch_down().expect("switch");
    assert!(c.rsub_ptxt(&pt).is_err());
    assert_slots(&c, &x, "after a failed rsub_ptxt");
}

// ------------------------------------------------------------------ 8. noise

#[test]
fn noise_of_plaintext_operations() {
    let fx = fixture();
    let mut rng = rng(16);
    let x = random_slots(&mut rng);
    let w = random_slots(&mut rng);
    let ct = encrypt(&x);
    let fresh = ct.noise_budget();
    assert!(fresh > 0.0);
    assert_noise_within_bound(&fx.sk, &ct, "fresh");

    // A random plaintext costs about log2(p) bits plus a little (its canonical norm).
    let pt = encode(&w);
    let prod = (&ct * &pt).expect("mul");
    let cost = fresh - prod.noise_budget();
    assert!(
        prod.noise_budget() > 0.0,
        "budget left: {}",
        prod.noise_budget()
    );
    assert!(
        cost > 200.0 && cost < 300.0,
        "ct * random pt cost {cost:.1} bits"
    );
    let measured = fx.sk.measure_noise(&prod).expect("measure");
    assert!(
        measured <= prod.log2_noise_bound(),
        "measured 2^{measured:.1} > bound 2^{:.1}",
        prod.log2_noise_bound()
    );
    assert!(
        measured > fx.sk.measure_noise(&ct).unwrap(),
        "the noise grew"
    );
    assert_slots(&prod, &mul(&x, &w), "ct * pt");

    // Chained products until the budget is nearly used up, each step still bounded.
    let mut chain = prod;
    let mut want = mul(&x, &w);
    let mut steps = 1;
    loop {
        let v = random_slots(&mut rng);
        let before = chain.noise_budget();
        let mut next = chain.clone();
        match next.mul_ptxt(&encode(&v)) {
            Ok(()) if next.noise_budget() > 0.0 => {}
            _ => break,
        }
        assert!(next.noise_budget() < before);
        want = mul(&want, &v);
        steps += 1;
        assert_slots(&next, &want, &format!("{steps} chained products"));
        chain = next;
    }
    assert!(steps >= 3, "only {steps} products fit in {fresh:.0} bits");

    // Adding costs almost nothing; the identity costs nothing; zero resets the noise.
    let sum = (&ct + &pt).expect("add");
    assert!(sum.noise_budget() > 0.0 && sum.noise_budget() <= fresh);
    assert_noise_within_bound(&fx.sk, &sum, "ct + pt");
    let ones = encode(&vec![F::one(); SLOTS]);
    let same = (&ct * &ones).expect("mul");
    assert!(
        (same.noise_budget() - fresh).abs() < 1.0,
        "ct * 1: {} vs {fresh}",
        same.noise_budget()
    );
    assert_noise_within_bound(&fx.sk, &same, "ct * 1");
    let zero = (&ct * &encode(&[])).expect("mul");
    assert!(zero.noise_budget() >= fresh);
    assert_noise_within_bound(&fx.sk, &zero, "ct * 0");

    // Periodic, lower-level and inner-product results are within their bounds too.
    let row = random_poly(&mut rng, 2);
    let ppt = PeriodicEncoder::new(ctx(), 2, None)
        .unwrap()
        .encode_replicated(&row)
        .unwrap();
    let pprod = (&ct * &ppt).expect("mul");
    assert!(pprod.noise_budget() < fresh && pprod.noise_budget() > 0.0);
    assert_noise_within_bound(&fx.sk, &pprod, "ct * periodic pt");
    let low = EncodedPtxt::from_slots(ctx(), encoder(), &w, Some(top() - 3)).unwrap();
    let lprod = (&ct * &low).expect("mul");
    assert!(lprod.noise_budget() > 0.0);
    assert_noise_within_bound(&fx.sk, &lprod, "ct * low pt");
    let y = random_slots(&mut rng);
    let cy = encrypt(&y);
    let dot = Ctxt::inner_product(&[&ct, &cy], &[&pt, &ppt]).expect("dot");
    assert!(dot.noise_budget() > 0.0 && dot.noise_budget() < fresh);
    assert_noise_within_bound(&fx.sk, &dot, "inner product");
}
