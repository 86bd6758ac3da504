//! Chaining transforms: outputs are marked with their layout, and a transform refuses marked
//! inputs laid out for another one (order, row flavour or size) instead of computing a wrong
//! value. Matching chains still work, and ciphertexts read from bytes (unmarked) are taken.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::Error;
use he_fft::{Direction, EncryptedTransform, FftOptions, OneProductFft, Transposed, TwoStageFft};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey, SecKey};

mod common;
use common::{random_vector, N};

fn keys() -> (Context, SecKey, PubKey) {
    let ctx = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(2 * he_fft::TwoStageFft::<Fr>::ciphertext_bits(N, 64) + 100)
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    (ctx, sk, pk)
}

fn expect_layout_error(result: he_fft::Result<Vec<Ctxt>>, what: &str) {
    match result {
        Err(e @ Error::Layout { .. }) => {
            assert!(
                e.to_string().contains("laid out for another"),
                "{what}: {e}"
            )
        }
        other => panic!("{what}: expected a layout error, got {other:?}"),
    }
}

#[test]
fn wrong_chains_are_refused_and_right_ones_work() {
    let (ctx, sk, pk) = keys();
    let n = 64;
    let h = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let fft = TwoStageFft::on_domain(&ctx, &h, Direction::Forward, &FftOptions::default()).unwrap();
    let mut chained = FftOptions::default();
    chained.plan.half_rotated_input = fft.output_layout().is_half_rotated();
    // Reads natural order: the forward FFT's transposed output is not for it.
    let natural =
        TwoStageFft::with_order(&ctx, &h, Direction::Inverse, Transposed::Output, &chained)
            .unwrap();
    let right =
        TwoStageFft::with_order(&ctx, &h, Direction::Inverse, Transposed::Input, &chained).unwrap();
    // The other row flavour.
    let flavour = TwoStageFft::with_order(
        &ctx,
        &h,
        Direction::Inverse,
        Transposed::Input,
        &FftOptions::default(),
    )
    .unwrap();
    let one =
        OneProductFft::<Fr>::new(&ctx, n, Direction::Inverse, &FftOptions::default()).unwrap();
    let steps = [
        fft.galois_steps(),
        natural.galois_steps(),
        right.galois_steps(),
        flavour.galois_steps(),
        one.galois_steps(),
    ]
    .iter()
    .fold(helib_rs::GaloisSteps::new(), |acc, s| acc.union(s));
    let gk = GaloisKeys::generate(&sk, &steps).unwrap();

    let x = random_vector(n, 1);
    let y = fft.apply(&gk, &fft.encrypt(&pk, &x).unwrap()).unwrap();
    assert_ne!(y[0].layout_tag(), 0, "outputs are marked");
    if fft.output_layout().is_half_rotated() {
        expect_layout_error(flavour.apply(&gk, &y), "row flavour");
    }
    expect_layout_error(natural.apply(&gk, &y), "order");
    expect_layout_error(one.apply(&gk, &y), "one-product iFFT after a two-stage FFT");
    // A vector of another size.
    let small = TwoStageFft::on_domain(
        &ctx,
        &Radix2EvaluationDomain::<Fr>::new(16).unwrap(),
        Direction::Forward,
        &FftOptions::default(),
    )
    .unwrap();
    let gk16 = GaloisKeys::generate(&sk, &small.galois_steps()).unwrap();
    expect_layout_error(small.apply(&gk16, &y), "size");

    // The matching chain gives the input back.
    let back = right.apply(&gk, &y).unwrap();
    assert_eq!(right.decrypt(&sk, &back).unwrap(), x);

    // Read from bytes, a ciphertext carries no mark and is taken as it is.
    let read = Ctxt::from_bytes(&pk, &y[0].to_bytes().unwrap()).unwrap();
    assert_eq!(read.layout_tag(), 0);
    let back = right.apply(&gk, &[read]).unwrap();
    assert_eq!(right.decrypt(&sk, &back).unwrap(), x);
}
