//! What the timed jobs (`examples/fft.rs`, `examples/groth16.rs`, ...) share: their `main` (a
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

/// Bytes from the OS's random source, for what a job must never derive from a printed seed
/// (a setup's toxic waste, a proof's `r` and `s`).
pub fn os_random<const N: usize>() -> Result<[u8; N], BoxError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| format!("the OS random source failed: {e}"))?;
    Ok(bytes)
}

/// Refuses a vector size no route takes (not a power of two, or above
/// [`he_fft::MAX_FFT_SIZE`]) before anything of that size is built.
pub fn check_size(n: usize) -> Result<(), String> {
    if n == 0 || !n.is_power_of_two() || n > he_fft::MAX_FFT_SIZE {
        return Err(format!(
            "the size must be a power of two from 1 to 2^{} = {}, got {n}",
            he_fft::MAX_FFT_SIZE.trailing_zeros(),
            he_fft::MAX_FFT_SIZE
        ));
    }
    Ok(())
}

/// A file the job will write at its end, claimed at its start: creating the temporary file
/// beside it up front turns an unwritable `--output` into an error before the computation,
/// and [`commit`](Self::commit) renames it over the destination, so an existing file is never
/// truncated before its replacement is complete. The temporary file goes away if the job fails.
pub struct OutputFile {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    file: Option<std::fs::File>,
}

impl OutputFile {
    /// Claims `path`: fails now if its directory cannot take a new file.
    pub fn create(path: &str) -> Result<OutputFile, BoxError> {
        let path = std::path::PathBuf::from(path);
        let name = path
            .file_name()
            .ok_or_else(|| format!("--output {}: names no file", path.display()))?;
        if path.is_dir() {
            return Err(format!("--output {}: is a directory", path.display()).into());
        }
        let mut tmp_name = name.to_os_string();
        tmp_name.push(format!(".partial-{}", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        let file = std::fs::File::create(&tmp)
            .map_err(|e| format!("--output {}: cannot write there: {e}", path.display()))?;
        Ok(OutputFile {
            path,
            tmp,
            file: Some(file),
        })
    }

    /// Writes `bytes` and moves them into place.
    pub fn commit(mut self, bytes: &[u8]) -> Result<(), BoxError> {
        use std::io::Write;
        let mut file = self.file.take().ok_or("output already written")?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&self.tmp, &self.path))
            .map_err(|e| format!("--output {}: {e}", self.path.display()).into())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Not committed (or the rename failed): leave no partial file behind.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// `parameters: N = ..., log2 QP = ... (... primes, ... digits), security ~... bits`, saying
/// loudly when the ring is the insecure toy one.
pub fn parameters_line(ctx: &Context, toy: bool) -> String {
    format!(
        "parameters: N = {}, log2 QP = {:.0} ({} + {} primes, {} key-switching digits), \
         security {}{}",
        ctx.ring_degree(),
        ctx.log2_qp(),
        ctx.num_ctxt_primes(),
        ctx.num_special_primes(),
        ctx.ks_digits(),
        ctx.security_label(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked_before_anything_is_built() {
        for ok in [1, 2, 1024, he_fft::MAX_FFT_SIZE] {
            assert!(check_size(ok).is_ok(), "{ok}");
        }
        for bad in [0, 3, 1000, 2 * he_fft::MAX_FFT_SIZE, 1 << 30, usize::MAX] {
            assert!(check_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_output_file_is_claimed_first_and_replaced_only_when_complete() {
        let dir = std::env::temp_dir().join(format!("bigp-he-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        let name = path.to_str().unwrap();
        // Claimed, then abandoned (the job failed): the old file is untouched, no leftovers.
        drop(OutputFile::create(name).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // Committed: replaced whole.
        OutputFile::create(name).unwrap().commit(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        // An unwritable place or a directory is refused up front.
        assert!(OutputFile::create(dir.join("no/such/dir/x").to_str().unwrap()).is_err());
        assert!(OutputFile::create(dir.to_str().unwrap()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
