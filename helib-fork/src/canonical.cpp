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
    // a(zeta^(2j+1)) with zeta = e^(i pi / n) is the cyclic DFT of a_k zeta^k: twist, then a
    // decimation-in-frequency DFT. Only the largest magnitude matters, so the bit-reversed output
    // order needs no permutation.
    std::vector<double> xr(n), xi(n);
    for (size_t k = 0; k < n; ++k) {
        xr[k] = a[k] * re_[n + k];
        xi[k] = a[k] * im_[n + k];
    }
    for (size_t h = n / 2; h >= 1; h /= 2) {
        const double* twr = re_.data() + h;
        const double* twi = im_.data() + h;
        for (size_t base = 0; base < n; base += 2 * h) {
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
    for (size_t k = 0; k < n; ++k) m = std::max(m, xr[k] * xr[k] + xi[k] * xi[k]);
    return m > 0 ? 0.5 * std::log2(m) : -std::numeric_limits<double>::infinity();
}

}  // namespace helib
