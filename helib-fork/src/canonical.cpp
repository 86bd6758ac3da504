#include "canonical.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace helib {

CanonicalNorm::CanonicalNorm(size_t max_n) : max_n_(max_n), re_(2 * max_n), im_(2 * max_n) {
    for (size_t j = 0; j < max_n; ++j) {
        const double angle = M_PI * double(j) / double(max_n);
        re_[max_n + j] = std::cos(angle);
        im_[max_n + j] = std::sin(angle);
    }
    // e^(i pi j / h) = e^(i pi 2j / 2h): every other entry of the run above.
    for (size_t h = max_n / 2; h >= 1; h /= 2) {
        for (size_t j = 0; j < h; ++j) {
            re_[h + j] = re_[2 * h + 2 * j];
            im_[h + j] = im_[2 * h + 2 * j];
        }
    }
}

double CanonicalNorm::log2_norm(const std::vector<double>& a) const {
    const size_t n = a.size();
    if (n == 0) return -std::numeric_limits<double>::infinity();
    if (n > max_n_ || (n & (n - 1)) != 0)
        throw std::logic_error("canonical norm of a polynomial of " + std::to_string(n) + " coefficients");
    if (n == 1) return a[0] != 0 ? std::log2(std::fabs(a[0])) : -std::numeric_limits<double>::infinity();
    // Half the roots suffice: a is real, so a(conj z) = conj a(z), and the conjugates of the roots
    // zeta^e with e = 1 mod 4 (zeta = e^(i pi / n)) are the others. At those, X^(n/2) = i, so
    // with h = n/2, a(zeta^e) = z(zeta^e) for z_k = a_k + i a_(k+h), k < h; and with e = 4j + 1
    // that is the cyclic DFT of size h (root zeta^4) of z_k zeta^k: twist, then
    // decimation-in-frequency stages. Only the largest magnitude matters, so the bit-reversed
    // output order needs no permutation.
    const size_t half = n / 2;
    std::vector<double> xr(half), xi(half);
    for (size_t k = 0; k < half; ++k) {
        const double c = re_[n + k], s = im_[n + k];
        xr[k] = a[k] * c - a[k + half] * s;
        xi[k] = a[k] * s + a[k + half] * c;
    }
    for (size_t h = half / 2; h >= 1; h /= 2) {
        const double* twr = re_.data() + h;
        const double* twi = im_.data() + h;
        for (size_t base = 0; base < half; base += 2 * h) {
            double* ur = xr.data() + base;
            double* ui = xi.data() + base;
            double* vr = ur + h;
            double* vi = ui + h;
            for (size_t j = 0; j < h; ++j) {
                const double wr = twr[j], wi = twi[j];
                const double dr = ur[j] - vr[j], di = ui[j] - vi[j];
                ur[j] += vr[j];
                ui[j] += vi[j];
                vr[j] = dr * wr - di * wi;
                vi[j] = dr * wi + di * wr;
            }
        }
    }
    double m = 0;
    for (size_t k = 0; k < half; ++k) m = std::max(m, xr[k] * xr[k] + xi[k] * xi[k]);
    return m > 0 ? 0.5 * std::log2(m) : -std::numeric_limits<double>::infinity();
}

}  // namespace helib
