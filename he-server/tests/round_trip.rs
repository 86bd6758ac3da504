//! Jobs against a real server on loopback: an FFT and a Groth16 proof whose witness map runs
//! remotely, compared with arkworks.

mod common;

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{values, Owner, Server, ALICE};
use he_client::remote_witness_session;
use he_fft::protocol::Ring;
use he_groth16::{CubicChain, EncryptedReduction};

#[test]
fn an_fft_round_trip_equals_ark_and_the_key_set_is_stored_once() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    assert_eq!(client.health().unwrap()["status"], "ok");
    let n = 256;
    let owner = Owner::fft(n);
    let id = client.upload_key_set(&owner.parts()).unwrap();
    assert_eq!(id, owner.parts().id());
    let sent = client.transfer().upload_bytes;
    assert_eq!(sent, owner.parts().len());
    // Asked first: the second upload sends nothing.
    assert_eq!(client.upload_key_set(&owner.parts()).unwrap(), id);
    assert_eq!(client.transfer().upload_bytes, sent);

    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    for seed in [1, 2] {
        let x = values(n, seed);
        let (outputs, status) = client
            .run(&id, &owner.inputs(&x), &owner.ctx, owner.outputs())
            .unwrap();
        assert_eq!(status.state, "done");
        assert_eq!(status.outputs, Some(outputs.len() as u64));
        assert_eq!(owner.decrypt(&outputs), domain.fft(&x), "seed {seed}");
    }
}

#[test]
fn a_groth16_proof_with_the_witness_map_on_the_server_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let mut rng = StdRng::seed_from_u64(7);
    let circuit = CubicChain::<Fr>::random(60, &mut rng);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let (session, setup) =
        remote_witness_session::<Fr>(server.client(ALICE), circuit.domain_size(), Ring::Toy)
            .unwrap();
    assert!(setup.key_set_bytes > 0);
    let session = Arc::new(session);
    for _ in 0..2 {
        let proof = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap()
        };
        assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
    }
    let report = session.report();
    assert_eq!(report.calls, 2);
    assert!(report.download_bytes > 0);
}
