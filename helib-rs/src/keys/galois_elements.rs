//! Slot rotations: [`GaloisSteps`](crate::GaloisSteps) (which rotations a computation needs), [`GaloisKeys`](crate::GaloisKeys) (the
//! key-switching keys for exactly those) and the rotation methods of [`Ctxt`](crate::Ctxt).
//!
//! With the [`BatchEncoder`](crate::BatchEncoder) slot layout a plaintext holds two rows of
//! `N/2` slots. The automorphism `X -> X^g` of the ring permutes the slots: `g = 3^k mod 2N`
//! rotates both rows left by `k`, `g = 2N - 1` swaps the rows, and `g = 1` is the identity.
//! On a ciphertext the automorphism must be followed by a key switch back to the secret key,
//! which needs one Galois key per element `g`; keys are large (a few tens of MiB each at
//! `N = 32768`), so only the requested ones are generated.

use crate::context::Context;
use crate::error::Error;
use crate::keys::GaloisKeys;

/// Rewrites a `MissingKey` from the engine in user terms (the Rust-side checks make this a
/// fallback: it means the engine and this crate disagree on which keys exist).
pub(crate) fn engine_missing_key(e: Error, describe: impl FnOnce() -> String) -> Error {
    match e {
        Error::MissingKey(engine) => Error::MissingKey(format!("{} ({engine})", describe())),
        other => other,
    }
}

/// A list of Galois elements from an engine query `fill(out, out_len, needed)`: first the
/// count (a null buffer), then the elements.
pub(crate) fn query_elements(
    fill: impl Fn(*mut u64, usize, &mut usize) -> helib_bindings::helib_status,
) -> crate::error::Result<Vec<u64>> {
    let mut needed = 0usize;
    crate::error::check(fill(std::ptr::null_mut(), 0, &mut needed))?;
    let mut out = vec![0; needed];
    crate::error::check(fill(out.as_mut_ptr(), needed, &mut needed))?;
    out.truncate(needed);
    Ok(out)
}

/// `N / 2`, the length of a slot row.
pub(crate) fn row_size(ctx: &Context) -> u64 {
    ctx.ring_degree() as u64 / 2
}

/// `k` reduced to a left rotation in `0..N/2`.
pub(crate) fn normalized_step(ctx: &Context, k: i64) -> u64 {
    i128::from(k).rem_euclid(i128::from(row_size(ctx))) as u64
}

/// The Galois element `3^k mod 2N` of a left rotation by `k` (1 when `k = 0 mod N/2`).
pub(crate) fn rotation_element(ctx: &Context, k: i64) -> u64 {
    rotation_element_of_degree(ctx.ring_degree(), k)
}

/// The Galois element `2N - 1` that swaps the rows.
pub(crate) fn row_swap_element(ctx: &Context) -> u64 {
    row_swap_element_of_degree(ctx.ring_degree())
}

/// [`rotation_element`] for ring degree `n`, for the encoders, which have no context.
pub(crate) fn rotation_element_of_degree(n: usize, k: i64) -> u64 {
    let row = (n / 2).max(1) as i128;
    pow_mod(3, i128::from(k).rem_euclid(row) as u64, 2 * n as u64)
}

/// [`row_swap_element`] for ring degree `n`.
pub(crate) fn row_swap_element_of_degree(n: usize) -> u64 {
    2 * n as u64 - 1
}

/// `base^exp mod modulus`, without overflow for any `u64` modulus.
pub(crate) fn pow_mod(base: u64, mut exp: u64, modulus: u64) -> u64 {
    let m = u128::from(modulus);
    let mut b = u128::from(base) % m;
    let mut acc = 1 % m;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc * b % m;
        }
        b = b * b % m;
        exp >>= 1;
    }
    acc as u64
}

pub(crate) fn valid_element(ctx: &Context, g: u64) -> bool {
    g % 2 == 1 && g < 2 * ctx.ring_degree() as u64
}

pub(crate) fn invalid_element_message(ctx: &Context, g: u64) -> String {
    format!(
        "Galois element {g} must be odd and below 2N = {}",
        2 * ctx.ring_degree() as u64
    )
}

pub(crate) fn missing_step_message(gk: &GaloisKeys, k: i64) -> String {
    let ctx = gk.context();
    let left = normalized_step(ctx, k);
    let g = rotation_element(ctx, k);
    let same = if i128::from(k) == i128::from(left) {
        String::new()
    } else {
        format!(", i.e. left by {left}")
    };
    format!(
        "no Galois key for row rotation by {k} (element {g}{same}); generate the keys with \
         GaloisSteps::new().step({k}), or any step equal to it modulo N/2 = {}",
        row_size(ctx)
    )
}

/// What a valid element does to the slots: `3^k` rotates left by `k`, `-3^k` also swaps the
/// rows (every odd residue mod 2N is one of these). Linear in `N`; for error messages only.
pub(crate) fn describe_element(ctx: &Context, g: u64) -> String {
    let m = 2 * ctx.ring_degree() as u64;
    let mut power = 1u64;
    for k in 0..row_size(ctx) {
        if power == g {
            return format!("row rotation by {k}");
        }
        if m - power == g {
            return if k == 0 {
                "the row swap".to_string()
            } else {
                format!("row swap combined with row rotation by {k}")
            };
        }
        power = power * 3 % m;
    }
    "not a slot permutation".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context::builder()
            .ring_degree(2048)
            .plaintext_field::<ark_bn254::Fr>()
            .ciphertext_bits(400)
            .allow_insecure(true)
            .build()
            .expect("toy context")
    }

    #[test]
    fn steps_map_to_powers_of_three() {
        let ctx = ctx();
        assert_eq!(rotation_element(&ctx, 0), 1);
        assert_eq!(rotation_element(&ctx, 1), 3);
        assert_eq!(rotation_element(&ctx, 5), 243);
        assert_eq!(rotation_element(&ctx, 1024), 1);
        assert_eq!(rotation_element(&ctx, -1), rotation_element(&ctx, 1023));
        assert_eq!(rotation_element(&ctx, i64::MIN), 1); // -2^63 = 0 mod 1024
        assert_eq!(normalized_step(&ctx, -3), 1021);
        assert_eq!(row_swap_element(&ctx), 4095);
    }

    #[test]
    fn elements_are_described_in_slot_terms() {
        let ctx = ctx();
        assert_eq!(describe_element(&ctx, 243), "row rotation by 5");
        assert_eq!(describe_element(&ctx, 4095), "the row swap");
        assert_eq!(
            describe_element(&ctx, 4096 - 9),
            "row swap combined with row rotation by 2"
        );
        assert_eq!(describe_element(&ctx, 1), "row rotation by 0");
    }
}
