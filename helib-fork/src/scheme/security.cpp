#include "scheme/security.h"

#include <algorithm>
#include <cmath>

namespace helib {
namespace {

struct Row {
    size_t n;
    double bits[3];  // max log2(QP) for 128, 192, 256-bit security
};

// HE Standard (2018) for N <= 2^15, and the 2024 guidelines for N >= 2^16; uniform ternary
// secret, classical attacks.
constexpr Row kTable[] = {
    {1024, {27, 19, 14}},         {2048, {54, 37, 29}},         {4096, {109, 75, 58}},
    {8192, {218, 152, 118}},      {16384, {438, 305, 237}},     {32768, {881, 611, 476}},
    {65536, {1747, 1199, 929}},   {131072, {3523, 2411, 1866}},
};
constexpr double kLevels[3] = {128, 192, 256};
constexpr double kMaxEstimate = 256;

// The row for n, or all zeros outside the table: no estimate is claimed for ring sizes the
// table does not cover.
Row row_for(size_t n) {
    for (const Row& r : kTable)
        if (r.n == n) return r;
    return Row{n, {0, 0, 0}};
}

}  // namespace

double max_log2_qp_for_128_bits(size_t n) { return row_for(n).bits[0]; }

double estimate_security_bits(size_t n, double log2_qp) {
    const Row r = row_for(n);
    if (r.bits[0] <= 0 || log2_qp <= 0) return 0;
    const double x = 1.0 / log2_qp;
    // Segment 128-192 for large moduli, 192-256 for small ones.
    const int seg = x <= 1.0 / r.bits[1] ? 0 : 1;
    const double x0 = 1.0 / r.bits[seg], x1 = 1.0 / r.bits[seg + 1];
    const double y0 = kLevels[seg], y1 = kLevels[seg + 1];
    const double lambda = y0 + (x - x0) * (y1 - y0) / (x1 - x0);
    // The table ends at 256 bits: a smaller modulus is reported as 256 (read ">= 256").
    return std::clamp(lambda, 0.0, kMaxEstimate);
}

}  // namespace helib
