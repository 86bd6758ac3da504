//! Three parties sharing one secret key use the server as one owner does: they upload the
//! joint keys, send ciphertexts under the joint public key, and decrypt what comes back to
//! additive shares; the shares sum to arkworks' FFT and to the plain witness map's quotient.

mod common;

use ark_bn254::Fr;
use ark_ff::Zero;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{values, Server, ALICE};
use he_fft::protocol::{Job, KeyKind, KeySetParts, Request};
use he_fft::{DiagonalCache, EncryptedTransform};
use helib_rs::threshold::{CommonRandomString, DecryptionShare, KeyShare, RelinShare};
use helib_rs::{Context, Ctxt, GaloisKeys, MasterKeys, PubKey};

const PARTIES: u32 = 3;

/// The parties' key shares, the joint public key (with its relinearization key when
/// `relinearize`) and the bytes of the joint Galois keys for `transform`, or of the joint
/// master keys when `master`.
fn joint_keys(
    ctx: &Context,
    transform: &dyn EncryptedTransform<Fr>,
    relinearize: bool,
    master: bool,
) -> (Vec<KeyShare>, PubKey, Vec<u8>) {
    let crs = CommonRandomString::agree(&[[7; 32], [8; 32], [9; 32]]);
    let keys: Vec<KeyShare> = (0..PARTIES)
        .map(|_| KeyShare::generate(ctx, &crs).unwrap())
        .collect();
    let shares: Vec<PubKey> = keys.iter().map(|k| k.public_key_share().unwrap()).collect();
    let mut pk = PubKey::combine(&shares).unwrap();
    if relinearize {
        let (round1, secrets): (Vec<RelinShare>, Vec<_>) =
            keys.iter().map(|k| k.relin_round1().unwrap()).unzip();
        let sum1 = RelinShare::combine(&round1).unwrap();
        let round2: Vec<RelinShare> = keys
            .iter()
            .zip(secrets)
            .map(|(k, s)| k.relin_round2(s, &round1).unwrap())
            .collect();
        pk = pk
            .with_joint_relinearization(&sum1, &RelinShare::combine(&round2).unwrap())
            .unwrap();
    }
    let steps = transform.galois_steps();
    let galois = if master {
        let defaults = MasterKeys::default_steps(ctx);
        let shares: Vec<MasterKeys> = keys
            .iter()
            .map(|k| k.master_key_share(&defaults).unwrap())
            .collect();
        MasterKeys::combine(&shares).unwrap().to_bytes().unwrap()
    } else if steps.max_keys() == 0 {
        Vec::new()
    } else {
        let shares: Vec<GaloisKeys> = keys
            .iter()
            .map(|k| k.galois_key_share(&steps).unwrap())
            .collect();
        GaloisKeys::combine(&shares).unwrap().to_bytes().unwrap()
    };
    (keys, pk, galois)
}

/// Every party's decoded share of the result, plus the decoded rest, summed.
fn decrypt_to_shares(
    keys: &[KeyShare],
    transform: &dyn EncryptedTransform<Fr>,
    pk: &PubKey,
    outputs: &[Vec<u8>],
) -> Vec<Fr> {
    let mut party_polys: Vec<Vec<Vec<Fr>>> = vec![Vec::new(); keys.len()];
    let mut rest = Vec::new();
    for bytes in outputs {
        let ct = Ctxt::from_bytes(pk, bytes).unwrap();
        ct.check_factor(transform.result_computation()).unwrap();
        let mut shares: Vec<DecryptionShare> = Vec::new();
        for (k, polys) in keys.iter().zip(party_polys.iter_mut()) {
            let (share, mask) = k.masked_decryption_share::<Fr>(&ct, 40).unwrap();
            shares.push(share);
            polys.push(mask);
        }
        rest.push(ct.combine_decryption::<Fr>(&shares).unwrap());
    }
    let mut sum = transform.decode(&rest).unwrap();
    for polys in &party_polys {
        for (s, v) in sum.iter_mut().zip(transform.decode(polys).unwrap()) {
            *s += v;
        }
    }
    sum
}

fn run(request: Request, inputs: &[Vec<Fr>], relinearize: bool) -> Vec<Fr> {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    let ctx = request.context::<Fr>().unwrap();
    assert_eq!(ctx.parties(), PARTIES);
    let transform = request.transform::<Fr>(&ctx, DiagonalCache::Never).unwrap();
    let master = request.keys == KeyKind::Master;
    let (keys, pk, galois) = joint_keys(&ctx, transform.as_ref(), relinearize, master);
    let (context_bytes, pk_bytes) = (
        ctx.to_bytes().unwrap(),
        if relinearize {
            pk.to_bytes().unwrap()
        } else {
            pk.to_bytes_without_relinearization().unwrap()
        },
    );
    let parts = KeySetParts {
        request,
        context: &context_bytes,
        public_key: &pk_bytes,
        keys: &galois,
        matrix: &[],
    };
    let id = client.upload_key_set(&parts).unwrap();
    // Each input vector under the joint public key (any party, or each party its share
    // summed by the server: the ciphertexts are the same kind either way).
    let upload: Vec<Vec<u8>> = inputs
        .iter()
        .flat_map(|x| transform.encrypt(&pk, x).unwrap())
        .map(|ct| ct.to_bytes().unwrap())
        .collect();
    let (outputs, _) = client
        .run(&id, &upload, &ctx, transform.info().output_ciphertexts)
        .unwrap();
    decrypt_to_shares(&keys, transform.as_ref(), &pk, &outputs)
}

#[test]
fn three_parties_get_shares_of_an_fft_from_the_server() {
    let n = 256;
    let request = Request {
        chains: Some(1),
        ..Request::forward_fft(n).on_toy_ring().shared_by(PARTIES)
    };
    let x = values(n, 11);
    let y = run(request, std::slice::from_ref(&x), false);
    assert_eq!(y, Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x));
}

#[test]
fn three_parties_get_shares_of_an_fft_from_joint_master_keys() {
    let n = 256;
    let request = Request {
        chains: Some(1),
        keys: KeyKind::Master,
        ..Request::forward_fft(n).on_toy_ring().shared_by(PARTIES)
    };
    let x = values(n, 12);
    let y = run(request, std::slice::from_ref(&x), false);
    assert_eq!(y, Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x));
}

#[test]
fn three_parties_get_shares_of_the_witness_map_from_the_server() {
    let n = 64;
    let request = Request {
        chains: Some(1),
        ..Request::new(Job::WitnessMap, n)
            .on_toy_ring()
            .shared_by(PARTIES)
    };
    let (a, b) = (values(n, 3), values(n, 4));
    let h = run(request, &[a.clone(), b.clone()], true);
    // The plain quotient: with C interpolating a * b, (A B - C) / (X^n - 1) is the top n
    // coefficients of A B.
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let (pa, pb) = (domain.ifft(&a), domain.ifft(&b));
    let mut product = vec![Fr::zero(); 2 * n];
    for (i, u) in pa.iter().enumerate() {
        for (j, v) in pb.iter().enumerate() {
            product[i + j] += *u * v;
        }
    }
    assert_eq!(h, product[n..].to_vec());
}
