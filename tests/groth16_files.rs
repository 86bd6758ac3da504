//! The Groth16 proof with its witness map outsourced through files: the owner's, the server's
//! and the owner's last step as the `groth16` example runs them, against an honest server and
//! against one that cheats. Only an `h` that passes the owner's check makes a proof, and
//! ark-groth16's verifier accepts that proof.

use std::fs;
use std::path::{Path, PathBuf};

use bigp_he::groth16_files::{owner, server, verify, KeyShape, MAX_SMALL_CONSTRAINTS};
use he_fft::DiagonalCache;
use tempfile::TempDir;

fn public(dir: &Path, name: &str) -> PathBuf {
    dir.join("public").join(name)
}

/// The owner's and the server's steps on the toy ring.
fn honest_run(constraints: usize, seed: u64) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    owner(dir.path(), constraints, true, seed, KeyShape::default()).expect("owner");
    server(dir.path(), true, DiagonalCache::Never).expect("server");
    dir
}

#[test]
fn an_honest_server_gives_a_proof_ark_groth16_accepts() {
    let dir = honest_run(100, 7);
    let verdict = verify(dir.path()).expect("verify");
    assert!(verdict.rejected.is_none(), "{:?}", verdict.rejected);
    assert!(verdict.verified);
}

#[test]
fn the_four_step_route_and_a_key_shape_work_through_files_too() {
    // 2000 constraints: a domain of 2048 points, the four-step witness map on N = 2048.
    let dir = tempfile::tempdir().unwrap();
    let shape = KeyShape {
        baby_steps: Some(8),
        baby_step_keys: Some(2),
    };
    let report = owner(dir.path(), 2000, true, 11, shape).expect("owner");
    assert_eq!(report.request.size, 2048);
    assert_eq!(report.request.baby_steps, Some(8));
    let served = server(dir.path(), true, DiagonalCache::Never).expect("server");
    assert_eq!(served.request, report.request);
    assert!(served.keys > 0 && served.download_bytes > 0);
    let verdict = verify(dir.path()).expect("verify");
    assert!(verdict.verified && verdict.rejected.is_none());
}

#[test]
fn an_echoed_input_is_rejected_by_the_owners_check() {
    let dir = honest_run(100, 3);
    // The server answers with the encrypted a instead of h.
    fs::copy(
        public(dir.path(), "input-0.ct"),
        public(dir.path(), "output-0.ct"),
    )
    .unwrap();
    match verify(dir.path()) {
        Ok(verdict) => {
            assert!(!verdict.verified);
            assert!(verdict.rejected.is_some());
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn another_owners_h_is_refused() {
    let mine = honest_run(100, 5);
    let theirs = honest_run(100, 5);
    fs::copy(
        public(theirs.path(), "output-0.ct"),
        public(mine.path(), "output-0.ct"),
    )
    .unwrap();
    let err = verify(mine.path()).expect_err("a ciphertext under another key");
    assert!(err.to_string().contains("another"), "{err}");
}

#[test]
fn a_missing_or_truncated_h_is_an_error() {
    let dir = honest_run(100, 9);
    let path = public(dir.path(), "output-0.ct");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(verify(dir.path()).is_err());
    fs::remove_file(&path).unwrap();
    assert!(verify(dir.path()).is_err());
}

#[test]
fn the_server_refuses_the_toy_ring_unless_told_and_a_forged_request() {
    let dir = tempfile::tempdir().unwrap();
    owner(dir.path(), 100, true, 1, KeyShape::default()).expect("owner");
    let err = server(dir.path(), false, DiagonalCache::Never).expect_err("toy ring");
    assert!(err.to_string().contains("insecure"), "{err}");
    // A request for another size: the server's own context for it is not the owner's.
    fs::write(
        public(dir.path(), "request.txt"),
        "job=witness-map size=64 ring=toy\n",
    )
    .unwrap();
    let err = server(dir.path(), true, DiagonalCache::Never).expect_err("another context");
    assert!(
        err.to_string().contains("not the expected context"),
        "{err}"
    );
}

#[test]
fn constraint_counts_the_ring_does_not_serve_are_refused_before_any_work() {
    for constraints in [0, 1, MAX_SMALL_CONSTRAINTS + 1] {
        let dir = tempfile::tempdir().unwrap();
        let err =
            owner(dir.path(), constraints, true, 1, KeyShape::default()).expect_err("bad count");
        assert!(err.to_string().contains("constraints must be"), "{err}");
        assert!(!public(dir.path(), "request.txt").exists());
    }
}

#[cfg(unix)]
#[test]
fn the_owner_keeps_its_secrets_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    owner(dir.path(), 100, true, 2, KeyShape::default()).expect("owner");
    for name in ["secret.bin", "circuit.txt"] {
        let mode = fs::metadata(dir.path().join("owner").join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
}
