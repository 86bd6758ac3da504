//! An FFT under a key shared by three parties: the joint Galois keys run the transform, the
//! parties decrypt the result to additive shares, and each decodes its own share; the shares
//! sum to arkworks' FFT.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{Direction, EncryptedTransform, FftOptions, TwoStageFft};
use helib_rs::threshold::{CommonRandomString, DecryptionShare, KeyShare};
use helib_rs::{Context, GaloisKeys, PubKey};

#[test]
fn parties_decode_their_shares_of_an_fft() {
    let (n, parties) = (256, 3u32);
    // The route's modulus and the room three parties' 40-bit smudging takes (docs/threshold.md).
    let bits = TwoStageFft::<Fr>::ciphertext_bits(2048, n) + 80;
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(bits)
        .parties(parties)
        .allow_insecure(true) // the toy ring
        .build()
        .unwrap();
    let fft = TwoStageFft::<Fr>::new(&ctx, n, Direction::Forward, &FftOptions::default()).unwrap();
    let crs = CommonRandomString::agree(&[[1; 32], [2; 32], [3; 32]]);
    let keys: Vec<KeyShare> = (0..parties)
        .map(|_| KeyShare::generate(&ctx, &crs).unwrap())
        .collect();
    let pk = PubKey::combine(
        &keys
            .iter()
            .map(|k| k.public_key_share().unwrap())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let gk = GaloisKeys::combine(
        &keys
            .iter()
            .map(|k| k.galois_key_share(&fft.galois_steps()).unwrap())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let x: Vec<Fr> = (0..n as u64).map(|i| Fr::from(3 * i + 1)).collect();
    let y = fft.apply(&gk, &fft.encrypt(&pk, &x).unwrap()).unwrap();

    // Per ciphertext, every party's masked share; the combination of them is the rest.
    let mut party_polys: Vec<Vec<Vec<Fr>>> = vec![Vec::new(); keys.len()];
    let mut rest_polys = Vec::new();
    for ct in &y {
        ct.check_factor(fft.result_computation()).unwrap();
        let mut shares: Vec<DecryptionShare> = Vec::new();
        for (k, polys) in keys.iter().zip(party_polys.iter_mut()) {
            let (share, mask) = k.masked_decryption_share::<Fr>(ct, 40).unwrap();
            shares.push(share);
            polys.push(mask);
        }
        rest_polys.push(ct.combine_decryption::<Fr>(&shares).unwrap());
    }
    let mut sum = fft.decode(&rest_polys).unwrap();
    for polys in &party_polys {
        let share = fft.decode(polys).unwrap();
        assert_ne!(share, sum, "a party's share is not the result");
        for (s, v) in sum.iter_mut().zip(share) {
            *s += v;
        }
    }
    assert_eq!(sum, Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x));
}

/// The witness map at `n = 4096` on a secure context for three parties, against one owner's
/// on the same machine: the server's time for both, and each party's steps. Run with
/// `cargo test --release -p he-fft --test threshold -- --ignored --nocapture`.
#[test]
#[ignore = "a secure ring: minutes and gigabytes"]
fn three_parties_witness_map_at_4096_against_one_owner() {
    use he_fft::protocol::{Job, Request};
    use he_fft::DiagonalCache;
    use helib_rs::threshold::RelinShare;
    use helib_rs::SecKey;
    use std::time::Instant;

    let n = 4096;
    let (a, b): (Vec<Fr>, Vec<Fr>) = (
        (0..n as u64).map(|i| Fr::from(i + 1)).collect(),
        (0..n as u64).map(|i| Fr::from(2 * i + 3)).collect(),
    );
    let base = Request {
        chains: Some(2),
        ..Request::new(Job::WitnessMap, n)
    };
    // One owner.
    let ctx1 = base.context::<Fr>().unwrap();
    let map1 = base.transform::<Fr>(&ctx1, DiagonalCache::Never).unwrap();
    let t = Instant::now();
    let sk = SecKey::generate(&ctx1).unwrap();
    let pk1 = PubKey::generate(&sk).unwrap();
    let gk1 = GaloisKeys::generate(&sk, &map1.galois_steps()).unwrap();
    let keygen1 = t.elapsed();
    let x1: Vec<_> = [&a, &b]
        .iter()
        .flat_map(|v| map1.encrypt(&pk1, v).unwrap())
        .collect();
    let t = Instant::now();
    let h1_ct = map1.apply(&gk1, &x1).unwrap();
    let server1 = t.elapsed();
    let h1 = map1.decrypt(&sk, &h1_ct).unwrap();
    drop(h1_ct);

    // Three parties.
    let request = base.shared_by(3);
    let ctx = request.context::<Fr>().unwrap();
    let map = request.transform::<Fr>(&ctx, DiagonalCache::Never).unwrap();
    let crs = CommonRandomString::agree(&[[4; 32], [5; 32], [6; 32]]);
    let t = Instant::now();
    let keys: Vec<KeyShare> = (0..3)
        .map(|_| KeyShare::generate(&ctx, &crs).unwrap())
        .collect();
    let pk_shares: Vec<PubKey> = keys.iter().map(|k| k.public_key_share().unwrap()).collect();
    let steps = map.galois_steps();
    let gk_shares: Vec<GaloisKeys> = keys
        .iter()
        .map(|k| k.galois_key_share(&steps).unwrap())
        .collect();
    let shares_time = t.elapsed() / 3;
    let t = Instant::now();
    let (round1, secrets): (Vec<RelinShare>, Vec<_>) =
        keys.iter().map(|k| k.relin_round1().unwrap()).unzip();
    let sum1 = RelinShare::combine(&round1).unwrap();
    let round2: Vec<RelinShare> = keys
        .iter()
        .zip(secrets)
        .map(|(k, s)| k.relin_round2(s, &round1).unwrap())
        .collect();
    let relin_time = t.elapsed() / 3;
    let round1_bytes = round1[0].to_bytes().unwrap().len();
    let round2_bytes = round2[0].to_bytes().unwrap().len();
    let pk = PubKey::combine(&pk_shares)
        .unwrap()
        .with_joint_relinearization(&sum1, &RelinShare::combine(&round2).unwrap())
        .unwrap();
    let gk = GaloisKeys::combine(&gk_shares).unwrap();
    drop((gk_shares, round1, round2, sum1));
    let x: Vec<_> = [&a, &b]
        .iter()
        .flat_map(|v| map.encrypt(&pk, v).unwrap())
        .collect();
    let t = Instant::now();
    let mut h_ct = map.apply(&gk, &x).unwrap();
    let server = t.elapsed();
    // Both again, now that both have run once: the first run of a process pays for fresh
    // pages, so the second pair is the fair comparison.
    let t = Instant::now();
    drop(map1.apply(&gk1, &x1).unwrap());
    let server1_again = t.elapsed();
    let t = Instant::now();
    drop(map.apply(&gk, &x).unwrap());
    let server_again = t.elapsed();
    drop((gk1, x1));
    for ct in &mut h_ct {
        ct.compact_for_decryption(request.decryption_margin_bits(&ctx))
            .unwrap();
    }
    let t = Instant::now();
    let mut party_polys = vec![Vec::new(); 3];
    let mut rest = Vec::new();
    for ct in &h_ct {
        let mut ds = Vec::new();
        for (k, polys) in keys.iter().zip(party_polys.iter_mut()) {
            let (d, m) = k.masked_decryption_share::<Fr>(ct, 40).unwrap();
            ds.push(d);
            polys.push(m);
        }
        rest.push(ct.combine_decryption::<Fr>(&ds).unwrap());
    }
    let decrypt_time = t.elapsed() / 3;
    let mut h = map.decode(&rest).unwrap();
    for polys in &party_polys {
        for (s, v) in h.iter_mut().zip(map.decode(polys).unwrap()) {
            *s += v;
        }
    }
    assert_eq!(h, h1, "the parties' shares sum to one owner's quotient");
    println!(
        "n = {n}: one owner: log2 Q {:.0}, digits {}, keys {:.2?}, server {:.2?} then {:.2?} | three \
         parties: log2 Q {:.0}, digits {}, server {:.2?} then {:.2?} ({:.2}x, then {:.2}x), per \
         party: key shares {:.2?}, relinearization rounds {:.2?} ({} + {} bytes sent), masked \
         decryption share {:.2?}",
        ctx1.log2_q(),
        ctx1.ks_digits(),
        keygen1,
        server1,
        server1_again,
        ctx.log2_q(),
        ctx.ks_digits(),
        server,
        server_again,
        server.as_secs_f64() / server1.as_secs_f64(),
        server_again.as_secs_f64() / server1_again.as_secs_f64(),
        shares_time,
        relin_time,
        round1_bytes,
        round2_bytes,
        decrypt_time,
    );
}
