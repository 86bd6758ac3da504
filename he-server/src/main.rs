//! `he-server --listen ADDR --state DIR --tokens FILE [--memory-budget BYTES]`: see the
//! crate's documentation and docs/server.md.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

/// An HTTP server for encrypted FFTs and Groth16 witness maps (BN254).
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Address to listen on (127.0.0.1:0 picks a free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8700")]
    listen: String,
    /// State directory: the database, key sets and job files (created if missing).
    #[arg(long)]
    state: std::path::PathBuf,
    /// Tokens file: one `TENANT TOKEN` pair per line.
    #[arg(long)]
    tokens: std::path::PathBuf,
    /// Memory the loaded keys and running jobs may take together: bytes, or with a K, M, G or
    /// T suffix (powers of 1024). Default: three quarters of the machine's memory.
    #[arg(long, value_parser = parse_bytes)]
    memory_budget: Option<u64>,
    /// Jobs that may wait; more are refused with 503 and Retry-After.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_queue: u32,
    /// Jobs run at once, memory permitting (each uses every core).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    workers: u32,
    /// Seconds a request body may pause before it is dropped.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    /// Also serve the insecure toy ring (N = 2048): tests and demonstrations only.
    #[arg(long)]
    allow_toy_ring: bool,
}

fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = s
        .find(|c: char| !c.is_ascii_digit())
        .map_or((s, ""), |i| s.split_at(i));
    let shift = match unit.trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        _ => {
            return Err(format!(
                "{s:?}: a size is bytes, or a number with K, M, G or T"
            ))
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?}: a size is a positive number of bytes"))
}

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // Jobs allocate and free gigabytes again and again: keeping freed memory for reuse spares
    // each job the page faults of fresh memory (the budget still bounds what is admitted).
    if let Err(e) = helib_rs::retain_freed_memory() {
        tracing::warn!("{e}; freed memory goes back to the OS, so jobs pay its page faults");
    }
    let config = he_server::Config {
        listen: args.listen,
        state: args.state,
        tokens: args.tokens,
        memory_budget: args
            .memory_budget
            .unwrap_or_else(he_server::default_memory_budget),
        max_queue: args.max_queue as usize,
        workers: args.workers as usize,
        allow_toy_ring: args.allow_toy_ring,
        idle_timeout: Duration::from_secs(args.idle_timeout),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("he-server: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(he_server::serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("he-server: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_bytes("1234"), Ok(1234));
        assert_eq!(parse_bytes("16G"), Ok(16 << 30));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("12X").is_err());
        assert!(parse_bytes("99999999999T").is_err());
        assert!(parse_bytes("").is_err());
    }
}
