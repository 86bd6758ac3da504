// Noise bounds are tracked as log2 of a bound on the canonical-embedding norm of the noise term
// [c0 + c1 s]_Q (which includes the scaled message). Values can exceed the double range, so
// everything stays in the log domain.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace helib {

// Tail factor for a "6 sigma" high-probability bound in the canonical embedding: a complex
// Gaussian slot exceeds 6 sigma with probability e^-36 ~ 2^-52; products of two such bounds
// (36 sigma_a sigma_b) also cover products of slots, whose tails are heavier.
constexpr double kTailFactor = 6.0;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log2(2^a + 2^b); an exhausted bound (+inf) stays +inf (inf - inf would make it NaN, and a
// NaN budget compares as neither spent nor left).
inline double log2_add(double a, double b) {
    if (a == kNegInf) return b;
    if (b == kNegInf) return a;
    if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<double>::infinity();
    const double hi = std::max(a, b), lo = std::min(a, b);
    return hi + std::log2(1.0 + std::exp2(lo - hi));
}

}  // namespace helib
