//! Random sequences of operations: whatever the engine returns must be right. A decryption
//! either equals the plain computation or is refused with NoiseBudgetExhausted, and while the
//! budget is positive the measured noise stays below the tracked bound.

mod common;

use ark_std::rand::Rng;
use common::*;
use helib_rs::{Ctxt, Error};

/// Applies one random operation to `ct` and the same operation to `plain`.
/// Returns the operation's name and the engine's verdict.
fn random_step(
    rng: &mut ark_std::rand::rngs::StdRng,
    ct: &mut Ctxt,
    plain: &mut Vec<F>,
) -> (&'static str, Result<(), Error>) {
    let fx = fixture();
    let n = fx.ctx.ring_degree();
    match rng.gen_range(0..11) {
        0 => {
            let b = random_poly(rng, n);
            let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
            *plain = add(plain, &b);
            ("add", ct.add_assign(&cb))
        }
        1 => {
            let b = random_poly(rng, n);
            let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
            *plain = sub(plain, &b);
            ("sub", ct.sub_assign(&cb))
        }
        2 => {
            *plain = plain.iter().map(|x| -*x).collect();
            ("neg", ct.neg_assign())
        }
        3 => {
            let k = random_elem(rng);
            plain[0] += k;
            ("add_const", ct.add_const(k))
        }
        4 => {
            let k = random_elem(rng);
            *plain = scale(plain, k);
            ("mul_const", ct.mul_const(k))
        }
        5 => {
            // Small constants cost few bits: exercises the engine's norm tracking.
            let k = F::from(rng.gen_range(0u64..1000));
            *plain = scale(plain, k);
            ("mul_const_small", ct.mul_const(k))
        }
        6 => {
            let len = rng.gen_range(0..=n);
            let b = random_poly(rng, len);
            *plain = add(plain, &padded(&b, n));
            ("add_poly", ct.add_poly(&b))
        }
        7 => {
            let len = rng.gen_range(1..=n);
            let b = random_poly(rng, len);
            *plain = negacyclic_mul(plain, &b, n);
            ("mul_poly", ct.mul_poly(&b))
        }
        8 => {
            let b = random_poly(rng, n);
            let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
            *plain = negacyclic_mul(plain, &b, n);
            ("mul", ct.mul_assign(&cb))
        }
        9 => {
            *plain = negacyclic_mul(plain, plain, n);
            ("square", ct.square())
        }
        _ => ("mod_switch_down", ct.mod_switch_down()),
    }
}

#[test]
fn random_circuits_never_decrypt_wrongly() {
    let fx = fixture();
    let n = fx.ctx.ring_degree();
    let mut rng = rng(80);
    let (mut decrypted, mut refused) = (0, 0);
    for circuit in 0..24 {
        let a = random_poly(&mut rng, n);
        let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
        let mut plain = a;
        let mut trace = Vec::new();
        for _ in 0..8 {
            let (name, verdict) = random_step(&mut rng, &mut ct, &mut plain);
            trace.push(name);
            if let Err(e) = verdict {
                assert!(
                    matches!(e, Error::NoiseBudgetExhausted(_) | Error::Level(_)),
                    "circuit {circuit} {trace:?}: {e:?}"
                );
                break;
            }
            let info = ct.info();
            if info.noise_budget > 0.0 {
                let measured = fx.sk.measure_noise(&ct).expect("measure");
                assert!(
                    measured <= info.log2_noise_bound,
                    "circuit {circuit} {trace:?}: measured 2^{measured:.1} > bound {info:?}"
                );
            }
            match fx.sk.decrypt_poly::<F>(&ct) {
                Ok(got) => {
                    decrypted += 1;
                    assert!(
                        info.noise_budget > 0.0,
                        "circuit {circuit} {trace:?}: {info:?}"
                    );
                    if let Some(i) = (0..n).find(|&i| got[i] != plain[i]) {
                        panic!("circuit {circuit} {trace:?}: WRONG coefficient {i} ({info:?})");
                    }
                }
                Err(e) => {
                    refused += 1;
                    assert!(
                        matches!(e, Error::NoiseBudgetExhausted(_)),
                        "circuit {circuit} {trace:?}: {e:?}"
                    );
                    assert!(
                        info.noise_budget < 2.0,
                        "circuit {circuit} {trace:?}: refused with budget left {info:?}"
                    );
                    break;
                }
            }
        }
    }
    assert!(decrypted > 24, "most steps decrypt ({decrypted})");
    assert!(refused > 0, "some circuits run out of budget");
}
