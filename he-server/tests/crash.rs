//! `kill -9` at random points, twenty times, with uploads and jobs in flight: after every
//! restart each stored key set still serves correct jobs, each finished result still
//! decrypts to the FFT, and each job that was cut off reads `failed` with its reason.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use common::{values, Owner, Server, ALICE};

const KILLS: usize = 20;

#[test]
fn twenty_kills_lose_and_corrupt_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let owners: Arc<Vec<Owner>> = Arc::new(vec![Owner::fft(64), Owner::fft(256), Owner::fft(4096)]);
    // Jobs the server acknowledged: (job, owner, seed).
    let acknowledged: Arc<Mutex<Vec<(String, usize, u64)>>> = Arc::default();
    let mut rng = StdRng::seed_from_u64(2026);
    let (mut finished, mut cut_off) = (0, 0);
    for kill in 0..=KILLS {
        let mut server = Server::start(tmp.path(), &[]);
        let mut client = server.client(ALICE);
        client.retries = 0;

        // Everything from before the kill: key sets whole, jobs ended one way or the other.
        let stored: Vec<String> = client
            .key_sets()
            .unwrap()
            .iter()
            .map(|k| k["id"].as_str().unwrap().to_string())
            .collect();
        for (i, owner) in owners.iter().enumerate() {
            if stored.contains(&owner.parts().id()) {
                let n = owner.transform.info().len;
                let x = values(n, 1000 + kill as u64);
                let (out, _) = client
                    .run(
                        &owner.parts().id(),
                        &owner.inputs(&x),
                        &owner.ctx,
                        owner.outputs(),
                    )
                    .unwrap_or_else(|e| panic!("after kill {kill}, key set {i}: {e}"));
                let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
                assert_eq!(owner.decrypt(&out), domain.fft(&x), "after kill {kill}");
            }
        }
        for (job, i, seed) in acknowledged.lock().unwrap().drain(..) {
            let status = client.status(&job).unwrap();
            match status.state.as_str() {
                "done" => {
                    let owner = &owners[i];
                    let n = owner.transform.info().len;
                    let out = client.result(&job, &owner.ctx, owner.outputs()).unwrap();
                    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
                    assert_eq!(owner.decrypt(&out), domain.fft(&values(n, seed)));
                    finished += 1;
                }
                "failed" => {
                    assert!(status.error.unwrap().contains("stopped"), "{job}");
                    cut_off += 1;
                }
                other => panic!("after kill {kill}, job {job} is {other}"),
            }
        }
        if kill == KILLS {
            break;
        }

        // Work in flight, and a kill at a random moment of it.
        let url = server.url.clone();
        let (owners_w, acked) = (Arc::clone(&owners), Arc::clone(&acknowledged));
        let worker = std::thread::spawn(move || {
            let mut client = he_client::Client::new(&url, ALICE).unwrap();
            client.retries = 0;
            for (round, owner) in owners_w.iter().enumerate().cycle().take(9) {
                let Ok(id) = client.upload_key_set(&owner.parts()) else {
                    return;
                };
                let seed = (kill * 100 + round) as u64;
                let x = values(owner.transform.info().len, seed);
                match client.submit(&id, &owner.inputs(&x)) {
                    Ok(job) => acked.lock().unwrap().push((job.job, round % 3, seed)),
                    Err(_) => return,
                }
            }
        });
        std::thread::sleep(Duration::from_millis(rng.gen_range(0..400)));
        server.kill();
        worker.join().unwrap();
    }
    eprintln!("{KILLS} kills: {finished} jobs finished before a kill, {cut_off} cut off");
    assert!(finished + cut_off > 0);
    // Nothing left behind: no half-received body, and no job folder but of a done job (the
    // last round's were read and forgotten by `run`; a restart removes the rest).
    let server = Server::start(tmp.path(), &[]);
    let state = tmp.path().join("state");
    assert_eq!(std::fs::read_dir(state.join("tmp")).unwrap().count(), 0);
    let client = server.client(ALICE);
    for entry in std::fs::read_dir(state.join("jobs")).unwrap() {
        let job = entry.unwrap().file_name().into_string().unwrap();
        assert_eq!(
            client.status(&job).unwrap().state,
            "done",
            "folder of job {job}"
        );
    }
}
