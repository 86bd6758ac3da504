//! The distributed four-step FFT and witness map under mpirun, on a toy ring: 1, 2 and 4 ranks
//! (and TCP on loopback) give byte for byte the single-process outputs, which decrypt to
//! ark-poly's FFT (the witness map: to the plain quotient, and pass the owner's check);
//! a rank killed mid-run ends the job with an error. Skipped, with a message, where mpirun is
//! absent, except under CI, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fft-mpi");

fn mpirun_present() -> bool {
    let found = Command::new("mpirun").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "mpirun is missing under CI"
        );
        eprintln!("skipped: mpirun not found (make fft-mpi installs Open MPI)");
    }
    found
}

fn command(program: &str) -> Command {
    let mut c = Command::new(program);
    // Open MPI refuses to run as root (CI containers) without these.
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A directory with a toy setup of `n` points and the single-process outputs.
fn prepared(name: &str, n: usize) -> PathBuf {
    prepared_with(name, n, &[])
}

/// [`prepared`] with more setup flags.
fn prepared_with(name: &str, n: usize, flags: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fft-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    ok(
        command(BIN)
            .args([
                "setup",
                d,
                "--size",
                &n.to_string(),
                "--small",
                "--seed",
                "7",
            ])
            .args(flags)
            .output()
            .unwrap(),
        "setup",
    );
    ok(command(BIN).args(["single", d]).output().unwrap(), "single");
    dir
}

fn mpirun(dir: &Path, ranks: usize, extra: &[&str], threads: usize) -> Output {
    for entry in std::fs::read_dir(dir.join("public")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("output-")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    command("mpirun")
        .args(["--oversubscribe", "-np", &ranks.to_string()])
        .args(extra)
        .args([
            BIN,
            "run",
            dir.to_str().unwrap(),
            "--threads",
            &threads.to_string(),
        ])
        .output()
        .unwrap()
}

/// The outputs against the single-process ones, byte for byte, and `verify`'s verdict.
fn assert_identical_and_verified(dir: &Path, ciphertexts: usize) {
    for j in 0..ciphertexts {
        let got = std::fs::read(dir.join("public").join(format!("output-{j}.ct"))).unwrap();
        let want = std::fs::read(dir.join("public").join(format!("single-{j}.ct"))).unwrap();
        assert!(
            got == want,
            "output {j} differs from the single-process one"
        );
    }
    let out = ok(
        command(BIN)
            .args(["verify", dir.to_str().unwrap(), "--json"])
            .output()
            .unwrap(),
        "verify",
    );
    let json: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(json["verified"], true);
    assert_eq!(json["identical_to_single_process"], true);
    for key in [
        "upload_bytes",
        "download_bytes",
        "galois_key_bytes",
        "peak_rss_bytes",
    ] {
        assert!(json[key].as_u64().unwrap() > 0, "{key}");
    }
}

#[test]
fn one_two_and_four_ranks_give_the_single_process_bytes() {
    if !mpirun_present() {
        return;
    }
    // 4 ciphertexts (rows of 1024 at N = 2048): 2 per rank on two ranks, 1 on four.
    let dir = prepared("ranks", 8192);
    for ranks in [1, 2, 4] {
        ok(mpirun(&dir, ranks, &[], 1), &format!("mpirun -np {ranks}"));
        assert_identical_and_verified(&dir, 4);
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("public").join("run.json")).unwrap())
                .unwrap();
        assert_eq!(run["ranks"], ranks);
        let per_rank = run["per_rank"].as_array().unwrap();
        assert_eq!(per_rank.len(), ranks);
        // Every rank broadcasts its share of the terms and receives the rest.
        let sent: u64 = per_rank
            .iter()
            .map(|r| r["bytes_broadcast"].as_u64().unwrap())
            .sum();
        for r in per_rank {
            assert_eq!(
                r["bytes_received"].as_u64().unwrap() + r["bytes_broadcast"].as_u64().unwrap(),
                sent
            );
        }
    }
    // Two threads per rank: the plan is fixed at setup, so the bytes are still the same.
    ok(mpirun(&dir, 2, &[], 2), "mpirun -np 2, two threads each");
    assert_identical_and_verified(&dir, 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_witness_map_across_one_two_and_four_ranks_gives_the_single_process_bytes() {
    if !mpirun_present() {
        return;
    }
    // n = 4096 on rows of 1024: 4 components, 2 ciphertexts of each input; four ranks leave
    // two without inputs, each still computing one component.
    let dir = prepared_with("witness-map", 4096, &["--witness-map"]);
    for ranks in [1, 2, 4] {
        ok(mpirun(&dir, ranks, &[], 1), &format!("mpirun -np {ranks}"));
        assert_identical_and_verified(&dir, 4);
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("public").join("run.json")).unwrap())
                .unwrap();
        assert_eq!(run["transform"], "witness map");
        assert_eq!(run["ranks"], ranks);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tcp_on_loopback_gives_the_same_bytes() {
    if !mpirun_present() {
        return;
    }
    let dir = prepared("tcp", 8192);
    ok(
        mpirun(&dir, 2, &["--mca", "btl", "self,tcp"], 1),
        "mpirun over TCP",
    );
    assert_identical_and_verified(&dir, 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rank_killed_mid_run_ends_the_job_with_an_error() {
    if !mpirun_present() {
        return;
    }
    // 8 ciphertexts, 16 terms: two batches, so rank 0 still waits for rank 1's terms.
    let dir = prepared("kill", 16384);
    let mut c = command("mpirun");
    c.env("FFT_MPI_KILL_RANK", "1").args([
        "--oversubscribe",
        "-np",
        "2",
        BIN,
        "run",
        dir.to_str().unwrap(),
    ]);
    let out = c.output().unwrap();
    assert!(!out.status.success(), "the job survived a killed rank");
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rank 1"),
        "mpirun did not name the rank:\n{text}"
    );
    assert!(
        !dir.join("public").join("run.json").exists(),
        "rank 0 reported a run that did not complete"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_usage_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("fft-mpi-usage-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let out = command(BIN)
        .args(["setup", d, "--size", "1000", "--small"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    let out = command(BIN)
        .args(["verify", "/nonexistent/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("request.txt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn forged_and_oversized_files_are_refused_before_use() {
    let dir = prepared("forged", 4096);
    let d = dir.to_str().unwrap();
    let run = |step: &str| command(BIN).args([step, d]).output().unwrap();
    // A context file for the largest ring: compared with the context the request gives,
    // never built.
    let path = dir.join("public").join("context.bin");
    let honest = std::fs::read(&path).unwrap();
    let mut forged = honest.clone();
    forged[16..24].copy_from_slice(&(1u64 << 20).to_le_bytes());
    std::fs::write(&path, &forged).unwrap();
    let out = run("single");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the expected context"));
    std::fs::write(&path, &honest).unwrap();
    // An output longer than any ciphertext of the context: refused after a bounded read
    // (the outputs are switched down to a few primes, so far longer than they are).
    let output = dir.join("public").join("single-0.ct");
    let mut long = std::fs::read(&output).unwrap();
    long.resize(100 * long.len(), 0);
    std::fs::write(dir.join("public").join("output-0.ct"), &long).unwrap();
    let out = run("verify");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("output-0.ct") && stderr.contains("more than"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
