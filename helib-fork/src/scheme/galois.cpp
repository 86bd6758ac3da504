#include "scheme/galois.h"

#include <string>

#include "scheme/errors.h"
#include "math/rns_kernels.h"

namespace helib {

void check_galois_element(const Context& ctx, uint64_t g) {
    const uint64_t two_n = 2 * static_cast<uint64_t>(ctx.n());
    if (g % 2 == 0 || g >= two_n)
        throw InvalidArgument("Galois element " + std::to_string(g) + " must be odd and below 2N = " +
                              std::to_string(two_n));
}

std::vector<uint32_t> galois_permutation(size_t n, uint64_t g) {
    int log_n = 0;
    while ((size_t(1) << log_n) < n) ++log_n;
    const uint64_t mask = 2 * static_cast<uint64_t>(n) - 1;
    std::vector<uint32_t> perm(n);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t e = 2 * static_cast<uint64_t>(bit_reverse(i, log_n)) + 1;
        const uint64_t eg = (e * g) & mask;  // odd, since e and g are odd
        perm[i] = static_cast<uint32_t>(bit_reverse(static_cast<size_t>((eg - 1) / 2), log_n));
    }
    return perm;
}

void permute_row(const std::vector<uint32_t>& perm, const u64* in, u64* out, bool simd) {
    const size_t n = perm.size();
    if (simd && n % 4 == 0) return permute_row_avx2(perm.data(), in, out, n);
    for (size_t i = 0; i < n; ++i) out[i] = in[perm[i]];
}

void apply_inverse_permutation(const std::vector<uint32_t>& perm, const RnsPoly& a, RnsPoly& out) {
    const size_t n = a.n;
    out = RnsPoly::uninit(a.rows, n);
    for (size_t r = 0; r < a.rows; ++r) {
        const u64* src = a.row(r);
        u64* dst = out.row(r);
        for (size_t i = 0; i < n; ++i) dst[perm[i]] = src[i];
    }
}

GaloisKeys::GaloisKeys(const SecKey& sk, const std::vector<uint64_t>& elements, const std::vector<size_t>& levels)
    : ctx_(sk.context()), id_(sk.id()), share_(sk.is_share()) {
    const Context& ctx = *ctx_;
    if (!levels.empty() && levels.size() != elements.size())
        throw InvalidArgument("Galois keys: " + std::to_string(levels.size()) + " level caps for " +
                              std::to_string(elements.size()) + " elements");
    for (uint64_t g : elements) check_galois_element(ctx, g);
    for (size_t lv : levels)
        if (lv > ctx.num_chain())
            throw InvalidArgument("a Galois key for " + std::to_string(lv) + " levels (the context has " +
                                  std::to_string(ctx.num_chain()) + ")");
    // Each element's key serves the most levels asked of it.
    std::map<uint64_t, size_t> wanted;
    for (size_t i = 0; i < elements.size(); ++i) {
        const size_t lv = levels.empty() || levels[i] == 0 ? ctx.num_chain() : levels[i];
        size_t& slot = wanted[elements[i]];
        slot = std::max(slot, lv);
    }
    for (const auto& [g, lv] : wanted) {
        if (g == 1) continue;  // the identity needs no key
        auto entry = std::make_shared<Entry>();
        entry->perm = galois_permutation(ctx.n(), g);
        RnsPoly under;  // sigma^-1(s) over the full basis
        apply_inverse_permutation(entry->perm, sk.s_ntt(), under);
        entry->key = sk.make_switch_key(sk.s_ntt(), &under, g, /*derived=*/false, lv);
        keys_.emplace(g, std::move(entry));
    }
}

GaloisKeys::GaloisKeys(const std::vector<const GaloisKeys*>& parts) {
    if (parts.empty()) throw InvalidArgument("merging Galois keys needs at least one key set");
    ctx_ = parts.front()->ctx_;
    id_ = parts.front()->id_;
    derived_ = parts.front()->derived_;
    share_ = parts.front()->share_;
    for (const GaloisKeys* part : parts) {
        if (part->share_ != share_) throw Mismatch("a party's key shares and joint keys cannot share a set");
        if (part->ctx_ != ctx_) throw Mismatch("Galois key sets to merge belong to different contexts");
        if (part->id_ != id_) throw Mismatch("Galois key sets to merge belong to different secret keys");
        if (part->derived_ != derived_)
            throw Mismatch("derived and ordinary Galois keys cannot share a set (they serve different levels)");
        for (const auto& [g, entry] : part->keys_) {
            auto [it, inserted] = keys_.emplace(g, entry);
            if (!inserted && entry->key.levels > it->second->key.levels) it->second = entry;
        }
    }
}

GaloisKeys::GaloisKeys(std::shared_ptr<const Context> ctx, uint64_t id, uint64_t g, KeySwitchKey key)
    : ctx_(std::move(ctx)), id_(id), derived_(true) {
    check_galois_element(*ctx_, g);
    if (g == 1) throw InvalidArgument("the identity needs no Galois key");
    auto entry = std::make_shared<Entry>();
    entry->perm = galois_permutation(ctx_->n(), g);
    entry->key = std::move(key);
    keys_.emplace(g, std::move(entry));
}

const KeySwitchKey& GaloisKeys::key(uint64_t g) const {
    auto it = keys_.find(g);
    if (it == keys_.end())
        throw MissingKey("no Galois key for element " + std::to_string(g) +
                         " (generate the keys for every step the computation uses)");
    return it->second->key;
}

const std::vector<uint32_t>& GaloisKeys::permutation(uint64_t g) const {
    auto it = keys_.find(g);
    if (it == keys_.end()) throw MissingKey("no Galois key for element " + std::to_string(g));
    return it->second->perm;
}

std::vector<uint64_t> GaloisKeys::elements() const {
    std::vector<uint64_t> out;
    for (const auto& kv : keys_) out.push_back(kv.first);
    return out;
}

size_t GaloisKeys::size_bytes() const {
    size_t total = sizeof(*this);
    for (const auto& kv : keys_) total += kv.second->key.size_bytes() + kv.second->perm.size() * sizeof(uint32_t);
    return total;
}

}  // namespace helib
