//! What the server refuses, and how: tokens, other tenants' names, malformed, foreign,
//! truncated and oversized bodies, a full queue. Each a clear 4xx (or 503) with a message.

mod common;

use std::io::Read;

use common::{values, Owner, Server, ALICE, BOB};
use he_client::ClientError;
use he_fft::protocol::{ciphertexts_reader, max_ciphertexts_len, KeySetParts};

/// A raw request: status and body text.
fn raw(method: &str, url: &str, token: Option<&str>, body: Option<Vec<u8>>) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = match (method, body) {
        ("GET", _) => {
            let mut r = agent.get(url);
            if let Some(t) = token {
                r = r.header("authorization", &format!("Bearer {t}"));
            }
            r.call()
        }
        ("DELETE", _) => {
            let mut r = agent.delete(url);
            if let Some(t) = token {
                r = r.header("authorization", &format!("Bearer {t}"));
            }
            r.call()
        }
        (m, body) => {
            let mut r = if m == "PUT" {
                agent.put(url)
            } else {
                agent.post(url)
            };
            if let Some(t) = token {
                r = r.header("authorization", &format!("Bearer {t}"));
            }
            r.send(&body.unwrap_or_default()[..])
        }
    }
    .unwrap();
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, text)
}

fn status_of(e: ClientError) -> (u16, String) {
    match e {
        ClientError::Server { status, message } => (status, message),
        other => panic!("expected a status, got {other}"),
    }
}

fn body_of(parts: &KeySetParts<'_>) -> Vec<u8> {
    let mut body = Vec::new();
    parts.reader().read_to_end(&mut body).unwrap();
    body
}

#[test]
fn tokens_are_required_and_tenants_never_see_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let url = &server.url;
    assert_eq!(raw("GET", &format!("{url}/v1/health"), None, None).0, 200);
    for token in [None, Some("not-a-token-of-anyone-here"), Some("")] {
        let (status, text) = raw("GET", &format!("{url}/v1/key-sets"), token, None);
        assert_eq!(status, 401, "{token:?}");
        assert!(text.contains("bearer token"), "{text}");
    }

    let owner = Owner::fft(64);
    let alice = server.client(ALICE);
    let id = alice.upload_key_set(&owner.parts()).unwrap();
    let job = alice.submit(&id, &owner.inputs(&values(64, 3))).unwrap();
    alice.wait(&job.job, &mut |_| {}).unwrap();

    // Bob: none of Alice's names exist for him.
    let bob = server.client(BOB);
    assert!(bob.key_sets().unwrap().is_empty());
    assert_eq!(alice.key_sets().unwrap().len(), 1);
    for path in [
        format!("/v1/key-sets/{id}"),
        format!("/v1/jobs/{}", job.job),
        format!("/v1/jobs/{}/result", job.job),
    ] {
        let (status, text) = raw("GET", &format!("{url}{path}"), Some(BOB), None);
        assert_eq!(status, 404, "{path}: {text}");
    }
    assert_eq!(
        raw(
            "DELETE",
            &format!("{url}/v1/jobs/{}", job.job),
            Some(BOB),
            None
        )
        .0,
        404
    );
    let (status, _) = status_of(bob.submit(&id, &owner.inputs(&values(64, 4))).unwrap_err());
    assert_eq!(status, 404);
    // Alice's job is still hers, with its result.
    assert_eq!(alice.status(&job.job).unwrap().state, "done");
}

#[test]
fn malformed_foreign_and_oversized_bodies_are_refused_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &[]);
    let url = &server.url;
    let owner = Owner::fft(64);
    let parts = owner.parts();
    let body = body_of(&parts);
    let put = |id: &str, body: Vec<u8>| {
        raw(
            "PUT",
            &format!("{url}/v1/key-sets/{id}"),
            Some(ALICE),
            Some(body),
        )
    };

    // Key sets: a name that is not a hash, a hash of other bytes, not a key set at all, cut
    // short, a context that is not the request's.
    let (s, m) = put("abc", body.clone());
    assert_eq!(s, 400, "{m}");
    let wrong = "0".repeat(64);
    let (s, m) = put(&wrong, body.clone());
    assert!(s == 400 && m.contains("SHA-256"), "{s} {m}");
    let (s, m) = put(&parts.id(), b"GET / HTTP/1.1\r\n\r\n".to_vec());
    assert!(s == 400 && m.contains("not a key set"), "{s} {m}");
    let cut = body[..body.len() - 10].to_vec();
    let (s, m) = put(&parts.id(), cut);
    assert!(s == 400 && m.contains("ends inside"), "{s} {m}");
    let other = Owner::fft(128);
    let mismatched = KeySetParts {
        context: &other.context_bytes,
        ..parts
    };
    let (s, m) = put(&mismatched.id(), body_of(&mismatched));
    assert_eq!(s, 422, "{m}");
    assert!(m.contains("context"), "{m}");
    // The same transform's keys, of another secret key than the public key's.
    let stranger = Owner::fft(64);
    let foreign_keys = KeySetParts {
        keys: &stranger.keys,
        ..parts
    };
    let (s, m) = put(&foreign_keys.id(), body_of(&foreign_keys));
    assert!(s == 422 && m.contains("another secret key"), "{s} {m}");
    // Keys of the right secret key that lack a rotation the transform uses.
    let one_key = helib_rs::GaloisKeys::generate(&owner.sk, &helib_rs::GaloisSteps::new().step(1))
        .unwrap()
        .to_bytes()
        .unwrap();
    let too_few = KeySetParts {
        keys: &one_key,
        ..parts
    };
    let (s, m) = put(&too_few.id(), body_of(&too_few));
    assert!(
        s == 422 && m.contains("no Galois key for the rotation"),
        "{s} {m}"
    );
    // Matrices: one entry short of the request's shape, an entry that is no field element,
    // and a matrix sent with an FFT's key set.
    let product = Owner::matrix_product(
        he_fft::Matrix::from_fn_with_shape(3, 5, |r, c| ark_bn254::Fr::from((r + c) as u64))
            .unwrap(),
    );
    let short = KeySetParts {
        matrix: &product.matrix[32..],
        ..product.parts()
    };
    let (s, m) = put(&short.id(), body_of(&short));
    assert!(
        s == 400 && m.contains("not the 480 its shape does"),
        "{s} {m}"
    );
    let mut bad_entry = product.matrix.clone();
    bad_entry[64..96].fill(0xff);
    let foreign_entry = KeySetParts {
        matrix: &bad_entry,
        ..product.parts()
    };
    let (s, m) = put(&foreign_entry.id(), body_of(&foreign_entry));
    assert!(s == 400 && m.contains("entry (0, 2)"), "{s} {m}");
    let fft_with_matrix = KeySetParts {
        matrix: &product.matrix,
        ..parts
    };
    let (s, m) = put(&fft_with_matrix.id(), body_of(&fft_with_matrix));
    assert!(s == 400 && m.contains("bytes follow"), "{s} {m}");
    // None of them left anything.
    assert!(server.client(ALICE).key_sets().unwrap().is_empty());

    // Jobs: one ciphertext short, cut short, another key's ciphertexts, bytes after the
    // last, a body longer than the key set's context allows.
    let alice = server.client(ALICE);
    let id = alice.upload_key_set(&parts).unwrap();
    let post = |body: Vec<u8>| {
        raw(
            "POST",
            &format!("{url}/v1/key-sets/{id}/jobs"),
            Some(ALICE),
            Some(body),
        )
    };
    let framed = |cts: &[Vec<u8>]| {
        let mut b = Vec::new();
        ciphertexts_reader(cts).read_to_end(&mut b).unwrap();
        b
    };
    let inputs = owner.inputs(&values(64, 5));
    let (s, m) = post(framed(&[]));
    assert!(s == 400 && m.contains("expected 1"), "{s} {m}");
    let good = framed(&inputs);
    let (s, m) = post(good[..good.len() - 3].to_vec());
    assert!(s == 400 && m.contains("ends inside"), "{s} {m}");
    let (s, m) = post(framed(&other.inputs(&values(128, 5))[..1]));
    assert!((400..500).contains(&s), "{s} {m}");
    let foreign = Owner::fft(64);
    let (s, m) = post(framed(&foreign.inputs(&values(64, 5))));
    assert!(s == 422 && m.contains("ciphertext 0"), "{s} {m}");
    let (s, m) = post([&good[..], b"!"].concat());
    assert!(s == 400 && m.contains("bytes follow"), "{s} {m}");
    let most = max_ciphertexts_len(&owner.ctx, 1).unwrap();
    let (s, m) = post(vec![0u8; most as usize + 1]);
    assert!(s == 413, "{s} {m}");
    assert!(alice.key_sets().unwrap().len() == 1);
    // And the key set still serves a good job.
    let (outputs, _) = alice
        .run(&id, &inputs, &owner.ctx, owner.outputs())
        .unwrap();
    assert_eq!(owner.decrypt(&outputs), {
        use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
        Radix2EvaluationDomain::<ark_bn254::Fr>::new(64)
            .unwrap()
            .fft(&values(64, 5))
    });
}

#[test]
fn a_full_queue_says_when_to_retry_and_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &["--max-queue", "1", "--workers", "1"]);
    let owner = Owner::fft(1 << 14);
    let mut alice = server.client(ALICE);
    alice.retries = 0;
    let id = alice.upload_key_set(&owner.parts()).unwrap();
    let inputs = owner.inputs(&values(1 << 14, 1));
    let mut accepted = Vec::new();
    let mut refused = 0;
    for _ in 0..6 {
        match alice.submit(&id, &inputs) {
            Ok(job) => accepted.push(job.job),
            Err(ClientError::Server {
                status: 503,
                message,
            }) => {
                assert!(message.contains("queue is full"), "{message}");
                refused += 1;
            }
            Err(other) => panic!("{other}"),
        }
    }
    assert!(refused >= 1, "{} accepted, none refused", accepted.len());
    // Every accepted job finishes with the right result.
    let expected = {
        use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
        Radix2EvaluationDomain::<ark_bn254::Fr>::new(1 << 14)
            .unwrap()
            .fft(&values(1 << 14, 1))
    };
    for job in accepted {
        alice.wait(&job, &mut |_| {}).unwrap();
        let outputs = alice.result(&job, &owner.ctx, owner.outputs()).unwrap();
        assert_eq!(owner.decrypt(&outputs), expected);
    }
}

/// A connection that sends nothing, or stops halfway through a body, is closed after the
/// idle timeout, and the server goes on serving.
#[test]
fn idle_connections_and_stalled_bodies_are_dropped() {
    use std::io::{Read as _, Write as _};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(tmp.path(), &["--idle-timeout", "1"]);
    let addr = server.url.trim_start_matches("http://").to_string();

    let mut silent = TcpStream::connect(&addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let start = Instant::now();
    let mut buf = [0u8; 64];
    let n = silent.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "the server answered a silent connection");
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(5), "closed after {waited:?}");

    // A body that stalls: 408, not a thread held forever.
    let owner = Owner::fft(64);
    let mut stalled = TcpStream::connect(&addr).unwrap();
    stalled
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stalled,
        "PUT /v1/key-sets/{} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\n\
         Content-Length: 100000\r\n\r\nhe-key-set 1\n",
        owner.parts().id()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stalled.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

    assert_eq!(server.client(ALICE).health().unwrap()["status"], "ok");
}
