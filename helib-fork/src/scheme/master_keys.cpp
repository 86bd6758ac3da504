#include "scheme/master_keys.h"

#include <cmath>
#include <string>

#include "scheme/errors.h"
#include "scheme/key_switch.h"
#include "scheme/noise.h"
#include "math/rns_kernels.h"

namespace helib {
namespace {

// Multiplies the rows below `top` by factor[i] (the switch basis's P^-1 or P): a derived key's
// stored form and its true one differ by P_w there.
void scale_rows(const Context& ctx, RnsPoly& a, size_t top, const std::vector<u64>& factor) {
    for (size_t r = 0; r < top; ++r) {
        const u64 q = ctx.prime(r), f = factor[r];
        u64* row = a.row(r);
        for (size_t k = 0; k < ctx.n(); ++k) row[k] = mul_mod(row[k], f, q);
    }
}

// out[i] = a[perm[i]] on every row.
RnsPoly permuted(const Context& ctx, const std::vector<uint32_t>& perm, const RnsPoly& a) {
    RnsPoly out = RnsPoly::uninit(a.rows, a.n);
    for (size_t r = 0; r < a.rows; ++r) permute_row(perm, a.row(r), out.row(r), ctx.simd());
    return out;
}

}  // namespace

MasterKeys::MasterKeys(const SecKey& sk, const std::vector<uint64_t>& elements)
    : masters_(sk, elements),
      identity_(sk.make_switch_key(sk.s_ntt(), nullptr, 1, /*derived=*/true)) {}

GaloisKeys MasterKeys::compose(const GaloisKeys* from, uint64_t g, uint64_t h) const {
    const Context& ctx = *context();
    check_galois_element(ctx, g);
    check_galois_element(ctx, h);
    if (is_share())
        throw InvalidArgument("a party's master key shares derive nothing: combine every party's first");
    const KeySwitchKey* base = &identity_;
    if (from != nullptr) {
        if (from->context() != context()) throw Mismatch("a derived key of another context");
        if (from->id() != id()) throw Mismatch("a derived key of another secret key");
        base = &from->key(g);
        if (!base->derived) throw InvalidArgument("composition starts from a derived key, got an ordinary one");
    } else if (g != 1) {
        throw InvalidArgument("composition from the identity key takes g = 1");
    }
    const KeySwitchKey& master = masters_.key(h);
    const SwitchBasis& basis = ctx.switch_basis(true);
    const size_t top = basis.max_level, L = ctx.num_chain();
    std::vector<u64> P_mod_q(top);
    for (size_t i = 0; i < top; ++i) P_mod_q[i] = inv_mod(basis.P_inv_mod_q[i], ctx.prime(i));

    const uint64_t two_n = 2 * static_cast<uint64_t>(ctx.n());
    const uint64_t gh = static_cast<uint64_t>((static_cast<unsigned __int128>(g) * h) % two_n);
    const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
    std::vector<uint32_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<uint32_t>(i);

    if (base->levels != top) throw InvalidArgument("composition starts from a key for every derivable level");
    KeySwitchKey key;
    key.derived = true;
    key.levels = top;
    // The key switch adds p times its noise to p e (a bound with p's bit length less one: above
    // the true quotient).
    key.log2_error =
        log2_add(base->log2_error, ctx.log2_keyswitch_noise(L) - static_cast<double>(ctx.p_bits() - 1));
    for (size_t j = 0; j < base->b.size(); ++j) {
        // The true rows (stored rows below the derivation level carry P_w^-1).
        RnsPoly b = base->b[j], a = base->a[j];
        scale_rows(ctx, b, top, P_mod_q);
        scale_rows(ctx, a, top, P_mod_q);
        // key switch of sigma_g(a) with the master of h, plus sigma_g(b), then sigma_g^-1.
        const RnsPoly plus = permuted(ctx, perm, b);
        RnsPoly nb, na;
        key_switch(ctx, master, permuted(ctx, perm, a), L, nb, na, Epilogue{&plus, nullptr, &inverse});
        scale_rows(ctx, nb, top, basis.P_inv_mod_q);
        scale_rows(ctx, na, top, basis.P_inv_mod_q);
        key.b.push_back(std::move(nb));
        key.a.push_back(std::move(na));
    }
    return GaloisKeys(context(), id(), gh, std::move(key));
}

}  // namespace helib
