#include "canonical.h"

#include <cmath>
#include <complex>
#include <limits>

namespace helib {

double log2_canonical_norm(const std::vector<double>& a) {
    using cd = std::complex<double>;
    const size_t n = a.size();
    if (n == 0) return -std::numeric_limits<double>::infinity();
    // Twist by zeta^k (zeta = e^{i pi / n}) so that a plain DFT evaluates at the odd powers.
    std::vector<cd> v(n);
    for (size_t k = 0; k < n; ++k) v[k] = a[k] * std::polar(1.0, M_PI * double(k) / double(n));
    // Iterative radix-2 DFT (bit-reversal permutation, then butterflies).
    for (size_t i = 1, j = 0; i < n; ++i) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(v[i], v[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const cd wl = std::polar(1.0, 2 * M_PI / double(len));
        for (size_t i = 0; i < n; i += len) {
            cd w(1.0);
            for (size_t j = 0; j < len / 2; ++j) {
                const cd u = v[i + j], t = v[i + j + len / 2] * w;
                v[i + j] = u + t;
                v[i + j + len / 2] = u - t;
                w *= wl;
            }
        }
    }
    double m = 0;
    for (const cd& z : v) m = std::max(m, std::abs(z));
    return m > 0 ? std::log2(m) : -std::numeric_limits<double>::infinity();
}

}  // namespace helib
