//! What the timed jobs (`examples/fft.rs`, `examples/quotient.rs`) share: their `main` (a
//! rayon pool of the requested size, exit codes 0 verified, 1 mismatch, 2 usage or engine
//! error) and the line that describes the parameters.

use std::process::ExitCode;

use helib_rs::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Any error a job reports (engine, I/O, parsing).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Runs `run` on a pool of `threads(&args)` threads when the arguments parsed, and maps the
/// outcome to the exit status: `Ok(true)` 0, `Ok(false)` 1, errors 2 (a parse error with an
/// empty message, as `--help` gives, prints the usage alone).
pub fn main<A: Sync>(
    usage: &str,
    parsed: Result<A, String>,
    threads: impl FnOnce(&A) -> usize,
    run: impl FnOnce(&A) -> Result<bool, BoxError> + Send,
) -> ExitCode {
    crate::end_quietly_on_closed_stdout();
    let args = match parsed {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(threads(&args))
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: thread pool: {e}");
            return ExitCode::from(2);
        }
    };
    match pool.install(|| run(&args)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `parameters: N = ..., log2 QP = ... (... primes, ... digits), security ~... bits`, saying
/// loudly when the ring is the insecure toy one.
pub fn parameters_line(ctx: &Context, toy: bool) -> String {
    format!(
        "parameters: N = {}, log2 QP = {:.0} ({} + {} primes, {} key-switching digits), \
         security ~{:.0} bits{}",
        ctx.ring_degree(),
        ctx.log2_qp(),
        ctx.num_ctxt_primes(),
        ctx.num_special_primes(),
        ctx.ks_digits(),
        ctx.security_bits(),
        if toy {
            " (--small: INSECURE toy ring)"
        } else {
            ""
        }
    )
}

/// The toy ring of `--small` (N = 2048, far below 128-bit security) with `bits` of ciphertext
/// modulus for the BN254 scalar field.
pub fn toy_context(bits: u32) -> helib_rs::Result<Context> {
    Context::builder()
        .ring_degree(2048)
        .plaintext_field::<ark_bn254::Fr>()
        .ciphertext_bits(bits)
        .allow_insecure(true)
        .build()
}

/// A progress bar over `len` giant steps labelled `what`, hidden when `hidden` (JSON output).
pub fn progress_bar(len: usize, what: &str, hidden: bool) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if hidden {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!(
        "{what} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} giant steps (eta {{eta}})"
    );
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
