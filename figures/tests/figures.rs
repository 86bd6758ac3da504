//! The figures' reading of runs (medians, refusals naming the line) and the committed SVG
//! files against a fresh drawing from the committed runs.

use std::path::Path;

use figures::{draw_figures, table, Computation, Error, Runs, FIGURES};

/// An `fft --json` run line.
fn fft(route: &str, size: usize, he: f64, plain: f64, verified: bool) -> String {
    format!(
        "{{\"example\":\"fft\",\"commit\":\"abc1234\",\"cpu\":\"Test CPU\",\"avx512_ifma\":false,\
\"result\":{{\"size\":{size},\"transform\":\"FFT\",\"inverse\":false,\"route\":\"{route}\",\
\"threads\":2,\"he_fft_s\":{he},\"plain_fft_s\":{plain},\"verified\":{verified}}}}}"
    )
}

/// A `groth16 --json` run line.
fn witness_map(size: usize, server: f64, plain: f64) -> String {
    format!(
        "{{\"example\":\"groth16\",\"commit\":\"abc1234\",\"cpu\":\"Test CPU\",\"avx512_ifma\":false,\
\"result\":{{\"domain_size\":{size},\"route\":\"server-only, one ciphertext\",\"threads\":2,\
\"server_s\":{server},\"plain_witness_map_s\":{plain},\"verified\":true}}}}"
    )
}

#[test]
fn medians_by_route_and_size_and_the_fastest_route() {
    let text = [
        fft("TwoStages", 1024, 0.9, 0.001, true),
        fft("TwoStages", 1024, 0.5, 0.001, true),
        fft("TwoStages", 1024, 0.7, 0.002, true),
        fft("OneProduct", 1024, 0.4, 0.001, true),
        fft("TwoStages", 4096, 1.0, 0.004, true),
        String::new(),
        witness_map(1024, 2.0, 0.01),
        witness_map(1024, 3.0, 0.03),
    ]
    .join("\n");
    let runs = Runs::parse(&text).unwrap();
    assert_eq!(runs.series.len(), 3);
    let two = runs.series.iter().find(|s| s.route == "TwoStages").unwrap();
    assert_eq!(
        two.points.iter().map(|p| p.size).collect::<Vec<_>>(),
        vec![1024, 4096]
    );
    let p = &two.points[0];
    assert_eq!((p.runs, p.encrypted_s, p.plain_s), (3, 0.7, 0.001));
    // Per-run ratios 900, 500, 350: the median ratio, not the ratio of medians (700).
    assert_eq!(p.overhead, 500.0);
    let wm = runs
        .series
        .iter()
        .find(|s| s.computation == Computation::WitnessMap)
        .unwrap();
    assert_eq!(wm.points[0].encrypted_s, 2.5);
    assert_eq!(wm.label(), "witness map, one ciphertext");
    let fastest = runs.fastest(Computation::Fft);
    assert_eq!(
        fastest.iter().map(|p| p.encrypted_s).collect::<Vec<_>>(),
        vec![0.4, 1.0]
    );
    assert_eq!(
        runs.machines,
        vec!["Test CPU (no AVX-512 IFMA), 2 threads".to_string()]
    );
    assert!(table(&runs).contains("| FFT, two stages | 1024 | 3 | 0.700 s | 0.001000 s | 500x |"));
}

#[test]
fn runs_the_figures_must_not_draw_are_refused_by_line() {
    let good = fft("TwoStages", 1024, 0.5, 0.001, true);
    let cases = [
        (fft("TwoStages", 1024, 0.5, 0.001, false), "did not verify"),
        (
            fft("TwoStages", 1000, 0.5, 0.001, true),
            "not a power of two",
        ),
        (
            fft("TwoStages", 1024, 0.0, 0.001, true),
            "not a positive number",
        ),
        ("{\"example\":\"fft\"".to_string(), "not a run record"),
        (good.replace("\"fft\"", "\"ntt\""), "unknown example"),
        (good.replace("he_fft_s", "he_s"), "not an fft --json result"),
    ];
    for (bad, reason) in cases {
        let err = Runs::parse(&format!("{good}\n{bad}\n")).unwrap_err();
        match &err {
            Error::Run {
                line: 2, reason: r, ..
            } if r.contains(reason) => {}
            other => panic!("{bad}: expected line 2, {reason:?}; got {other}"),
        }
    }
    assert!(matches!(Runs::parse("\n\n"), Err(Error::Empty { .. })));
    let elsewhere = good.replace("Test CPU", "Other CPU");
    let mixed = Runs::parse(&format!("{good}\n{elsewhere}")).unwrap_err();
    assert!(
        mixed.to_string().contains("more than one machine"),
        "{mixed}"
    );
    let threads = good.replace("\"threads\":2", "\"threads\":1");
    assert!(Runs::parse(&format!("{good}\n{threads}")).is_err());
    let inverse = good.replace("\"inverse\":false", "\"inverse\":true");
    assert_eq!(
        Runs::parse(&format!("{good}\n{inverse}")).unwrap().skipped,
        1
    );
    let missing = Runs::read(Path::new("no/such/runs.jsonl")).unwrap_err();
    assert!(
        missing.to_string().contains("no/such/runs.jsonl"),
        "{missing}"
    );
}

#[test]
fn both_figures_are_drawn_with_every_line() {
    let text = [
        fft("OneProduct", 1024, 0.4, 0.001, true),
        fft("TwoStages", 4096, 1.0, 0.004, true),
        witness_map(1024, 2.0, 0.01),
        witness_map(4096, 3.0, 0.03),
    ]
    .join("\n");
    let dir = tempfile::tempdir().unwrap();
    let written = draw_figures(&Runs::parse(&text).unwrap(), dir.path()).unwrap();
    assert_eq!(written.len(), FIGURES.len());
    let time = std::fs::read_to_string(&written[0]).unwrap();
    for label in [
        "encrypted FFT (fastest route)",
        "ark-groth16 witness map (plain)",
        "2^10",
    ] {
        assert!(time.contains(label), "time-by-size.svg lacks {label:?}");
    }
    let overhead = std::fs::read_to_string(&written[1]).unwrap();
    for label in [
        "FFT, one product",
        "FFT, two stages",
        "witness map, one ciphertext",
    ] {
        assert!(
            overhead.contains(label),
            "overhead-by-route.svg lacks {label:?}"
        );
    }
}

/// The committed figures are what the committed runs draw (after a change to either, run
/// `make plots`).
#[test]
fn committed_figures_are_drawn_from_the_committed_runs() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/figures");
    let runs = Runs::read(&docs.join("runs.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    draw_figures(&runs, dir.path()).unwrap();
    for name in FIGURES {
        let fresh = std::fs::read(dir.path().join(name)).unwrap();
        let committed = std::fs::read(docs.join(name)).unwrap();
        assert!(
            fresh == committed,
            "docs/figures/{name} is not what make plots draws"
        );
    }
}
