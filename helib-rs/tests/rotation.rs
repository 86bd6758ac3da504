//! Galois keys and slot rotations: encrypted rotations and row swaps equal the plain
//! permutation of the two slot rows, hoisted rotations equal single ones, long chains stay
//! exact, and missing or foreign keys are refused with errors in user terms.

mod common;

use std::sync::OnceLock;

use common::*;
use helib_rs::{BatchEncoder, Ctxt, Error, GaloisKeys, GaloisSteps, SecKey};

/// Slots per row at the test ring degree.
const HALF: i64 = N as i64 / 2;

/// Steps with keys in the shared key set (`-1` and `HALF - 1` share one key).
const KEYED_STEPS: [i64; 7] = [1, 2, 3, 5, -1, -3, HALF - 1];

/// Galois keys for `KEYED_STEPS` and the row swap, made once per test binary.
fn keys() -> &'static GaloisKeys {
    static KEYS: OnceLock<GaloisKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let steps = GaloisSteps::new().steps(KEYED_STEPS).row_swap();
        GaloisKeys::generate(&fixture().sk, &steps).expect("Galois keys")
    })
}

fn encoder() -> &'static BatchEncoder<F> {
    static ENC: OnceLock<BatchEncoder<F>> = OnceLock::new();
    ENC.get_or_init(|| BatchEncoder::for_context(&fixture().ctx).expect("encoder"))
}

fn random_slots(seed: u64) -> Vec<F> {
    random_poly(&mut rng(seed), N as usize)
}

fn encrypt_slots(v: &[F]) -> Ctxt {
    let coeffs = encoder().encode(v).expect("encode");
    fixture().pk.encrypt_poly(&coeffs).expect("encrypt")
}

fn decrypt_slots(sk: &SecKey, ct: &Ctxt) -> Vec<F> {
    encoder().decode(&sk.decrypt_poly::<F>(ct).expect("decrypt"))
}

fn plain_swap(v: &[F]) -> Vec<F> {
    let half = v.len() / 2;
    v[half..].iter().chain(&v[..half]).copied().collect()
}

fn assert_slots(ct: &Ctxt, expected: &[F], what: &str) {
    assert_decrypts_to_slots(&fixture().sk, encoder(), ct, expected, what);
}

#[test]
fn rotations_equal_plain_row_rotations() {
    let v = random_slots(1);
    let ct = encrypt_slots(&v);
    for k in [1, 2, 5, -1, -3, HALF - 1, 0] {
        let rotated = ct.rotated_rows(k, keys()).expect("rotated_rows");
        assert_slots(
            &rotated,
            &plain_rotate_rows(&v, k),
            &format!("rotated_rows({k})"),
        );
        assert_eq!(rotated.level(), ct.level(), "a rotation keeps the level");

        let mut in_place = ct.clone();
        in_place.rotate_rows(k, keys()).expect("rotate_rows");
        assert_slots(
            &in_place,
            &plain_rotate_rows(&v, k),
            &format!("rotate_rows({k})"),
        );
    }
    // The source of the non-mutating rotations is untouched.
    assert_slots(&ct, &v, "original");
}

#[test]
fn keys_generated_on_one_thread_and_in_parallel_agree() {
    let steps = GaloisSteps::new().steps([1, -2, 3]).row_swap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| GaloisKeys::generate(&fixture().sk, &steps).expect("Galois keys"))
    };
    let (serial, parallel) = (on(1), on(3));
    assert_eq!(serial.elements(), parallel.elements());
    assert_eq!(serial.size_bytes(), parallel.size_bytes());
    let v = random_slots(8);
    let ct = encrypt_slots(&v);
    for keys in [&serial, &parallel] {
        for k in [1, -2, 3] {
            let rotated = ct.rotated_rows(k, keys).expect("rotated_rows");
            assert_slots(
                &rotated,
                &plain_rotate_rows(&v, k),
                &format!("rotated_rows({k})"),
            );
        }
        let mut swapped = ct.clone();
        swapped.swap_rows(keys).expect("swap_rows");
        assert_slots(&swapped, &plain_swap(&v), "swap_rows");
    }
}

#[test]
fn steps_are_reduced_modulo_the_row_size() {
    let v = random_slots(2);
    let ct = encrypt_slots(&v);
    // 1 + HALF, 2 - 3 * HALF, -3 - HALF: the same rotations as 1, 2 and -3.
    for k in [1 + HALF, 2 - 3 * HALF, -3 - HALF, HALF, -HALF] {
        let rotated = ct.rotated_rows(k, keys()).expect("reduced step has a key");
        assert_slots(
            &rotated,
            &plain_rotate_rows(&v, k),
            &format!("rotation by {k}"),
        );
    }
}

#[test]
fn rotations_compose() {
    let v = random_slots(3);
    let ct = encrypt_slots(&v);

    let mut two_then_three = ct.clone();
    two_then_three.rotate_rows(2, keys()).expect("rotate 2");
    two_then_three.rotate_rows(3, keys()).expect("rotate 3");
    let five = ct.rotated_rows(5, keys()).expect("rotate 5");
    assert_slots(&two_then_three, &plain_rotate_rows(&v, 5), "2 then 3");
    assert_slots(&five, &plain_rotate_rows(&v, 5), "5");
    assert_eq!(
        decrypt_slots(&fixture().sk, &two_then_three),
        decrypt_slots(&fixture().sk, &five),
        "rotate 2 then 3 == rotate 5"
    );

    // Left then right by the same amount is the identity.
    let mut there_and_back = ct.clone();
    there_and_back.rotate_rows(3, keys()).expect("rotate 3");
    there_and_back.rotate_rows(-3, keys()).expect("rotate -3");
    assert_slots(&there_and_back, &v, "3 then -3");

    // HALF - 1 twice is -2.
    let mut twice = ct.clone();
    twice.rotate_rows(HALF - 1, keys()).expect("rotate");
    twice.rotate_rows(HALF - 1, keys()).expect("rotate");
    assert_slots(&twice, &plain_rotate_rows(&v, -2), "(HALF - 1) twice");
}

#[test]
fn swap_rows_swaps_the_rows() {
    let v = random_slots(4);
    let ct = encrypt_slots(&v);

    let mut swapped = ct.clone();
    swapped.swap_rows(keys()).expect("swap");
    assert_slots(&swapped, &plain_swap(&v), "swap");

    swapped.swap_rows(keys()).expect("swap again");
    assert_slots(&swapped, &v, "swap twice");

    // Swapping commutes with rotating.
    let mut swap_then_rotate = ct.clone();
    swap_then_rotate.swap_rows(keys()).expect("swap");
    swap_then_rotate.rotate_rows(5, keys()).expect("rotate");
    let mut rotate_then_swap = ct.clone();
    rotate_then_swap.rotate_rows(5, keys()).expect("rotate");
    rotate_then_swap.swap_rows(keys()).expect("swap");
    let expected = plain_swap(&plain_rotate_rows(&v, 5));
    assert_slots(&swap_then_rotate, &expected, "swap then rotate");
    assert_slots(&rotate_then_swap, &expected, "rotate then swap");
}

#[test]
fn hoisted_rotations_equal_single_rotations() {
    let v = random_slots(5);
    let ct = encrypt_slots(&v);
    let info_before = ct.info();
    // Including 0 (a copy) and a duplicate.
    let steps = [1, 2, 3, 5, -1, -3, HALF - 1, 0, 2];
    let hoisted = ct.rotate_rows_many(&steps, keys()).expect("hoisted");
    assert_eq!(hoisted.len(), steps.len());
    for (&k, h) in steps.iter().zip(&hoisted) {
        let single = ct.rotated_rows(k, keys()).expect("single");
        let what = format!("hoisted rotation by {k}");
        assert_slots(h, &plain_rotate_rows(&v, k), &what);
        assert_eq!(
            decrypt_slots(&fixture().sk, h),
            decrypt_slots(&fixture().sk, &single),
            "{what}: same plaintext as the single rotation"
        );
        assert_eq!(
            h.info(),
            single.info(),
            "{what}: same level and noise figures"
        );
    }
    assert_eq!(ct.info(), info_before, "the source is untouched");
    assert_slots(&ct, &v, "source after hoisting");

    assert!(ct
        .rotate_rows_many(&[], keys())
        .expect("no steps")
        .is_empty());
}

/// Rotations shared by the pool's threads equal single ones: in pools of 1, 2 and 3 threads
/// (the key-switching rows cut into as many parts), at the top level and below, and a row swap.
#[test]
fn parallel_rotations_equal_single_rotations() {
    let v = random_slots(8);
    let mut low = encrypt_slots(&v);
    low.mod_switch_to(low.level() / 2).expect("mod switch");
    for ct in [encrypt_slots(&v), low] {
        let steps = [1, -3, HALF - 1, 2];
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let (rotated, swapped) = pool.install(|| {
                (
                    ct.rotated_rows_parallel(&steps, keys()).expect("parallel"),
                    ct.swapped_rows_parallel(keys()).expect("parallel swap"),
                )
            });
            assert_eq!(rotated.len(), steps.len());
            for (&k, r) in steps.iter().zip(&rotated) {
                let single = ct.rotated_rows(k, keys()).expect("single");
                let what = format!(
                    "rotation by {k} on {threads} threads at level {}",
                    ct.level()
                );
                assert_slots(r, &plain_rotate_rows(&v, k), &what);
                assert_eq!(
                    r.info(),
                    single.info(),
                    "{what}: same level and noise figures"
                );
            }
            assert_slots(&swapped, &plain_swap(&v), "parallel row swap");
        }
    }
    let ct = encrypt_slots(&v);
    assert!(matches!(
        ct.rotated_rows_parallel(&[4], keys()),
        Err(Error::MissingKey(_))
    ));
    assert!(matches!(
        ct.rotated_rows_parallel(&[0], keys()),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ct.rotated_rows_parallel(&[], keys()),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn hoisted_rotations_work_after_multiplication_and_at_lower_levels() {
    let a = random_slots(6);
    let b = random_slots(7);
    let product = (&encrypt_slots(&a) * &encrypt_slots(&b)).expect("mul");
    let plain: Vec<F> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    let rotated = product.rotate_rows_many(&[1, -3], keys()).expect("hoisted");
    assert_slots(
        &rotated[0],
        &plain_rotate_rows(&plain, 1),
        "product rotated by 1",
    );
    assert_slots(
        &rotated[1],
        &plain_rotate_rows(&plain, -3),
        "product rotated by -3",
    );
    assert_eq!(rotated[0].level(), product.level());

    // A level with a ~450-bit modulus: room for a fresh message, far below the top.
    let ctx = &fixture().ctx;
    let bits_per_prime = ctx.log2_q() / f64::from(ctx.num_ctxt_primes());
    let level = (450.0 / bits_per_prime).ceil() as u32;
    assert!(level < ctx.num_ctxt_primes());
    let mut low = encrypt_slots(&a);
    low.mod_switch_to(level).expect("mod switch");
    low.rotate_rows(5, keys()).expect("rotate at a low level");
    low.swap_rows(keys()).expect("swap at a low level");
    assert_eq!(low.level(), level);
    assert!(low.noise_budget() > 0.0, "{:?}", low.info());
    assert_slots(&low, &plain_swap(&plain_rotate_rows(&a, 5)), "low level");
}

/// One digit of more than 32 primes: the basis conversions of key switching then sum more terms
/// than the vector kernel takes in one pass (it splits them), for the digit's lift and for the
/// mod-down (as many special primes). Relinearization, a rotation and a hoisted batch stay exact.
#[test]
fn a_digit_of_more_than_32_primes_switches_keys_exactly() {
    let ctx = helib_rs::Context::builder()
        .ring_degree(N)
        .plaintext_field::<F>()
        .ciphertext_bits(1800)
        .ks_digits(1)
        .allow_insecure(true)
        .build()
        .expect("one-digit context");
    assert_eq!(ctx.ks_digits(), 1);
    assert!(ctx.num_ctxt_primes() > 32, "{ctx:?}");
    assert!(ctx.num_special_primes() > 32, "{ctx:?}");
    let sk = SecKey::generate(&ctx).expect("secret key");
    let pk = helib_rs::PubKey::generate(&sk).expect("public key");
    let enc = BatchEncoder::<F>::for_context(&ctx).expect("encoder");
    let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps([1, -2])).expect("Galois keys");
    let (a, b) = (random_slots(40), random_slots(41));
    let encrypt = |v: &[F]| {
        pk.encrypt_poly(&enc.encode(v).expect("encode"))
            .expect("encrypt")
    };
    let decrypt = |ct: &Ctxt| enc.decode(&sk.decrypt_poly::<F>(ct).expect("decrypt"));

    let product = (&encrypt(&a) * &encrypt(&b)).expect("mul");
    let plain: Vec<F> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    assert_eq!(decrypt(&product), plain, "relinearized product");
    let rotated = product.rotated_rows(1, &gk).expect("rotate");
    assert_eq!(
        decrypt(&rotated),
        plain_rotate_rows(&plain, 1),
        "rotation by 1"
    );
    let hoisted = product.rotate_rows_many(&[1, -2], &gk).expect("hoisted");
    assert_eq!(
        decrypt(&hoisted[0]),
        plain_rotate_rows(&plain, 1),
        "hoisted by 1"
    );
    assert_eq!(
        decrypt(&hoisted[1]),
        plain_rotate_rows(&plain, -2),
        "hoisted by -2"
    );
    assert_noise_within_bound(&sk, &hoisted[1], "hoisted by -2");
}

#[test]
fn a_chain_of_40_rotations_stays_exact() {
    let v = random_slots(8);
    let mut ct = encrypt_slots(&v);
    let fresh_budget = ct.noise_budget();
    let mut total: i64 = 0;
    let mut previous_budget = fresh_budget;
    for i in 0..40 {
        let k = KEYED_STEPS[i % KEYED_STEPS.len()];
        ct.rotate_rows(k, keys()).expect("rotate");
        total += k;
        assert!(ct.noise_budget() > 0.0, "step {i}: budget used up");
        assert!(
            ct.noise_budget() <= previous_budget,
            "step {i}: the tracked budget never grows"
        );
        previous_budget = ct.noise_budget();
        assert_noise_within_bound(&fixture().sk, &ct, &format!("after {} rotations", i + 1));
    }
    assert_slots(&ct, &plain_rotate_rows(&v, total), "40 rotations");
    eprintln!(
        "budget fresh {fresh_budget:.2}, after 40 rotations {:.2}",
        ct.noise_budget()
    );
    // Key-switching noise adds up: 40 of them cost a few bits, not hundreds.
    let spent = fresh_budget - ct.noise_budget();
    assert!(
        spent < 16.0,
        "40 rotations cost {spent:.1} bits of budget (fresh {fresh_budget:.1})"
    );
}

#[test]
fn apply_galois_is_the_plaintext_substitution() {
    let fx = fixture();
    let m = 2 * N;
    let elements = [3, 5, 243, m - 1, m - 9, 1];
    let gk = GaloisKeys::generate_for_elements(&fx.sk, &elements).expect("keys");
    assert_eq!(
        gk.elements(),
        &[3, 5, 243, m - 9, m - 1],
        "sorted, without 1"
    );
    let poly = random_poly(&mut rng(9), N as usize);
    let ct = fx.pk.encrypt_poly(&poly).expect("encrypt");
    for g in elements {
        let mut mapped = ct.clone();
        mapped.apply_galois(g, &gk).expect("apply_galois");
        assert_decrypts_to(
            &fx.sk,
            &mapped,
            &encoder().apply_galois(&poly, g),
            &format!("X -> X^{g}"),
        );
    }
    // Elements and steps are two names for the same keys.
    assert!(gk.has_step(1) && gk.has_step(5) && gk.has_row_swap());
    let mut by_step = ct.clone();
    by_step
        .rotate_rows(5, &gk)
        .expect("243 = 3^5 is the rotation by 5");
    assert_decrypts_to(
        &fx.sk,
        &by_step,
        &encoder().apply_galois(&poly, 243),
        "step 5",
    );
}

#[test]
fn invalid_elements_are_invalid_arguments() {
    let fx = fixture();
    for g in [0, 4, 2 * N, 2 * N + 1, u64::MAX] {
        let err = GaloisKeys::generate_for_elements(&fx.sk, &[3, g]).expect_err("invalid");
        assert!(matches!(err, Error::InvalidArgument(_)), "g = {g}: {err:?}");
        assert!(message(&err).contains(&g.to_string()), "{err}");

        let mut ct = fx.pk.encrypt_const(F::from(1u64)).expect("encrypt");
        let err = ct.apply_galois(g, keys()).expect_err("invalid");
        assert!(matches!(err, Error::InvalidArgument(_)), "g = {g}: {err:?}");
    }
}

#[test]
fn a_missing_key_is_named_by_its_step() {
    let fx = fixture();
    let gk = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1)).expect("keys");
    let v = random_slots(10);
    let mut ct = encrypt_slots(&v);
    let info = ct.info();

    let err = ct.rotate_rows(5, &gk).expect_err("no key for 5");
    assert!(matches!(err, Error::MissingKey(_)), "{err:?}");
    let text = message(&err);
    assert!(text.contains("rotation by 5"), "{text}");
    assert!(text.contains("element 243"), "{text}");
    assert!(text.contains("step(5)"), "says how to get the key: {text}");

    let err = ct.rotated_rows(-3, &gk).expect_err("no key for -3");
    let text = message(&err);
    assert!(matches!(err, Error::MissingKey(_)), "{err:?}");
    assert!(text.contains("rotation by -3"), "{text}");
    assert!(text.contains("left by 1021"), "{text}");

    let err = ct
        .rotate_rows_many(&[1, 0, 2, 7], &gk)
        .expect_err("no key for 2");
    let text = message(&err);
    assert!(matches!(err, Error::MissingKey(_)), "{err:?}");
    assert!(
        text.contains("rotation by 2 "),
        "names the first missing step: {text}"
    );

    let err = ct.swap_rows(&gk).expect_err("no row-swap key");
    assert!(matches!(err, Error::MissingKey(_)), "{err:?}");
    assert!(message(&err).contains("row swap"), "{err}");

    let err = ct.apply_galois(9, &gk).expect_err("no key for 9");
    assert!(matches!(err, Error::MissingKey(_)), "{err:?}");
    let text = message(&err);
    assert!(
        text.contains("element 9") && text.contains("rotation by 2"),
        "{text}"
    );

    let err = ct.apply_galois(2 * N - 3, &gk).expect_err("no key");
    assert!(
        message(&err).contains("row swap combined with row rotation by 1"),
        "{err}"
    );

    // Nothing happened to the ciphertext, and the keys that exist still work.
    assert_eq!(ct.info(), info);
    assert_slots(&ct, &v, "after refused rotations");
    ct.rotate_rows(1, &gk).expect("key for 1");
    ct.rotate_rows(0, &gk).expect("step 0 needs no key");
    assert_slots(&ct, &plain_rotate_rows(&v, 1), "rotation by 1");
}

#[test]
fn keys_of_another_secret_key_or_context_are_refused() {
    let fx = fixture();
    let other_key = SecKey::generate(&fx.ctx).expect("key");
    let other = new_fixture(600);
    let steps = GaloisSteps::new().steps([0, 1]).row_swap();
    let foreign = [
        GaloisKeys::generate(&other_key, &steps).expect("same context, other key"),
        GaloisKeys::generate(&other.sk, &steps).expect("other context"),
    ];
    let v = random_slots(11);
    let mut ct = encrypt_slots(&v);
    for gk in &foreign {
        let what = format!("{gk:?}");
        let errors = [
            ct.rotate_rows(1, gk).map(|_| ()),
            ct.rotate_rows(0, gk).map(|_| ()),
            ct.rotated_rows(1, gk).map(|_| ()),
            ct.rotate_rows_many(&[1], gk).map(|_| ()),
            ct.swap_rows(gk),
            ct.apply_galois(3, gk),
            ct.apply_galois(1, gk),
        ];
        for (i, result) in errors.into_iter().enumerate() {
            assert!(
                matches!(result, Err(Error::Mismatch(_))),
                "call {i} with {what}: {result:?}"
            );
        }
        assert!(!gk.belongs_to(&fx.sk));
    }
    assert!(foreign[0].belongs_to(&other_key));
    assert!(foreign[1].belongs_to(&other.sk));
    assert!(keys().belongs_to(&fx.sk));
    assert_slots(&ct, &v, "after refused rotations");

    // The foreign keys work with their own ciphertexts.
    let mut theirs = other.pk.encrypt_const(F::from(3u64)).expect("encrypt");
    theirs.rotate_rows(1, &foreign[1]).expect("own keys");
    assert_eq!(
        other.sk.decrypt_const::<F>(&theirs).expect("decrypt"),
        F::from(3u64),
        "a constant is invariant under rotation"
    );
}

#[test]
fn keys_exist_only_for_the_requested_steps() {
    let fx = fixture();
    let gk = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().steps([1, 4, -2])).expect("keys");
    for k in [1, 4, -2, HALF - 2, 1 + HALF, 0, HALF] {
        assert!(gk.has_step(k), "step {k} has a key");
    }
    for k in [2, 3, 5, -1, -4, HALF - 1, 100] {
        assert!(!gk.has_step(k), "step {k} has no key");
    }
    assert!(!gk.has_row_swap());
    assert_eq!(gk.elements().len(), 3);
    assert!(gk.elements().windows(2).all(|w| w[0] < w[1]));

    // Duplicates and equivalent steps share one key; 0 needs none.
    let one = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1)).expect("keys");
    let same =
        GaloisKeys::generate(&fx.sk, &GaloisSteps::new().steps([1, 1, 1 - HALF, 0])).expect("keys");
    assert_eq!(same.elements(), one.elements());
    assert_eq!(same.size_bytes(), one.size_bytes());

    let empty = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(0)).expect("keys");
    assert!(empty.elements().is_empty());
    assert!(empty.has_step(0) && !empty.has_step(1));
    assert!(empty.size_bytes() < one.size_bytes());

    // Memory grows with the number of keys, about linearly.
    let two = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().steps([1, 2])).expect("keys");
    let four = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().steps([1, 2, 3]).row_swap())
        .expect("keys");
    assert!(one.size_bytes() < two.size_bytes() && two.size_bytes() < four.size_bytes());
    let per_key = (four.size_bytes() - two.size_bytes()) as f64 / 2.0;
    let first = (one.size_bytes() - empty.size_bytes()) as f64;
    assert!(
        (per_key / first - 1.0).abs() < 0.01,
        "each key costs the same: {first} vs {per_key} bytes"
    );
    assert_eq!(four.elements().len(), 4);
    assert!(four.has_row_swap());
}

#[test]
fn keys_outlive_the_context_and_secret_key_handles() {
    let gk = {
        let fx = new_fixture(400);
        GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1)).expect("keys")
        // `fx` (context, secret and public key) dropped here
    };
    assert!(gk.has_step(1));
    assert_eq!(gk.context().ring_degree(), N as usize);
    drop(gk);
}

#[test]
fn galois_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<GaloisKeys>();
    assert_send_sync::<GaloisSteps>();
}

#[test]
fn concurrent_rotations_with_shared_keys() {
    let v = random_slots(12);
    let shared = encrypt_slots(&v);
    let gk = keys();
    std::thread::scope(|s| {
        let workers: Vec<_> = [(1i64, -3i64), (2, 5)]
            .into_iter()
            .map(|(k1, k2)| {
                let (shared, v) = (&shared, &v);
                s.spawn(move || {
                    for _ in 0..3 {
                        let mut mine = shared.rotated_rows(k1, gk).expect("rotate");
                        mine.rotate_rows(k2, gk).expect("rotate");
                        assert_slots(&mine, &plain_rotate_rows(v, k1 + k2), "worker");
                        let many = shared.rotate_rows_many(&[k1, k2], gk).expect("hoisted");
                        assert_slots(&many[1], &plain_rotate_rows(v, k2), "worker hoisted");
                    }
                    shared.rotated_rows(k1, gk).expect("rotate")
                })
            })
            .collect();
        let results: Vec<Ctxt> = workers
            .into_iter()
            .map(|w| w.join().expect("worker thread"))
            .collect();
        assert_slots(&results[0], &plain_rotate_rows(&v, 1), "from thread 0");
        assert_slots(&results[1], &plain_rotate_rows(&v, 2), "from thread 1");
    });
}
