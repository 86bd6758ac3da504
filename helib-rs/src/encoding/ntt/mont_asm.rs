//! The 4-limb Montgomery product of [`ntt_mont`](crate::encoding::ntt_mont) in x86-64 assembly with
//! BMI2 and ADX: `mulx` leaves the flags alone, and `adcx`/`adox` run two carry chains
//! (low and high product halves) side by side, which the compiler does not emit from Rust.
//! About a quarter faster than the portable version on Zen 3; the results are identical.

use crate::limbs::Limbs;

/// `x y 2^-256 mod p`, below `2p`, for `x < 2p`, `y < p`, `p < 2^254` and
/// `inv = -p^-1 mod 2^64`: the CIOS algorithm of `MontNtt::mont_mul`, one 64-bit word of `y`
/// per round. Rounds rotate through five registers, so round `i` finds its running value in
/// `r[i..i + 4 mod 5]`.
///
/// # Safety
///
/// The CPU must support BMI2 and ADX (`is_x86_feature_detected!`).
#[inline(always)]
pub(crate) unsafe fn mont_mul(x: &Limbs, y: &Limbs, p: &Limbs, inv: u64) -> Limbs {
    let (r0, r1, r2, r4): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees the instructions exist; the block reads 4 words behind
    // each of the three pointers, which the array types guarantee, and writes only registers.
    unsafe {
        core::arch::asm!(
            // t = x * y[0], one carry chain (nothing to add yet)
            "mov rdx, qword ptr [{y}]",
            "mulx {r1}, {r0}, qword ptr [{x}]",
            "mulx {r2}, {lo}, qword ptr [{x} + 8]",
            "add {r1}, {lo}",
            "mulx {r3}, {lo}, qword ptr [{x} + 16]",
            "adc {r2}, {lo}",
            "mulx {r4}, {lo}, qword ptr [{x} + 24]",
            "adc {r3}, {lo}",
            "adc {r4}, 0",
            // t = (t + m p) / 2^64 with m = t[0] inv mod 2^64: the low word {r0} becomes 0 and drops out
            "mov rdx, {r0}",
            "imul rdx, {inv}",
            "xor {lo}, {lo}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adcx {r0}, {lo}",
            "adox {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adcx {r1}, {lo}",
            "adox {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adcx {r2}, {lo}",
            "adox {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "adc {r4}, 0",
            // t += x * y[1]: low halves on the CF chain, high halves on the OF chain
            "mov rdx, qword ptr [{y} + 8]",
            "xor {r0}, {r0}",
            "mulx {hi}, {lo}, qword ptr [{x} + 0]",
            "adcx {r1}, {lo}",
            "adox {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 8]",
            "adcx {r2}, {lo}",
            "adox {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 16]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 24]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "adc {r0}, 0",
            // t = (t + m p) / 2^64 with m = t[0] inv mod 2^64: the low word {r1} becomes 0 and drops out
            "mov rdx, {r1}",
            "imul rdx, {inv}",
            "xor {lo}, {lo}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adcx {r1}, {lo}",
            "adox {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adcx {r2}, {lo}",
            "adox {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "adc {r0}, 0",
            // t += x * y[2]: low halves on the CF chain, high halves on the OF chain
            "mov rdx, qword ptr [{y} + 16]",
            "xor {r1}, {r1}",
            "mulx {hi}, {lo}, qword ptr [{x} + 0]",
            "adcx {r2}, {lo}",
            "adox {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 8]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 16]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 24]",
            "adcx {r0}, {lo}",
            "adox {r1}, {hi}",
            "adc {r1}, 0",
            // t = (t + m p) / 2^64 with m = t[0] inv mod 2^64: the low word {r2} becomes 0 and drops out
            "mov rdx, {r2}",
            "imul rdx, {inv}",
            "xor {lo}, {lo}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adcx {r2}, {lo}",
            "adox {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adcx {r0}, {lo}",
            "adox {r1}, {hi}",
            "adc {r1}, 0",
            // t += x * y[3]: low halves on the CF chain, high halves on the OF chain
            "mov rdx, qword ptr [{y} + 24]",
            "xor {r2}, {r2}",
            "mulx {hi}, {lo}, qword ptr [{x} + 0]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 8]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 16]",
            "adcx {r0}, {lo}",
            "adox {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{x} + 24]",
            "adcx {r1}, {lo}",
            "adox {r2}, {hi}",
            "adc {r2}, 0",
            // t = (t + m p) / 2^64 with m = t[0] inv mod 2^64: the low word {r3} becomes 0 and drops out
            "mov rdx, {r3}",
            "imul rdx, {inv}",
            "xor {lo}, {lo}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adcx {r3}, {lo}",
            "adox {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adcx {r4}, {lo}",
            "adox {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adcx {r0}, {lo}",
            "adox {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adcx {r1}, {lo}",
            "adox {r2}, {hi}",
            "adc {r2}, 0",
            x = in(reg) x.as_ptr(),
            y = in(reg) y.as_ptr(),
            p = in(reg) p.as_ptr(),
            inv = in(reg) inv,
            r0 = out(reg) r0,
            r1 = out(reg) r1,
            r2 = out(reg) r2,
            r3 = out(reg) _,
            r4 = out(reg) r4,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r4, r0, r1, r2]
}
