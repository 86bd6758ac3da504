//! The outsourced FFT against a server that cheats: forged requests, echoed or swapped
//! ciphertexts, truncated and missing files. The owner's verify step accepts only the true
//! FFT of its own input and never trusts what the server can write.

use std::fs;
use std::path::{Path, PathBuf};

use bigp_he::outsource::{owner, server, verify, KeyShipping};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("bigp-he-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn public(dir: &Path, name: &str) -> PathBuf {
    dir.join("public").join(name)
}

/// A server-side request the owner did not write.
fn forge_request(dir: &Path, line: &str) {
    fs::write(public(dir, "request.txt"), format!("{line}\n")).unwrap();
}

/// The owner's and the server's steps on the toy ring.
fn honest_run(name: &str, size: usize) -> TempDir {
    let dir = TempDir::new(name);
    owner(&dir.0, size, true, KeyShipping::MasterKeys).expect("owner");
    server(&dir.0, true).expect("server");
    dir
}

#[test]
fn an_honest_result_is_accepted() {
    let dir = honest_run("honest", 16);
    let verdict = verify(&dir.0).expect("verify");
    assert!(verdict.accepted, "{:?}", verdict.reason);
}

#[test]
fn every_galois_key_shipped_works_too_and_the_masters_are_smaller() {
    let dir = TempDir::new("all-keys");
    owner(&dir.0, 64, true, KeyShipping::AllGaloisKeys).expect("owner");
    assert!(!public(&dir.0, "masters.bin").exists());
    let all = fs::metadata(public(&dir.0, "galois.bin")).unwrap().len();
    let report = server(&dir.0, true).expect("server");
    assert_eq!(report.masters, 0);
    assert!(report.derive_time.is_none());
    assert!(verify(&dir.0).expect("verify").accepted);
    // The same size with master keys: the stale galois.bin is gone, the server derives.
    owner(&dir.0, 64, true, KeyShipping::MasterKeys).expect("owner");
    assert!(!public(&dir.0, "galois.bin").exists());
    let masters = fs::metadata(public(&dir.0, "masters.bin")).unwrap().len();
    assert!(
        masters < all,
        "{masters} bytes of masters against {all} of all keys"
    );
    let report = server(&dir.0, true).expect("server");
    assert!(report.masters > 0 && report.keys > report.masters);
    assert!(verify(&dir.0).expect("verify").accepted);
}

#[test]
fn corrupt_master_keys_are_an_error() {
    let dir = TempDir::new("bad-masters");
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    let path = public(&dir.0, "masters.bin");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(server(&dir.0, true).is_err());
}

#[test]
fn a_forged_request_and_an_echoed_input_are_rejected() {
    // The reported attack: no server run at all, a request of size 1, the input as output.
    let dir = TempDir::new("forged");
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    forge_request(&dir.0, "job=fft route=one-product size=2 ring=toy");
    fs::copy(public(&dir.0, "input-0.ct"), public(&dir.0, "output-0.ct")).unwrap();
    let verdict = verify(&dir.0).expect("the echoed input decrypts");
    assert!(!verdict.accepted);
    assert!(verdict.reason.unwrap().contains("does not match"));
}

#[test]
fn a_server_obeying_a_forged_request_is_rejected() {
    let dir = TempDir::new("forged-size");
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    // The server computes a transform of another size than the owner asked for.
    forge_request(
        &dir.0,
        "job=fft route=one-product size=8 ring=toy keys=master",
    );
    // The server's own context for 8 points is not the owner's for 16: it refuses to run.
    let err = server(&dir.0, true).expect_err("the context of another size");
    assert!(
        err.to_string().contains("not the expected context"),
        "{err}"
    );
    match verify(&dir.0) {
        Ok(verdict) => assert!(!verdict.accepted),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn results_of_another_owner_are_refused() {
    let mine = honest_run("mine", 16);
    let theirs = honest_run("theirs", 16);
    fs::copy(
        public(&theirs.0, "output-0.ct"),
        public(&mine.0, "output-0.ct"),
    )
    .unwrap();
    let err = verify(&mine.0).expect_err("another key's ciphertext");
    assert!(err.to_string().contains("another"), "{err}");
}

#[test]
fn truncated_and_missing_outputs_are_errors() {
    let dir = honest_run("truncated", 16);
    let path = public(&dir.0, "output-0.ct");
    let bytes = fs::read(&path).unwrap();
    for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        fs::write(&path, &bytes[..cut]).unwrap();
        assert!(verify(&dir.0).is_err(), "cut at {cut}");
    }
    fs::remove_file(&path).unwrap();
    assert!(verify(&dir.0).is_err(), "missing output");
    // A flipped byte inside the rows: it decrypts to something else, which the check refuses.
    let mut flipped = bytes.clone();
    let at = flipped.len() - 100;
    flipped[at] ^= 1;
    fs::write(&path, &flipped).unwrap();
    match verify(&dir.0) {
        Ok(verdict) => assert!(!verdict.accepted, "a changed ciphertext passed"),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn outputs_of_an_earlier_run_do_not_count() {
    let dir = honest_run("rerun", 16);
    // The owner starts over with a new input: the old output must not pass for the new one.
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner again");
    assert!(verify(&dir.0).is_err(), "the old output was removed");
}

#[test]
fn the_server_refuses_a_toy_ring_unless_told_otherwise() {
    let dir = TempDir::new("toy");
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    let err = server(&dir.0, false).expect_err("insecure context");
    assert!(err.to_string().contains("insecure"), "{err}");
}

#[test]
fn forged_and_oversized_files_are_refused_before_they_are_built_or_read() {
    let dir = TempDir::new("forged-files");
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    // The context file asks for the largest ring and modulus: refused by comparison with the
    // server's own context, before anything of that size is built.
    let honest = fs::read(public(&dir.0, "context.bin")).unwrap();
    let mut huge = honest.clone();
    huge[16..24].copy_from_slice(&(1u64 << 20).to_le_bytes());
    huge[24..28].copy_from_slice(&3600u32.to_le_bytes());
    fs::write(public(&dir.0, "context.bin"), &huge).unwrap();
    let start = std::time::Instant::now();
    let err = server(&dir.0, true).expect_err("another context");
    assert!(
        err.to_string().contains("not the expected context"),
        "{err}"
    );
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    fs::write(public(&dir.0, "context.bin"), &honest).unwrap();
    // Files larger than any valid object of their kind: refused after reading that many bytes.
    let input = public(&dir.0, "input-0.ct");
    let mut long = fs::read(&input).unwrap();
    long.resize(long.len() * 3, 0);
    fs::write(&input, &long).unwrap();
    let err = server(&dir.0, true).expect_err("an oversized input");
    assert!(err.to_string().contains("input-0.ct"), "{err}");
    assert!(err.to_string().contains("more than"), "{err}");
    fs::write(public(&dir.0, "request.txt"), vec![b' '; 10_000]).unwrap();
    let err = server(&dir.0, true).expect_err("an oversized request");
    assert!(err.to_string().contains("request.txt"), "{err}");
}

#[cfg(unix)]
#[test]
fn an_endless_output_is_refused_without_reading_it_all() {
    let dir = honest_run("endless", 16);
    let path = public(&dir.0, "output-0.ct");
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let err = verify(&dir.0).expect_err("an endless output");
    assert!(err.to_string().contains("more than"), "{err}");
}

#[test]
fn the_owner_keeps_its_secrets_private() {
    let dir = TempDir::new("private");
    fs::create_dir_all(dir.0.join("owner")).unwrap();
    for name in ["secret.bin", "input.txt"] {
        fs::write(dir.0.join("owner").join(name), b"old").unwrap();
    }
    owner(&dir.0, 16, true, KeyShipping::MasterKeys).expect("owner");
    #[cfg(unix)]
    for name in ["secret.bin", "input.txt"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir.0.join("owner").join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
}

#[test]
fn sizes_no_route_takes_are_refused_up_front() {
    for size in [0, 3, 1000, (he_fft::MAX_FFT_SIZE) * 2, 1 << 30] {
        let dir = TempDir::new("sizes");
        let err = owner(&dir.0, size, true, KeyShipping::MasterKeys).expect_err("bad size");
        assert!(err.to_string().contains("power of two"), "{size}: {err}");
        assert!(!dir.0.exists(), "nothing written for size {size}");
    }
}

#[test]
fn the_largest_size_on_a_ring_too_small_fails_fast() {
    // Just under the limit every route accepts, on the toy ring no route of that size fits:
    // refused before any input of that size is built, and nothing written.
    let dir = TempDir::new("just-under");
    let start = std::time::Instant::now();
    let err = owner(&dir.0, he_fft::MAX_FFT_SIZE, true, KeyShipping::MasterKeys)
        .expect_err("too large for N = 2048");
    assert!(!err.to_string().is_empty());
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    assert!(!dir.0.exists());
}
