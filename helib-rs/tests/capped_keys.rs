//! Galois keys made for the lower levels only: they rotate exactly like full keys at those
//! levels, are smaller in memory and on the wire, refuse ciphertexts above their level with
//! `Error::Level`, survive serialization, and bad level words in the bytes are refused.

mod common;

use std::sync::OnceLock;

use common::*;
use helib_rs::{BatchEncoder, Ctxt, Error, GaloisKeys, GaloisSteps};

/// The level capped keys serve in these tests: a few primes below the top.
const CAP: u32 = 8;

struct Keys {
    fx: Fixture,
    enc: BatchEncoder<F>,
    /// Rotation by 1 for every level, by 3 and the row swap up to CAP.
    mixed: GaloisKeys,
    full: GaloisKeys,
}

fn keys() -> &'static Keys {
    static K: OnceLock<Keys> = OnceLock::new();
    K.get_or_init(|| {
        let fx = new_fixture(900);
        assert!(
            fx.ctx.num_ctxt_primes() > CAP + 4,
            "the toy chain is long enough"
        );
        let enc = BatchEncoder::for_context(&fx.ctx).expect("encoder");
        let mixed =
            GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1).step_up_to_level(3, CAP))
                .expect("capped keys");
        let full = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().steps([1, 3])).expect("keys");
        Keys {
            fx,
            enc,
            mixed,
            full,
        }
    })
}

fn slots() -> Vec<F> {
    (0..N).map(|i| F::from(i * i + 7)).collect()
}

/// The slots rotated left by `k` within each row of N/2.
fn rotated(x: &[F], k: usize) -> Vec<F> {
    let half = x.len() / 2;
    (0..x.len())
        .map(|j| {
            let (row, col) = (j / half, j % half);
            x[row * half + (col + k) % half]
        })
        .collect()
}

fn encrypt(k: &Keys, x: &[F]) -> Ctxt {
    k.fx.pk
        .encrypt_poly(&k.enc.encode(x).expect("encode"))
        .expect("encrypt")
}

#[test]
fn a_capped_key_rotates_exactly_at_its_levels() {
    let k = keys();
    let x = slots();
    let mut ct = encrypt(k, &x);
    ct.mod_switch_to(CAP).expect("switch down");
    ct.rotate_rows(3, &k.mixed).expect("rotation at the cap");
    assert_eq!(
        k.fx.sk.decrypt_slots(&k.enc, &ct).expect("decrypt"),
        rotated(&x, 3)
    );
    let mut low = encrypt(k, &x);
    low.mod_switch_to(CAP - 2).expect("switch down");
    let many = low.rotate_rows_many(&[3, 1], &k.mixed).expect("hoisted");
    assert_eq!(
        k.fx.sk.decrypt_slots(&k.enc, &many[0]).expect("decrypt"),
        rotated(&x, 3)
    );
    assert_eq!(
        k.fx.sk.decrypt_slots(&k.enc, &many[1]).expect("decrypt"),
        rotated(&x, 1)
    );
}

#[test]
fn above_its_level_a_capped_key_is_a_level_error() {
    let k = keys();
    let x = slots();
    let mut ct = encrypt(k, &x);
    assert!(ct.level() > CAP);
    let err = ct.rotate_rows(3, &k.mixed).unwrap_err();
    assert!(
        matches!(&err, Error::Level(m) if m.contains(&format!("levels up to {CAP}"))),
        "{err}"
    );
    // Nothing changed, and the full key still works at the top.
    assert_eq!(k.fx.sk.decrypt_slots(&k.enc, &ct).expect("decrypt"), x);
    assert!(matches!(
        ct.rotate_rows_many(&[1, 3], &k.mixed),
        Err(Error::Level(_))
    ));
    ct.rotate_rows(1, &k.mixed).expect("the uncapped key");
    assert_eq!(
        k.fx.sk.decrypt_slots(&k.enc, &ct).expect("decrypt"),
        rotated(&x, 1)
    );
}

#[test]
fn capped_keys_are_smaller_and_report_their_levels() {
    let k = keys();
    assert!(k.mixed.size_bytes() < k.full.size_bytes());
    assert_eq!(k.mixed.max_level(), Some(CAP));
    assert_eq!(k.mixed.max_level_for(&GaloisSteps::new().step(1)), None);
    assert_eq!(
        k.mixed.max_level_for(&GaloisSteps::new().steps([1, 3])),
        Some(CAP)
    );
    assert_eq!(k.full.max_level(), None);
    let bytes_mixed = k.mixed.to_bytes().expect("bytes").len();
    let bytes_full = k.full.to_bytes().expect("bytes").len();
    assert!(bytes_mixed < bytes_full, "{bytes_mixed} vs {bytes_full}");
    // Asked twice, a step's key serves the most levels asked.
    let twice = GaloisKeys::generate(
        &k.fx.sk,
        &GaloisSteps::new()
            .step_up_to_level(3, CAP)
            .step_up_to_level(3, CAP + 2),
    )
    .expect("keys");
    assert_eq!(twice.max_level(), Some(CAP + 2));
    let uncapped = GaloisKeys::generate(
        &k.fx.sk,
        &GaloisSteps::new().step_up_to_level(3, CAP).step(3),
    )
    .expect("keys");
    assert_eq!(uncapped.max_level(), None);
    // A cap at the top is no cap.
    let top = k.fx.ctx.num_ctxt_primes();
    let at_top =
        GaloisKeys::generate(&k.fx.sk, &GaloisSteps::new().step_up_to_level(3, top)).expect("keys");
    assert_eq!(at_top.max_level(), None);
}

#[test]
fn levels_outside_the_chain_are_refused() {
    let k = keys();
    let top = k.fx.ctx.num_ctxt_primes();
    for level in [0, top + 1] {
        let err = GaloisKeys::generate(&k.fx.sk, &GaloisSteps::new().step_up_to_level(1, level))
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{level}: {err}");
    }
}

#[test]
fn capped_keys_survive_serialization() {
    let k = keys();
    let bytes = k.mixed.to_bytes().expect("bytes");
    let back = GaloisKeys::from_bytes(&k.fx.ctx, &bytes).expect("read back");
    assert_eq!(back.elements(), k.mixed.elements());
    assert_eq!(back.max_level(), Some(CAP));
    assert_eq!(back.size_bytes(), k.mixed.size_bytes());
    assert_eq!(back.to_bytes().expect("bytes again"), bytes);
    let x = slots();
    let mut ct = encrypt(k, &x);
    ct.mod_switch_to(CAP).expect("switch down");
    ct.rotate_rows(3, &back).expect("rotation");
    assert_eq!(
        k.fx.sk.decrypt_slots(&k.enc, &ct).expect("decrypt"),
        rotated(&x, 3)
    );
}

/// Offset of the first key's element word: header (16), secret id (8), key count (4).
const FIRST_ELEMENT: usize = 28;

fn with_levels_word(bytes: &[u8], levels: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut word = [0u8; 8];
    word.copy_from_slice(&out[FIRST_ELEMENT..FIRST_ELEMENT + 8]);
    let g = u64::from_le_bytes(word) & ((1 << 48) - 1);
    out[FIRST_ELEMENT..FIRST_ELEMENT + 8].copy_from_slice(&(g | levels << 48).to_le_bytes());
    out
}

#[test]
fn bad_level_words_are_refused() {
    let k = keys();
    let full = k.full.to_bytes().expect("bytes");
    let top = u64::from(k.fx.ctx.num_ctxt_primes());
    // A full key's rows announced as a capped key's, a cap at or above the top, and a cap
    // beyond any chain: each refused as corrupt data, never read past or trusted.
    for levels in [1, u64::from(CAP), top, top + 1, 0xffff] {
        let err = GaloisKeys::from_bytes(&k.fx.ctx, &with_levels_word(&full, levels)).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.starts_with("corrupt data")),
            "{levels}: {err}"
        );
    }
}
