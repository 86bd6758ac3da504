#include "math/canonical.h"

#include "math/arch.h"
#if HELIB_X86_64
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "math/ntt.h"

namespace helib {

CanonicalNorm::CanonicalNorm(size_t max_n)
    : max_n_(max_n), avx2_(cpu_has_avx2_fma()), re_(2 * max_n), im_(2 * max_n) {
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

namespace {

// z_k = (a_k + i a_(k+h)) zeta^k, k < h = n/2: the twist before the size-h DFT.
__attribute__((always_inline)) inline void twist(const double* a, size_t n, const double* re, const double* im,
                                                 double* xr, double* xi) {
    const size_t half = n / 2;
    for (size_t k = 0; k < half; ++k) {
        const double c = re[n + k], s = im[n + k];
        xr[k] = a[k] * c - a[k + half] * s;
        xi[k] = a[k] * s + a[k + half] * c;
    }
}

// Two decimation-in-frequency stages in one pass, spans 2q and q (the twiddles of span h at
// re/im + h), over every block of 4q: the arrays stream through the cache half
// as often as with one stage per pass.
__attribute__((always_inline)) inline void radix4_pass(double* xr, double* xi, size_t half, size_t q, const double* re,
                                                       const double* im) {
    const double *w1r = re + 2 * q, *w1i = im + 2 * q, *w2r = re + q, *w2i = im + q;
    for (size_t base = 0; base < half; base += 4 * q) {
        double* r = xr + base;
        double* i = xi + base;
        for (size_t j = 0; j < q; ++j) {
            const double r0 = r[j], r1 = r[j + q], r2 = r[j + 2 * q], r3 = r[j + 3 * q];
            const double i0 = i[j], i1 = i[j + q], i2 = i[j + 2 * q], i3 = i[j + 3 * q];
            // Span 2q: (0, 2) with w1[j], (1, 3) with w1[j + q].
            const double ar = r0 + r2, ai = i0 + i2, br = r1 + r3, bi = i1 + i3;
            const double dr = r0 - r2, di = i0 - i2, er = r1 - r3, ei = i1 - i3;
            const double cr = dr * w1r[j] - di * w1i[j], ci = dr * w1i[j] + di * w1r[j];
            const double fr = er * w1r[j + q] - ei * w1i[j + q], fi = er * w1i[j + q] + ei * w1r[j + q];
            // Span q: (a, b) and (c, f), both with w2[j].
            const double gr = ar - br, gi = ai - bi, kr = cr - fr, ki = ci - fi;
            r[j] = ar + br;
            i[j] = ai + bi;
            r[j + q] = gr * w2r[j] - gi * w2i[j];
            i[j + q] = gr * w2i[j] + gi * w2r[j];
            r[j + 2 * q] = cr + fr;
            i[j + 2 * q] = ci + fi;
            r[j + 3 * q] = kr * w2r[j] - ki * w2i[j];
            i[j + 3 * q] = kr * w2i[j] + ki * w2r[j];
        }
    }
}

// The last stage alone (span 1, twiddle 1), when the stage count is odd.
inline void span_one_stage(double* xr, double* xi, size_t half) {
    for (size_t base = 0; base < half; base += 2) {
        const double dr = xr[base] - xr[base + 1], di = xi[base] - xi[base + 1];
        xr[base] += xr[base + 1];
        xi[base] += xi[base + 1];
        xr[base + 1] = dr;
        xi[base + 1] = di;
    }
}

double max_square_magnitude_portable(const double* a, size_t n, const double* re, const double* im, double* xr,
                                     double* xi) {
    const size_t half = n / 2;
    twist(a, n, re, im, xr, xi);
    size_t h = half / 2;
    for (; h >= 2; h /= 4) radix4_pass(xr, xi, half, h / 2, re, im);
    if (h == 1) span_one_stage(xr, xi, half);
    double m = 0;
    for (size_t k = 0; k < half; ++k) m = std::max(m, xr[k] * xr[k] + xi[k] * xi[k]);
    return m;
}

#if HELIB_X86_64
// (x + i y)(c + i s), four lanes.
__attribute__((target("avx2,fma"), always_inline)) inline void cmul(__m256d x, __m256d y, __m256d c, __m256d s,
                                                                   __m256d& out_r, __m256d& out_i) {
    out_r = _mm256_fmsub_pd(x, c, _mm256_mul_pd(y, s));
    out_i = _mm256_fmadd_pd(x, s, _mm256_mul_pd(y, c));
}

// radix4_pass four values of j at a time (q a multiple of 4).
__attribute__((target("avx2,fma"))) void radix4_pass_avx2(double* xr, double* xi, size_t half, size_t q,
                                                          const double* re, const double* im) {
    const double *w1r = re + 2 * q, *w1i = im + 2 * q, *w2r = re + q, *w2i = im + q;
    for (size_t base = 0; base < half; base += 4 * q) {
        double* r = xr + base;
        double* i = xi + base;
        for (size_t j = 0; j < q; j += 4) {
            const __m256d r0 = _mm256_loadu_pd(r + j), r1 = _mm256_loadu_pd(r + j + q);
            const __m256d r2 = _mm256_loadu_pd(r + j + 2 * q), r3 = _mm256_loadu_pd(r + j + 3 * q);
            const __m256d i0 = _mm256_loadu_pd(i + j), i1 = _mm256_loadu_pd(i + j + q);
            const __m256d i2 = _mm256_loadu_pd(i + j + 2 * q), i3 = _mm256_loadu_pd(i + j + 3 * q);
            const __m256d ar = _mm256_add_pd(r0, r2), ai = _mm256_add_pd(i0, i2);
            const __m256d br = _mm256_add_pd(r1, r3), bi = _mm256_add_pd(i1, i3);
            __m256d cr, ci, fr, fi, gr, gi, kr, ki;
            cmul(_mm256_sub_pd(r0, r2), _mm256_sub_pd(i0, i2), _mm256_loadu_pd(w1r + j), _mm256_loadu_pd(w1i + j), cr,
                 ci);
            cmul(_mm256_sub_pd(r1, r3), _mm256_sub_pd(i1, i3), _mm256_loadu_pd(w1r + j + q),
                 _mm256_loadu_pd(w1i + j + q), fr, fi);
            const __m256d w2c = _mm256_loadu_pd(w2r + j), w2s = _mm256_loadu_pd(w2i + j);
            cmul(_mm256_sub_pd(ar, br), _mm256_sub_pd(ai, bi), w2c, w2s, gr, gi);
            cmul(_mm256_sub_pd(cr, fr), _mm256_sub_pd(ci, fi), w2c, w2s, kr, ki);
            _mm256_storeu_pd(r + j, _mm256_add_pd(ar, br));
            _mm256_storeu_pd(i + j, _mm256_add_pd(ai, bi));
            _mm256_storeu_pd(r + j + q, gr);
            _mm256_storeu_pd(i + j + q, gi);
            _mm256_storeu_pd(r + j + 2 * q, _mm256_add_pd(cr, fr));
            _mm256_storeu_pd(i + j + 2 * q, _mm256_add_pd(ci, fi));
            _mm256_storeu_pd(r + j + 3 * q, kr);
            _mm256_storeu_pd(i + j + 3 * q, ki);
        }
    }
}

__attribute__((target("avx2,fma"))) double max_square_magnitude_avx2(const double* a, size_t n, const double* re,
                                                                     const double* im, double* xr, double* xi) {
    const size_t half = n / 2;
    twist(a, n, re, im, xr, xi);
    size_t h = half / 2;
    for (; h >= 2; h /= 4) {
        if (h >= 8)
            radix4_pass_avx2(xr, xi, half, h / 2, re, im);
        else
            radix4_pass(xr, xi, half, h / 2, re, im);
    }
    if (h == 1) span_one_stage(xr, xi, half);
    __m256d m4 = _mm256_setzero_pd();
    size_t k = 0;
    for (; k + 4 <= half; k += 4) {
        const __m256d x = _mm256_loadu_pd(xr + k), y = _mm256_loadu_pd(xi + k);
        m4 = _mm256_max_pd(m4, _mm256_fmadd_pd(x, x, _mm256_mul_pd(y, y)));
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, m4);
    double m = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
    for (; k < half; ++k) m = std::max(m, xr[k] * xr[k] + xi[k] * xi[k]);
    return m;
}
#endif  // HELIB_X86_64

}  // namespace

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
    std::vector<double> xr(n / 2), xi(n / 2);
#if HELIB_X86_64
    const double m = avx2_ ? max_square_magnitude_avx2(a.data(), n, re_.data(), im_.data(), xr.data(), xi.data())
                           : max_square_magnitude_portable(a.data(), n, re_.data(), im_.data(), xr.data(), xi.data());
#else
    const double m = max_square_magnitude_portable(a.data(), n, re_.data(), im_.data(), xr.data(), xi.data());
#endif
    return m > 0 ? 0.5 * std::log2(m) : -std::numeric_limits<double>::infinity();
}

}  // namespace helib
