//! Process-wide allocator setting for long-running HE workloads.

use helib_bindings as sys;

use crate::error::{check, Result};

/// Asks the C allocator (glibc) to keep freed memory for reuse instead of returning large
/// blocks to the operating system. Opt-in and process-wide.
///
/// Why: key switching, rotations and the encrypted FFT allocate tens of MiB per operation
/// (a Galois key at N = 65536 is 72 MiB). A page the process touches for the first time costs
/// ~0.6 ms per MiB on the 2-core VMs this project is measured on, so without reuse a rotation
/// at N = 65536 spends ~10% of its time, and a batch of hoisted rotations ~40%, in page
/// faults. The price: the process's resident memory stays at its peak instead of shrinking
/// after large frees. Long-running servers usually want this; short tools may not care.
///
/// Three glibc settings: blocks up to 32 MiB come from the heap, the heap is not trimmed, and
/// its top is padded by 256 MiB. The pad is what keeps worker threads' memory: their arenas
/// are 64 MiB heaps, which glibc unmaps as soon as one falls empty unless the pad is larger.
/// On two rayon threads that made the witness map at n = 4096 10-15% faster, for a peak
/// a few percent higher at most (10.5 against 10.0 GB for the FFT at 2^20 points).
///
/// Returns [`Error::InvalidArgument`](crate::Error::InvalidArgument) where the C library has
/// no such control (not glibc, or an allocator that replaces glibc's, such as
/// AddressSanitizer's under `make sanitize`).
///
/// Treat it as a hint: a program runs the same without it, only slower.
///
/// ```
/// if let Err(e) = helib_rs::retain_freed_memory() {
///     eprintln!("note: {e}; freed memory goes back to the OS");
/// }
/// ```
pub fn retain_freed_memory() -> Result<()> {
    // SAFETY: takes no arguments and only adjusts allocator thresholds.
    check(unsafe { sys::helib_retain_freed_memory() })
}

/// Peak resident set size of this process in bytes (Linux: `VmHWM` of `/proc/self/status`),
/// 0 where the system does not say. What the examples and benchmarks report as peak memory.
///
/// ```
/// let peak = helib_rs::peak_rss_bytes();
/// # #[cfg(target_os = "linux")]
/// assert!(peak > 0);
/// ```
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}
