#include "scheme/coefficient_form.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "math/rns_poly.h"
#include "scheme/ctxt.h"
#include "scheme/errors.h"
#include "scheme/wipe.h"
#include "scheme/noise.h"
#include "serialization/serialize.h"

namespace helib {

void Ctxt::save_coefficient_form(Writer& w) const {
    if (c0_.rows != level_ || c1_.rows != level_)
        throw std::logic_error("ciphertext rows do not match its level");
    save_fields(w, ObjectKind::coefficient_ciphertext);
    const Context& ctx = *ctx_;
    std::vector<u64> row(ctx.n());
    for (size_t i = 0; i < level_; ++i) {
        if (!w.counting()) {
            std::copy(c0_.row(i), c0_.row(i) + ctx.n(), row.begin());
            ctx.ntt(i).inverse(row.data());
        }
        w.words(row.data(), row.size());
    }
    w.words(c1_.data.data(), c1_.data.size());
}

double add_poly_in_coefficient_form(const Context& ctx, uint64_t key_id, uint8_t* data, size_t len, const u64* coeffs,
                                    size_t num) {
    Reader r(data, len);
    read_header(r, ObjectKind::coefficient_ciphertext, ctx);
    const CtxtFields f = read_ctxt_fields(r, ctx, key_id);
    const uint32_t level = f.level;
    if (std::isinf(f.noise)) corrupt("an exhausted encryption of zero");
    if (!NTL::IsOne(f.factor))
        throw InvalidArgument("an online encryption needs a zero with plaintext factor 1 (this one was modulus-switched)");
    const size_t n = ctx.n(), rows_at = r.position(), row_bytes = n * sizeof(u64);
    if (r.remaining() != 2 * level * row_bytes) corrupt("ciphertext rows of the wrong length");

    // A zero's recorded bound already allows for a message of the largest norm (every fresh
    // encryption records that bound), so adding one leaves the field as it is and the bytes
    // match a fresh encryption's. A zero recording less is not one this engine made.
    if (f.noise < ctx.log2_fresh_bound_symmetric() - 1e-9)
        corrupt("an encryption of zero whose noise bound is below a fresh encryption's");

    // Everything about the message is checked here, before the bytes change.
    const Basis chain = chain_basis(ctx, level);
    RnsPoly m = plaintext_to_coeffs(ctx, coeffs, num, chain, nullptr);
    const WipeOnExit<decltype(m.data)> wipe_m(m.data);  // the message, in the clear
    for (size_t i = 0; i < level; ++i) {
        const u64 q = ctx.prime(i);
        uint8_t* row = data + rows_at + i * row_bytes;
        const u64* y = m.row(i);
        u64 worst = 0;
        // The rows sit at an offset that is not a multiple of 8: words go through memcpy.
        for (size_t k = 0; k < n; ++k) {
            u64 x;
            std::memcpy(&x, row + k * sizeof(u64), sizeof x);
            worst = x > worst ? x : worst;
            x = add_mod(x, y[k], q);
            std::memcpy(row + k * sizeof(u64), &x, sizeof x);
        }
        if (worst >= q) corrupt("ciphertext: a residue is not below its prime");
    }
    return ctx.log2_q(level) - 1.0 - f.noise;
}

}  // namespace helib
