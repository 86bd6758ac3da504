//! Jobs against a real server on loopback: an FFT and a Groth16 proof whose witness map runs
//! remotely, compared with arkworks.

mod common;

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_ff::FftField;
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{values, Owner, Server, ALICE};
use he_client::{remote_witness_session, ClientError, RemoteTransform};
use he_fft::protocol::{Domain, Job, KeyKind, Request, Ring};
use he_fft::{Direction, Matrix, Route};
use he_groth16::{CubicChain, EncryptedReduction, WitnessMapRoute};

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

/// Every job the server runs other than the witness map: each FFT route both ways, on the
/// subgroup and the coset, with Galois or master keys, and the coset change.
#[test]
fn every_route_round_trips_against_ark() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    let fft = |direction, route, n, domain, keys| Request {
        domain,
        keys,
        chains: Some(1),
        ..Request::new(Job::Fft { direction, route }, n).on_toy_ring()
    };
    let (fwd, inv) = (Direction::Forward, Direction::Inverse);
    let (h, gh) = (Domain::Subgroup, Domain::Coset);
    let (galois, master) = (KeyKind::Galois, KeyKind::Master);
    let cases = [
        fft(inv, Route::OneProduct, 128, h, master),
        fft(fwd, Route::TwoStages, 1024, gh, galois),
        fft(inv, Route::FourSteps, 4096, gh, galois),
        fft(inv, Route::RowFfts, 4096, h, galois),
        Request {
            chains: Some(1),
            ..Request::new(Job::CosetChange, 256).on_toy_ring()
        },
    ];
    for request in cases {
        let owner = Owner::for_request(request);
        let n = request.size;
        let id = client.upload_key_set(&owner.parts()).unwrap();
        let x = values(n, n as u64);
        let (out, _) = client
            .run(&id, &owner.inputs(&x), &owner.ctx, owner.outputs())
            .unwrap();
        let sub = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let coset = sub.get_coset(Fr::GENERATOR).unwrap();
        let expected = match (request.job, request.domain) {
            (Job::CosetChange, _) => coset.fft(&sub.ifft(&x)),
            (Job::Fft { direction, .. }, domain) => {
                let d = if domain == Domain::Coset { coset } else { sub };
                match direction {
                    Direction::Forward => d.fft(&x),
                    Direction::Inverse => d.ifft(&x),
                }
            }
            (Job::WitnessMap | Job::ClientAssistedWitnessMap | Job::MatrixProduct { .. }, _) => {
                unreachable!()
            }
        };
        assert_eq!(owner.decrypt(&out), expected, "{request}");
    }
}

/// Products by matrices of the owner's choosing, shipped with their key sets: a wide, a
/// tall and a square one, compared with the same product on plaintext values.
#[test]
fn matrix_products_equal_the_plain_product() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    for (rows, columns) in [(3, 5), (40, 7), (64, 64)] {
        let entries: Vec<Vec<Fr>> = (0..rows)
            .map(|r| {
                (0..columns)
                    .map(|c| Fr::from((r * 31 + c * 7 + 1) as u64))
                    .collect()
            })
            .collect();
        let owner = Owner::matrix_product(Matrix::from_rows(entries.clone()).unwrap());
        let id = client.upload_key_set(&owner.parts()).unwrap();
        let x = values(columns, rows as u64);
        let (out, _) = client
            .run(&id, &owner.inputs(&x), &owner.ctx, owner.outputs())
            .unwrap();
        let expected: Vec<Fr> = entries
            .iter()
            .map(|row| row.iter().zip(&x).map(|(m, v)| *m * v).sum())
            .collect();
        assert_eq!(owner.decrypt(&out), expected, "{rows} x {columns}");
    }
}

/// The client's remote form of the transforms: keys made and uploaded once, each result
/// decrypted and checked on the owner's side, equal to arkworks' and the plain product.
#[test]
fn remote_transforms_return_checked_results() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    let n = 256;
    let coset_fft = Request {
        domain: Domain::Coset,
        ..Request::forward_fft(n).on_toy_ring()
    };
    let fft = RemoteTransform::<Fr>::upload(client.clone(), coset_fft, None).unwrap();
    let change = RemoteTransform::<Fr>::upload(
        client.clone(),
        Request::new(Job::CosetChange, n).on_toy_ring(),
        None,
    )
    .unwrap();
    let h = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let gh = h.get_coset(Fr::GENERATOR).unwrap();
    for seed in [3, 4] {
        let x = values(n, seed);
        assert_eq!(fft.apply(&[&x]).unwrap(), gh.fft(&x));
        assert_eq!(change.apply(&[&x]).unwrap(), gh.fft(&h.ifft(&x)));
    }
    let m = Matrix::from_fn_with_shape(6, 10, |r, c| Fr::from((r * 10 + c) as u64)).unwrap();
    let product = RemoteTransform::upload(
        client.clone(),
        Request::matrix_product(6, 10).on_toy_ring(),
        Some(m),
    )
    .unwrap();
    let x = values(10, 5);
    let expected: Vec<Fr> = (0..6u64)
        .map(|r| {
            (0..10u64)
                .map(|c| Fr::from(r * 10 + c) * x[c as usize])
                .sum()
        })
        .collect();
    assert_eq!(product.apply(&[&x]).unwrap(), expected);
    // Misuse is an error before anything is sent.
    let misuse = [
        RemoteTransform::<Fr>::upload(
            client.clone(),
            Request::matrix_product(6, 10).on_toy_ring(),
            None,
        )
        .err(),
        RemoteTransform::<Fr>::upload(
            client.clone(),
            Request::forward_fft(16).on_toy_ring(),
            Some(Matrix::from_fn(16, |_, _| Fr::from(1u64)).unwrap()),
        )
        .err(),
    ];
    for e in misuse {
        assert!(matches!(e, Some(ClientError::Invalid(_))), "{e:?}");
    }
    assert!(product.apply(&[&x[1..]]).is_err());
}

#[test]
fn a_groth16_proof_with_the_witness_map_on_the_server_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let mut rng = StdRng::seed_from_u64(7);
    let circuit = CubicChain::<Fr>::random(60, &mut rng);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    // Both routes: the server interpolating, or the owner (no Galois keys then).
    for route in [WitnessMapRoute::ServerOnly, WitnessMapRoute::ClientAssisted] {
        let (session, setup) = remote_witness_session::<Fr>(
            server.client(ALICE),
            circuit.domain_size(),
            Ring::Toy,
            route,
        )
        .unwrap();
        assert!(setup.key_set_bytes > 0);
        assert_eq!(
            setup.galois_keys == 0,
            route == WitnessMapRoute::ClientAssisted
        );
        let session = Arc::new(session);
        for _ in 0..2 {
            let proof = {
                let _guard = session.enter();
                Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap()
            };
            assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
        }
        let report = session.report();
        assert_eq!(report.calls, 2, "{route:?}");
        assert!(report.download_bytes > 0);
    }
}

/// Several clients of two tenants at once, on two workers: every result right.
#[test]
fn clients_at_once_each_get_their_own_results() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &["--workers", "2"]);
    let threads: Vec<_> = (0..4)
        .map(|c| {
            let client = server.client(if c % 2 == 0 { ALICE } else { common::BOB });
            std::thread::spawn(move || {
                let n = 256 << (c % 2);
                let owner = Owner::fft(n);
                let id = client.upload_key_set(&owner.parts()).unwrap();
                let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
                for round in 0..3 {
                    let x = values(n, 10 * c as u64 + round);
                    let (out, _) = client
                        .run(&id, &owner.inputs(&x), &owner.ctx, owner.outputs())
                        .unwrap();
                    assert_eq!(owner.decrypt(&out), domain.fft(&x), "client {c}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// A running witness map past one ciphertext stops at its next component once cancelled:
/// no outputs, and the worker takes the next job.
#[test]
fn a_running_job_stops_when_cancelled() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let client = server.client(ALICE);
    let n = 1 << 15; // 32 components on the toy ring
    let owner = Owner::for_request(Request::new(Job::WitnessMap, n).on_toy_ring());
    let id = client.upload_key_set(&owner.parts()).unwrap();
    let inputs: Vec<Vec<u8>> = [values(n, 1), values(n, 2)]
        .iter()
        .flat_map(|v| owner.inputs(v))
        .collect();
    let job = client.submit(&id, &inputs).unwrap();
    let started = std::time::Instant::now();
    while client.status(&job.job).unwrap().state == "queued" {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    client.cancel(&job.job).unwrap();
    let cancelled_at = std::time::Instant::now();
    let end = client.wait(&job.job, &mut |_| {});
    assert!(
        matches!(&end, Err(he_client::ClientError::Job { state, .. }) if state == "cancelled"),
        "{end:?}"
    );
    let stopped_after = started.elapsed();
    // The next job runs, and its result is right.
    let fft = Owner::fft(64);
    let fid = client.upload_key_set(&fft.parts()).unwrap();
    let x = values(64, 3);
    let (out, _) = client
        .run(&fid, &fft.inputs(&x), &fft.ctx, fft.outputs())
        .unwrap();
    assert_eq!(
        fft.decrypt(&out),
        Radix2EvaluationDomain::<Fr>::new(64).unwrap().fft(&x)
    );
    // The next job waited for the worker only until the stopped job's current component.
    let next_done = cancelled_at.elapsed();
    assert!(client.result(&job.job, &owner.ctx, 64).is_err());
    eprintln!(
        "cancelled {stopped_after:?} after submission; the next job done {next_done:?} later"
    );
}
