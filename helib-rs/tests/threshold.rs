//! A secret key shared by three parties: the joint keys encrypt and rotate as one owner's
//! do, the parties' decryption shares give the plaintext or additive shares of it, and every
//! mistake in what the parties send is a clear error.

use ark_bn254::Fr;
use ark_ff::PrimeField;
use helib_rs::threshold::{
    contribution, CommonRandomString, DecryptionShare, KeyShare, RelinShare,
};
use helib_rs::{BatchEncoder, Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

const PARTIES: u32 = 3;

fn context(parties: u32, bits: u32) -> Context {
    Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(bits)
        .parties(parties)
        .allow_insecure(true) // the toy ring
        .build()
        .unwrap()
}

fn crs() -> CommonRandomString {
    let contributions: Vec<[u8; 32]> = (0..PARTIES).map(|_| contribution().unwrap()).collect();
    CommonRandomString::agree(&contributions)
}

fn parties(ctx: &Context, crs: &CommonRandomString) -> Vec<KeyShare> {
    (0..PARTIES)
        .map(|_| KeyShare::generate(ctx, crs).unwrap())
        .collect()
}

fn joint_public_key(parties: &[KeyShare]) -> PubKey {
    let shares: Vec<PubKey> = parties
        .iter()
        .map(|p| p.public_key_share().unwrap())
        .collect();
    PubKey::combine(&shares).unwrap()
}

fn values(n: usize, seed: u64) -> Vec<Fr> {
    (0..n as u64).map(|i| Fr::from(i * i + seed)).collect()
}

#[test]
fn the_joint_keys_encrypt_rotate_and_decrypt_together() {
    let ctx = context(PARTIES, 700);
    assert_eq!(ctx.parties(), PARTIES);
    let crs = crs();
    let parties = parties(&ctx, &crs);
    let pk = joint_public_key(&parties);
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let x = values(enc.slot_count(), 5);
    let mut ct = pk.encrypt_slots(&enc, &x).unwrap();

    // Unmasked: the plaintext, whoever combines.
    let shares: Vec<DecryptionShare> = parties
        .iter()
        .map(|p| p.decryption_share(&ct, 40).unwrap())
        .collect();
    assert_eq!(
        enc.decode(&ct.combine_decryption::<Fr>(&shares).unwrap()),
        x
    );

    // The joint Galois keys rotate under the joint key.
    let steps = GaloisSteps::new().step(1).step(5);
    let gk_shares: Vec<GaloisKeys> = parties
        .iter()
        .map(|p| p.galois_key_share(&steps).unwrap())
        .collect();
    let gk = GaloisKeys::combine(&gk_shares).unwrap();
    assert!(gk.matches(&pk));
    ct.rotate_rows(5, &gk).unwrap();
    let shares: Vec<DecryptionShare> = parties
        .iter()
        .map(|p| p.decryption_share(&ct, 64).unwrap())
        .collect();
    let rotated = enc.decode(&ct.combine_decryption::<Fr>(&shares).unwrap());
    let row = enc.row_size();
    for i in 0..row {
        assert_eq!(rotated[i], x[(i + 5) % row], "slot {i}");
        assert_eq!(rotated[row + i], x[row + (i + 5) % row], "slot {}", row + i);
    }
}

#[test]
fn masked_shares_sum_to_the_plaintext_and_each_looks_uniform() {
    let ctx = context(PARTIES, 700);
    let parties = parties(&ctx, &crs());
    let pk = joint_public_key(&parties);
    // The zero plaintext: any pattern in a share would be the share's own.
    let ct = pk.encrypt_poly(&[Fr::from(0u64)]).unwrap();
    let mut decryption = Vec::new();
    let mut masks: Vec<Vec<Fr>> = Vec::new();
    for p in &parties {
        let (d, m) = p.masked_decryption_share::<Fr>(&ct, 40).unwrap();
        assert!(d.is_masked());
        decryption.push(d);
        masks.push(m);
    }
    let rest = ct.combine_decryption::<Fr>(&decryption).unwrap();
    let n = ctx.ring_degree();
    // Switched down (its plaintext factor no longer 1), a ciphertext of 5 still decrypts to
    // shares that sum to 5.
    let mut five = pk.encrypt_poly(&[Fr::from(5u64)]).unwrap();
    five.compact_for_decryption(helib_rs::threshold::decryption_margin_bits(&ctx, 40))
        .unwrap();
    assert!(five.level() < ctx.num_ctxt_primes());
    let (mut sum, mut shares5) = (vec![Fr::from(0u64); n], Vec::new());
    for p in &parties {
        let (d, m) = p.masked_decryption_share::<Fr>(&five, 40).unwrap();
        shares5.push(d);
        for (s, v) in sum.iter_mut().zip(m) {
            *s += v;
        }
    }
    for (s, v) in sum
        .iter_mut()
        .zip(five.combine_decryption::<Fr>(&shares5).unwrap())
    {
        *s += v;
    }
    assert_eq!(sum[0], Fr::from(5u64));
    assert!(sum[1..].iter().all(|v| *v == Fr::from(0u64)));
    for k in 0..n {
        let sum: Fr = masks.iter().map(|m| m[k]).sum::<Fr>() + rest[k];
        assert_eq!(sum, Fr::from(0u64), "coefficient {k}");
    }
    // Each share alone, and what the combination leaves: the top four bits of each of the
    // N = 2048 coefficients fall evenly in 16 buckets (128 expected; a uniform share leaves
    // one outside 64..192 with probability far below 2^-40).
    for (name, v) in masks
        .iter()
        .map(|m| ("a party's share", m))
        .chain([("the combined rest", &rest)])
    {
        let mut buckets = [0usize; 16];
        for x in v {
            buckets[top_four_bits(x)] += 1;
        }
        assert!(
            buckets.iter().all(|&b| (64..=192).contains(&b)),
            "{name}: {buckets:?}"
        );
    }
}

/// `16 x / p`, rounded down.
fn top_four_bits(x: &Fr) -> usize {
    let approx = |limbs: &[u64]| {
        limbs
            .iter()
            .rev()
            .fold(0f64, |acc, &l| acc * 18446744073709551616.0 + l as f64)
    };
    let ratio = approx(x.into_bigint().as_ref()) / approx(Fr::MODULUS.as_ref());
    ((ratio * 16.0) as usize).min(15)
}

#[test]
fn what_the_parties_send_is_checked() {
    let ctx = context(PARTIES, 700);
    let crs = crs();
    let parties = parties(&ctx, &crs);
    let pk = joint_public_key(&parties);
    let ct = pk.encrypt_poly(&[Fr::from(3u64)]).unwrap();
    let other = pk.encrypt_poly(&[Fr::from(4u64)]).unwrap();
    let shares: Vec<DecryptionShare> = parties
        .iter()
        .map(|p| p.decryption_share(&ct, 40).unwrap())
        .collect();
    let combine = |s: Vec<&DecryptionShare>, c: &Ctxt| {
        let owned: Vec<DecryptionShare> = s
            .iter()
            .map(|d| DecryptionShare::from_bytes(&ctx, &d.to_bytes().unwrap()).unwrap())
            .collect();
        c.combine_decryption::<Fr>(&owned)
    };
    let message = |r: helib_rs::Result<Vec<Fr>>| match r {
        Err(e) => e.to_string(),
        Ok(_) => panic!("combined what it should have refused"),
    };
    // Each share is drawn afresh: the same party's two shares of one ciphertext differ.
    let again = parties[0].decryption_share(&ct, 40).unwrap();
    assert_ne!(again.to_bytes().unwrap(), shares[0].to_bytes().unwrap());
    assert_eq!(again.party(), shares[0].party());
    // Through bytes, in any order: the plaintext.
    let m = combine(vec![&shares[2], &shares[0], &shares[1]], &ct).unwrap();
    assert_eq!(m[0], Fr::from(3u64));
    // A party missing, a party twice, shares of another ciphertext.
    assert!(
        message(combine(vec![&shares[0], &shares[1]], &ct)).contains("3 decryption shares, got 2")
    );
    assert!(message(combine(vec![&shares[0], &shares[1], &shares[1]], &ct)).contains("same party"));
    assert!(
        message(combine(vec![&shares[0], &shares[1], &shares[2]], &other))
            .contains("another ciphertext")
    );
    // Malformed bytes.
    let bytes = shares[0].to_bytes().unwrap();
    assert!(DecryptionShare::from_bytes(&ctx, &bytes[..bytes.len() - 1]).is_err());
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] = 0xff; // a residue above its prime
    assert!(DecryptionShare::from_bytes(&ctx, &flipped).is_err());
    // Joint keys: a share of another common string, a share twice, one missing.
    let stranger = KeyShare::generate(&ctx, &CommonRandomString([9; 32])).unwrap();
    let pks: Vec<PubKey> = parties
        .iter()
        .map(|p| p.public_key_share().unwrap())
        .collect();
    let foreign = vec![
        pks[0].clone(),
        pks[1].clone(),
        stranger.public_key_share().unwrap(),
    ];
    assert!(matches!(PubKey::combine(&foreign), Err(Error::Mismatch(_))));
    let twice = vec![pks[0].clone(), pks[1].clone(), pks[1].clone()];
    assert!(matches!(
        PubKey::combine(&twice),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        PubKey::combine(&pks[..2]),
        Err(Error::InvalidArgument(_))
    ));
    // Key shares only combine: they neither encrypt nor rotate, and read back only as shares.
    let pk_share = parties[0].public_key_share().unwrap();
    assert!(pk_share.encrypt_poly(&[Fr::from(1u64)]).is_err());
    let pk_share_bytes = pk_share.to_bytes_without_relinearization().unwrap();
    assert!(PubKey::from_bytes(&ctx, &pk_share_bytes).is_err());
    let joint_bytes = pk.to_bytes_without_relinearization().unwrap();
    assert!(PubKey::share_from_bytes(&ctx, &joint_bytes).is_err());
    let read: Vec<PubKey> = pks
        .iter()
        .map(|p| {
            PubKey::share_from_bytes(&ctx, &p.to_bytes_without_relinearization().unwrap()).unwrap()
        })
        .collect();
    let again = PubKey::combine(&read).unwrap();
    assert!(matches!(
        PubKey::combine(&[again.clone(), pks[1].clone(), pks[2].clone()]),
        Err(Error::InvalidArgument(_))
    ));
    let steps = GaloisSteps::new().step(1);
    let gk_share = parties[0].galois_key_share(&steps).unwrap();
    let gk_share_bytes = gk_share.to_bytes().unwrap();
    assert!(GaloisKeys::from_bytes(&ctx, &gk_share_bytes).is_err());
    let gk_back = GaloisKeys::share_from_bytes(&ctx, &gk_share_bytes).unwrap();
    let mut rotated = again.encrypt_poly(&[Fr::from(1u64)]).unwrap();
    assert!(rotated.rotate_rows(1, &gk_back).is_err());
    // A share alone neither decrypts nor stands for a whole key; smudging below 40 bits is
    // refused.
    assert!(SecKey::generate(&ctx).is_err());
    let share_bytes = parties[0].to_bytes().unwrap();
    assert!(SecKey::from_bytes(&ctx, &share_bytes).is_err());
    let back = KeyShare::from_bytes(&ctx, &share_bytes).unwrap();
    assert_eq!(back.party(), parties[0].party());
    assert!(parties[0].decryption_share(&ct, 39).is_err());
}

#[test]
fn a_modulus_without_room_for_the_smudging_is_refused() {
    // About the fresh noise and little more: no room for 40 bits of smudging.
    let ctx = context(2, 300);
    let crs = CommonRandomString([1; 32]);
    let a = KeyShare::generate(&ctx, &crs).unwrap();
    let b = KeyShare::generate(&ctx, &crs).unwrap();
    let pk =
        PubKey::combine(&[a.public_key_share().unwrap(), b.public_key_share().unwrap()]).unwrap();
    let ct = pk.encrypt_poly(&[Fr::from(1u64)]).unwrap();
    match a.decryption_share(&ct, 40) {
        Err(Error::NoiseBudgetExhausted(m)) => assert!(m.contains("smudging"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_context_names_its_parties_in_its_bytes() {
    let three = context(3, 700);
    let one = context(1, 700);
    assert_ne!(three.to_bytes().unwrap(), one.to_bytes().unwrap());
    let back = Context::from_bytes_allow_insecure(&three.to_bytes().unwrap()).unwrap();
    assert_eq!(back.parties(), 3);
    assert!(Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(700)
        .parties(65)
        .allow_insecure(true)
        .build()
        .is_err());
}

/// A round's sum, read back as it would arrive from whoever relays the messages.
fn sum1_copy(ctx: &Context, sum: &RelinShare) -> RelinShare {
    RelinShare::from_bytes(ctx, &sum.to_bytes().unwrap()).unwrap()
}

/// The two rounds of the joint relinearization key, through bytes: a product of two
/// ciphertexts under the joint key decrypts (jointly) to the slot-wise product.
#[test]
fn the_joint_relinearization_key_multiplies() {
    let ctx = context(PARTIES, 900);
    let parties = parties(&ctx, &crs());
    let through_bytes =
        |s: &RelinShare| RelinShare::from_bytes(&ctx, &s.to_bytes().unwrap()).unwrap();
    let (round1, secrets): (Vec<RelinShare>, Vec<_>) =
        parties.iter().map(|p| p.relin_round1().unwrap()).unzip();
    assert!(round1.iter().all(|r| r.round() == 1 && r.party() != 0));
    let round1: Vec<RelinShare> = round1.iter().map(through_bytes).collect();
    let sum1 = RelinShare::combine(&round1).unwrap();
    assert_eq!((sum1.round(), sum1.party()), (1, 0));
    // A party answers every party's round-1 message, never a sum someone made up (one with
    // h1 = 0 and h0 = 1 would get its key share back), nor messages without its own.
    let (stranger1, _) = parties[0].relin_round1().unwrap();
    let (mut secrets, last) = {
        let mut s = secrets;
        let last = s.pop().unwrap();
        (s, last)
    };
    let made_up = [sum1_copy(&ctx, &sum1)];
    let other_two = [
        through_bytes(&round1[0]),
        through_bytes(&round1[1]),
        stranger1,
    ];
    for refused in [&made_up[..], &other_two[..]] {
        let (_, fresh) = parties[2].relin_round1().unwrap();
        assert!(matches!(
            parties[2].relin_round2(fresh, refused),
            Err(Error::InvalidArgument(_))
        ));
    }
    secrets.push(last);
    let round2: Vec<RelinShare> = parties
        .iter()
        .zip(secrets)
        .map(|(p, s)| through_bytes(&p.relin_round2(s, &round1).unwrap()))
        .collect();
    let sum2 = RelinShare::combine(&round2).unwrap();
    let pk = joint_public_key(&parties)
        .with_joint_relinearization(&sum1, &sum2)
        .unwrap();
    // The key with its relinearization key survives bytes.
    let pk = PubKey::from_bytes(&ctx, &pk.to_bytes().unwrap()).unwrap();

    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let (x, y) = (values(enc.slot_count(), 1), values(enc.slot_count(), 2));
    let mut ct = pk.encrypt_slots(&enc, &x).unwrap();
    ct.mul_assign(&pk.encrypt_slots(&enc, &y).unwrap()).unwrap();
    let shares: Vec<DecryptionShare> = parties
        .iter()
        .map(|p| p.decryption_share(&ct, 40).unwrap())
        .collect();
    let product = enc.decode(&ct.combine_decryption::<Fr>(&shares).unwrap());
    let expected: Vec<Fr> = x.iter().zip(&y).map(|(a, b)| *a * b).collect();
    assert_eq!(product, expected);

    // Mixed-up rounds are refused: a round-2 sum in place of round 1, round-2 answers to
    // another round-1 sum, one party's message twice.
    assert!(pk.with_joint_relinearization(&sum2, &sum1).is_err());
    let (other1, other_secrets): (Vec<RelinShare>, Vec<_>) =
        parties.iter().map(|p| p.relin_round1().unwrap()).unzip();
    let other2: Vec<RelinShare> = parties
        .iter()
        .zip(other_secrets)
        .map(|(p, s)| p.relin_round2(s, &other1).unwrap())
        .collect();
    let other_sum2 = RelinShare::combine(&other2).unwrap();
    assert!(matches!(
        joint_public_key(&parties).with_joint_relinearization(&sum1, &other_sum2),
        Err(Error::Mismatch(_))
    ));
    let twice = vec![
        through_bytes(&round1[0]),
        through_bytes(&round1[0]),
        through_bytes(&round1[1]),
    ];
    assert!(matches!(
        RelinShare::combine(&twice),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn joint_master_keys_derive_the_joint_galois_keys() {
    use helib_rs::MasterKeys;
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(700)
        .derivable_keys(true)
        .parties(PARTIES)
        .allow_insecure(true) // the toy ring
        .build()
        .unwrap();
    let parties = parties(&ctx, &crs());
    let pk = joint_public_key(&parties);
    let masters = MasterKeys::default_steps(&ctx);
    // Each party's share travels as bytes of a kind of its own.
    let bytes: Vec<Vec<u8>> = parties
        .iter()
        .map(|p| p.master_key_share(&masters).unwrap().to_bytes().unwrap())
        .collect();
    assert!(
        MasterKeys::from_bytes(&ctx, &bytes[0]).is_err(),
        "a share is no master key set"
    );
    let read = |i: usize| MasterKeys::share_from_bytes(&ctx, &bytes[i]).unwrap();
    let shares: Vec<MasterKeys> = (0..bytes.len()).map(read).collect();
    assert!(matches!(
        shares[0].derive(&GaloisSteps::new().step(1)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        MasterKeys::combine(&shares[..2]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(
        MasterKeys::combine(&[read(0), read(0), read(1)]).is_err(),
        "a share given twice"
    );
    let joint = MasterKeys::combine(&shares).unwrap();
    let joint = MasterKeys::from_bytes(&ctx, &joint.to_bytes().unwrap()).unwrap();

    // Rotations by steps no master has, derived from the joint masters.
    let gk = joint.derive(&GaloisSteps::new().step(3).step(6)).unwrap();
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let x = values(enc.slot_count(), 9);
    let mut ct = pk.encrypt_slots(&enc, &x).unwrap();
    ct.rotate_rows(3, &gk).unwrap();
    ct.rotate_rows(6, &gk).unwrap();
    let d: Vec<DecryptionShare> = parties
        .iter()
        .map(|p| p.decryption_share(&ct, 40).unwrap())
        .collect();
    let rotated = enc.decode(&ct.combine_decryption::<Fr>(&d).unwrap());
    let row = enc.row_size();
    for i in 0..row {
        assert_eq!(rotated[i], x[(i + 9) % row], "slot {i}");
    }
}
