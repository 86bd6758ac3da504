// Security estimate for a uniform ternary secret (HE Standard table; 2024 guidelines for
// N >= 2^16): the largest log2(QP) per ring degree for 128, 192 and 256 bits.
#pragma once

#include <cstddef>

namespace helib {

// Largest log2(QP) that gives 128-bit classical security at ring degree n (0 if n is outside
// the table, 1024 ..= 131072: no ring size beyond it is claimed secure).
double max_log2_qp_for_128_bits(size_t n);

// Estimated classical security in bits: linear interpolation in 1/log2(QP) between the
// table's 128/192/256-bit points at ring degree n, so that the estimate is exactly 128 at the
// table's 128-bit limit. Capped at 256, the table's last column (256 means "at least 256"),
// and 0 for ring sizes outside the table.
double estimate_security_bits(size_t n, double log2_qp);

}  // namespace helib
