//! Master keys and the Galois keys a server derives from them: rotations with derived keys
//! decrypt to the plain rotation, their tracked noise bound covers the measured noise, the
//! master set survives serialization and bad bytes are refused, and misuse is a clear error.

mod common;

use std::sync::OnceLock;

use common::*;
use helib_rs::{
    BatchEncoder, Context, Error, GaloisKeys, GaloisSteps, HornerChain, MasterKeys, PubKey, SecKey,
};

struct Derivable {
    ctx: Context,
    sk: SecKey,
    pk: PubKey,
    masters: MasterKeys,
    enc: BatchEncoder<F>,
}

/// A toy derivable context (insecure, N = 2048) with its default masters, built once.
fn derivable() -> &'static Derivable {
    static D: OnceLock<Derivable> = OnceLock::new();
    D.get_or_init(|| {
        let ctx = Context::builder()
            .ring_degree(N)
            .plaintext_field::<F>()
            .ciphertext_bits(900)
            .derivable_keys(true)
            .allow_insecure(true)
            .build()
            .expect("context");
        let sk = SecKey::generate(&ctx).expect("secret key");
        let pk = PubKey::generate(&sk).expect("public key");
        let masters = MasterKeys::generate(&sk).expect("master keys");
        let enc = BatchEncoder::for_context(&ctx).expect("encoder");
        Derivable {
            ctx,
            sk,
            pk,
            masters,
            enc,
        }
    })
}

/// An encryption of `slots`: at the level derived keys serve, as every fresh one is.
fn encrypt_at_derivation_level(d: &Derivable, slots: &[F]) -> helib_rs::Ctxt {
    let ct =
        d.pk.encrypt_poly(&d.enc.encode(slots).expect("encode"))
            .expect("encrypt");
    assert_eq!(Some(ct.level()), d.ctx.derivation_level());
    ct
}

#[test]
fn a_derivable_context_adds_primes_above_its_working_level() {
    let d = derivable();
    let plain = Context::builder()
        .ring_degree(N)
        .plaintext_field::<F>()
        .ciphertext_bits(900)
        .allow_insecure(true)
        .build()
        .expect("context");
    let level = d.ctx.derivation_level().expect("derivable");
    assert_eq!(level, plain.num_ctxt_primes());
    assert!(d.ctx.num_ctxt_primes() > level);
    assert!(d.ctx.log2_qp() > plain.log2_qp());
    assert_eq!(plain.derivation_level(), None);
    // The default masters: rotations by 1, 16, 256 (rows of 1024) and the row swap.
    assert_eq!(d.masters.elements().len(), 4);
}

#[test]
fn rotations_with_derived_keys_match_the_plain_rotation() {
    let d = derivable();
    let mut r = rng(70);
    let slots = random_poly(&mut r, N as usize);
    let steps = [1i64, 3, 17, 37, 255, 511, -1, -300];
    let gk = d
        .masters
        .derive(&GaloisSteps::new().steps(steps).row_swap())
        .expect("derive");
    assert!(gk.is_derived());
    assert_eq!(gk.max_level(), d.ctx.derivation_level());
    for k in steps {
        assert!(gk.has_step(k), "derived key for {k}");
    }
    let ct = encrypt_at_derivation_level(d, &slots);
    for k in steps {
        let rotated = ct.rotated_rows(k, &gk).expect("rotate");
        assert_noise_within_bound(&d.sk, &rotated, &format!("rotation by {k}"));
        let got = d.enc.decode(&d.sk.decrypt_poly(&rotated).expect("decrypt"));
        assert_eq!(got, plain_rotate_rows(&slots, k), "rotation by {k}");
    }
    // Hoisted rotations share one decomposition over the derived keys' primes.
    let many = ct.rotate_rows_many(&[3, 37, -1], &gk).expect("hoisted");
    for (c, k) in many.iter().zip([3i64, 37, -1]) {
        assert_noise_within_bound(&d.sk, c, "hoisted rotation");
        let got = d.enc.decode(&d.sk.decrypt_poly(c).expect("decrypt"));
        assert_eq!(got, plain_rotate_rows(&slots, k), "hoisted rotation by {k}");
    }
    // A Horner chain keeps its accumulator over the derived keys' primes between steps:
    // x0 + rot(x1, 37) + rot(x2, 74).
    let terms: Vec<Vec<F>> = (0..3).map(|_| random_poly(&mut r, N as usize)).collect();
    let cts: Vec<_> = terms
        .iter()
        .map(|t| encrypt_at_derivation_level(d, t))
        .collect();
    let mut chain = HornerChain::new(&cts[2], 37, &gk).expect("chain");
    chain.rotate_add(&cts[1]).expect("step");
    chain.rotate_add(&cts[0]).expect("step");
    let sum = chain.result().expect("result");
    assert_noise_within_bound(&d.sk, &sum, "Horner chain");
    let got = d.enc.decode(&d.sk.decrypt_poly(&sum).expect("decrypt"));
    let want: Vec<F> = (0..N as usize)
        .map(|j| {
            terms[0][j] + plain_rotate_rows(&terms[1], 37)[j] + plain_rotate_rows(&terms[2], 74)[j]
        })
        .collect();
    assert_eq!(got, want, "a three-term Horner chain with a derived key");
    let mut swapped = ct.try_clone().expect("clone");
    swapped.swap_rows(&gk).expect("swap");
    let got = d.enc.decode(&d.sk.decrypt_poly(&swapped).expect("decrypt"));
    let half = N as usize / 2;
    let expected: Vec<F> = slots[half..]
        .iter()
        .chain(&slots[..half])
        .copied()
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn derived_keys_cost_little_budget_against_generated_ones() {
    let d = derivable();
    let mut r = rng(71);
    let slots = random_poly(&mut r, N as usize);
    let derived = d
        .masters
        .derive(&GaloisSteps::new().step(511))
        .expect("derive");
    let generated = GaloisKeys::generate(&d.sk, &GaloisSteps::new().step(511)).expect("keys");
    let ct = encrypt_at_derivation_level(d, &slots);
    let a = ct.rotated_rows(511, &derived).expect("derived");
    let b = ct.rotated_rows(511, &generated).expect("generated");
    assert_eq!(
        d.sk.decrypt_poly::<F>(&a).expect("decrypt"),
        d.sk.decrypt_poly::<F>(&b).expect("decrypt")
    );
    // 511 = 256 + 15 * 16 + 15: 31 key switches made its key, and still the rotation keeps
    // nearly all of the budget.
    assert!(
        a.noise_budget() > b.noise_budget() - 3.0,
        "derived {} vs generated {}",
        a.noise_budget(),
        b.noise_budget()
    );
    assert_noise_within_bound(&d.sk, &a, "rotation by 511 with a derived key");
}

#[test]
fn fresh_encryptions_start_at_the_derivation_level() {
    let d = derivable();
    let top = d.ctx.derivation_level().expect("derivable");
    let ct =
        d.pk.encrypt_poly(&d.enc.encode(&[F::from(1u64)]).expect("encode"))
            .expect("encrypt");
    assert_eq!(ct.level(), top);
    let seeded =
        d.sk.encrypt_poly_to_bytes(&d.enc.encode(&[F::from(1u64)]).expect("encode"))
            .expect("seeded");
    assert_eq!(
        helib_rs::Ctxt::from_bytes(&d.pk, &seeded)
            .expect("read")
            .level(),
        top
    );
    assert!((ct.noise_budget() - d.ctx.fresh_noise_budget()).abs() < 2.0);
}

#[test]
fn misuse_is_a_clear_error() {
    let d = derivable();
    let fx = fixture(); // an ordinary context
    let err = MasterKeys::generate(&fx.sk).expect_err("not derivable");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    // Masters for rotations by 2 only generate the even rotations.
    let even = MasterKeys::generate_for(&d.sk, &GaloisSteps::new().step(2)).expect("masters");
    let err = even
        .derive(&GaloisSteps::new().step(1))
        .expect_err("odd rotation");
    assert!(matches!(err, Error::MissingKey(_)), "{err}");
    assert!(even.derive(&GaloisSteps::new().step(6)).is_ok());
    let err = d.masters.derive_elements(&[4]).expect_err("even element");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    // Derived keys are not shipped: the masters are.
    let gk = d
        .masters
        .derive(&GaloisSteps::new().step(1))
        .expect("derive");
    assert!(gk.to_bytes().is_err());
}

#[test]
fn master_keys_round_trip_and_bad_bytes_are_refused() {
    let d = derivable();
    let bytes = d.masters.to_bytes().expect("serialize");
    assert_eq!(bytes.len() as u64, d.masters.serialized_len().expect("len"));
    assert!((bytes.len() as u64) < d.masters.size_bytes());
    let back = MasterKeys::from_bytes(&d.ctx, &bytes).expect("deserialize");
    assert_eq!(back.elements(), d.masters.elements());
    // Keys derived from the masters read back rotate as the originals' do.
    let mut r = rng(72);
    let slots = random_poly(&mut r, N as usize);
    let gk = back.derive(&GaloisSteps::new().step(19)).expect("derive");
    let ct = encrypt_at_derivation_level(d, &slots);
    let rotated = ct.rotated_rows(19, &gk).expect("rotate");
    let got = d.enc.decode(&d.sk.decrypt_poly(&rotated).expect("decrypt"));
    assert_eq!(got, plain_rotate_rows(&slots, 19));

    for cut in [0, 10, 16, 24, 100, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            MasterKeys::from_bytes(&d.ctx, &bytes[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(MasterKeys::from_bytes(&d.ctx, &trailing).is_err());
    // Another object's bytes, and the masters read into another context.
    let gk_bytes = GaloisKeys::generate(&d.sk, &GaloisSteps::new().step(1))
        .expect("keys")
        .to_bytes()
        .expect("bytes");
    assert!(MasterKeys::from_bytes(&d.ctx, &gk_bytes).is_err());
    assert!(matches!(
        MasterKeys::from_bytes(&fixture().ctx, &bytes),
        Err(Error::Mismatch(_))
    ));
    // A residue at or above its prime, in the last key row.
    let mut bad = bytes.clone();
    let at = bad.len() - 8;
    bad[at..].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(MasterKeys::from_bytes(&d.ctx, &bad).is_err());
}

#[test]
fn a_derivable_context_round_trips() {
    let d = derivable();
    let bytes = d.ctx.to_bytes().expect("serialize");
    let back = Context::from_bytes_allow_insecure(&bytes).expect("deserialize");
    assert_eq!(back.derivation_level(), d.ctx.derivation_level());
    assert_eq!(back.num_ctxt_primes(), d.ctx.num_ctxt_primes());
}
