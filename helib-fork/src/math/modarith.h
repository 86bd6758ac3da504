// Word-sized modular arithmetic for the RNS primes (all below 2^62, so lazy values in [0, 4q)
// fit in a u64). Shoup multiplication is used wherever one factor is a precomputed constant.
#pragma once

#include <cstdint>

namespace helib {

using u64 = uint64_t;
using u128 = unsigned __int128;

inline u64 mulhi(u64 a, u64 b) { return static_cast<u64>((static_cast<u128>(a) * b) >> 64); }

inline u64 add_mod(u64 a, u64 b, u64 q) {
    u64 s = a + b;
    return s >= q ? s - q : s;
}

inline u64 sub_mod(u64 a, u64 b, u64 q) { return a >= b ? a - b : a + q - b; }

inline u64 neg_mod(u64 a, u64 q) { return a == 0 ? 0 : q - a; }

// Branch-free forms for data-dependent conditions (random residues and signs mispredict).
inline u64 select(bool cond, u64 if_true, u64 if_false) {
    const u64 m = 0 - static_cast<u64>(cond);
    return (if_true & m) | (if_false & ~m);
}
inline u64 neg_mod_branchless(u64 a, u64 q) { return (q - a) & (0 - static_cast<u64>(a != 0)); }

// e * t mod q for a small signed e, with t's Shoup companion tp.
inline u64 small_mul_mod(int64_t e, u64 t, u64 tp, u64 q) {
    const u64 mag = static_cast<u64>(e < 0 ? -e : e);
    u64 v = mag * t - mulhi(mag, tp) * q;
    v -= q & (0 - static_cast<u64>(v >= q));
    return select(e < 0, neg_mod_branchless(v, q), v);
}

inline u64 mul_mod(u64 a, u64 b, u64 q) {
    return static_cast<u64>((static_cast<u128>(a) * b) % q);
}

// floor(w * 2^64 / q): the Shoup companion of a constant w < q.
inline u64 shoup_precompute(u64 w, u64 q) {
    return static_cast<u64>((static_cast<u128>(w) << 64) / q);
}

// a * w mod q in [0, 2q) for any a < 2^64, given wp = shoup_precompute(w, q).
inline u64 mul_shoup_lazy(u64 a, u64 w, u64 wp, u64 q) { return a * w - mulhi(a, wp) * q; }

inline u64 mul_shoup(u64 a, u64 w, u64 wp, u64 q) {
    u64 r = mul_shoup_lazy(a, w, wp, q);
    return r >= q ? r - q : r;
}

inline u64 pow_mod(u64 base, u64 exp, u64 q) {
    u64 result = 1 % q;
    base %= q;
    while (exp) {
        if (exp & 1) result = mul_mod(result, base, q);
        base = mul_mod(base, base, q);
        exp >>= 1;
    }
    return result;
}

// q prime, a != 0 mod q.
inline u64 inv_mod(u64 a, u64 q) { return pow_mod(a, q - 2, q); }

// Barrett reduction of a 128-bit value by a prime q < 2^62, with ratio = floor(2^128 / q).
struct Barrett {
    u64 q = 0;
    u64 ratio_hi = 0;  // floor(2^128 / q) >> 64
    u64 ratio_lo = 0;  // floor(2^128 / q) mod 2^64

    Barrett() = default;
    explicit Barrett(u64 modulus) : q(modulus) {
        // 2^128 / q computed as (2^128 - 1) / q; exact because q is not a power of two.
        u128 r = ~static_cast<u128>(0) / q;
        ratio_hi = static_cast<u64>(r >> 64);
        ratio_lo = static_cast<u64>(r);
    }

    u64 reduce(u128 x) const {
        u64 xlo = static_cast<u64>(x), xhi = static_cast<u64>(x >> 64);
        // Estimate floor(x * ratio / 2^128): high 128 bits of the 256-bit product.
        u128 lo_lo = static_cast<u128>(xlo) * ratio_lo;
        u128 lo_hi = static_cast<u128>(xlo) * ratio_hi;
        u128 hi_lo = static_cast<u128>(xhi) * ratio_lo;
        u64 hi_hi = xhi * ratio_hi;  // only low 64 bits matter for the quotient
        u128 mid = (lo_lo >> 64) + static_cast<u64>(lo_hi) + static_cast<u64>(hi_lo);
        u64 quot = hi_hi + static_cast<u64>(lo_hi >> 64) + static_cast<u64>(hi_lo >> 64) +
                   static_cast<u64>(mid >> 64);
        // The estimate is at most 2 below the true quotient.
        u64 r = xlo - quot * q;
        if (r >= q) r -= q;
        return r >= q ? r - q : r;
    }

    u64 mul(u64 a, u64 b) const { return reduce(static_cast<u128>(a) * b); }
};

}  // namespace helib
