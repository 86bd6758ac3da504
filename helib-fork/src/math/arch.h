// Which instruction-set kernels this build carries. The AVX2 and AVX-512 IFMA kernels exist
// only on x86-64; elsewhere (aarch64, say) their entry points are stubs that the CPU checks
// (cpu_has_avx2, cpu_has_avx2_fma, cpu_has_avx512_ifma: always false there) never select, and
// the portable scalar code runs.
#pragma once

#include <cstdlib>

#if defined(__x86_64__) || defined(_M_X64)
#define HELIB_X86_64 1
#else
#define HELIB_X86_64 0
#endif

namespace helib {

// Whether HELIB_FORCE_SCALAR is set (to any non-empty value): then every CPU check (cpu_has_*) says
// no and the portable kernels run, so that the test suite checks them on vector machines too.
inline bool scalar_forced() {
    const char* force = std::getenv("HELIB_FORCE_SCALAR");
    return force != nullptr && force[0] != '\0';
}

// The body of a vector-kernel stub on a CPU family without it. The CPU checks above return
// false there, so no dispatch reaches it; should a caller bypass them, stopping is the only
// answer that cannot produce a wrong value.
[[noreturn]] inline void kernel_not_built() { std::abort(); }

}  // namespace helib
