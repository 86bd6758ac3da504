#include "scheme/key_switch.h"

#include "scheme/galois.h"
#include "math/rns_kernels.h"
#include "scheme/errors.h"

namespace helib {
namespace {

// Basis conversions compute several target rows per pass over their inputs: a block of
// kConvertBlock coefficients of the s input rows (s x 4 KiB) stays in L1 while every target row
// of the group takes its share, instead of the inputs streaming from L3 once per target row
// (which made the conversions memory-bound). kRowGroup target rows form a group.
constexpr size_t kConvertBlock = 512;
constexpr size_t kRowGroup = 6;
// Key switches lift their digits to this many rows of the extended basis per pass (RowLifter).
constexpr size_t kLiftGroup = 3;

// outs[g] = sum_a in[a] * w[g][a] mod the prime with index prime_of[g], for every g.
void convert_rows(const Context& ctx, const std::vector<const double*>& in, const std::vector<const u64*>& w,
                  const std::vector<size_t>& prime_of, const std::vector<u64*>& outs) {
    const size_t n = ctx.n(), s = in.size(), block = outs.size() == 1 ? n : std::min(n, kConvertBlock);
    std::vector<const double*> in_block(s);
    for (size_t b0 = 0; b0 < n; b0 += block) {
        for (size_t a = 0; a < s; ++a) in_block[a] = in[a] + b0;
        for (size_t g = 0; g < outs.size(); ++g)
            row_dot_signed(outs[g] + b0, in_block.data(), w[g], s, block, ctx.ntt(prime_of[g]).barrett(),
                           ctx.simd());
    }
}

// Fast basis extension of one digit (chain primes [b, e)) to other primes, with the digit's
// residues read centered in [-q_a/2, q_a/2]: x = sum_a [c_a (Q_S/q_a)^-1]_{q_a} (Q_S/q_a).
struct DigitLift {
    size_t b = 0, e = 0, targets = 0;
    std::vector<u64> q_in;       // the digit's primes
    std::vector<u64> punct_mod;  // (Q_S/q_a) mod target r, at [r * s + a]
    Reals centered;              // [c_a (Q_S/q_a)^-1]_{q_a}, centered, row a at [a * n]
    std::vector<const double*> rows;

    DigitLift(const Context& ctx, size_t b_, size_t e_, const Basis& ext) : b(b_), e(e_), targets(ext.size()) {
        const size_t s = e - b;
        for (size_t a = 0; a < s; ++a) q_in.push_back(ctx.prime(b + a));
        punct_mod.resize(s * targets);
        for (size_t r = 0; r < targets; ++r) {
            const u64 qr = ctx.prime(ext[r]);
            for (size_t a = 0; a < s; ++a) {
                u64 pr = 1;
                for (size_t a2 = 0; a2 < s; ++a2)
                    if (a2 != a) pr = mul_mod(pr, q_in[a2] % qr, qr);
                punct_mod[r * s + a] = pr;
            }
        }
    }

    // The digit's rows of c (NTT form) in coefficient form, scaled by (Q_S/q_a)^-1 mod q_a and
    // centered, into `centered`; `scratch` holds one row.
    void prepare(const Context& ctx, const RnsPoly& c, Words& scratch) {
        const size_t s = e - b, n = ctx.n();
        centered.resize(s * n);
        rows.resize(s);
        for (size_t a = 0; a < s; ++a) {
            std::copy(c.row(b + a), c.row(b + a) + n, scratch.begin());
            ctx.ntt(b + a).inverse(scratch.data());
            const u64 qa = q_in[a];
            u64 prod = 1;
            for (size_t a2 = 0; a2 < s; ++a2)
                if (a2 != a) prod = mul_mod(prod, q_in[a2] % qa, qa);
            rows[a] = centered.data() + a * n;
            row_mul_const_centered(centered.data() + a * n, scratch.data(), inv_mod(prod, qa), n,
                                   ctx.ntt(b + a).barrett(), ctx.simd());
        }
    }

    // The digit modulo the target primes ext[r] (r in `targets_r`, prime indices `primes`), in
    // coefficient form, into outs.
    void extend(const Context& ctx, const std::vector<size_t>& targets_r, const std::vector<size_t>& primes,
                const std::vector<u64*>& outs) const {
        const size_t s = e - b;
        std::vector<const u64*> w(targets_r.size());
        for (size_t g = 0; g < targets_r.size(); ++g) w[g] = punct_mod.data() + targets_r[g] * s;
        convert_rows(ctx, rows, w, primes, outs);
    }

    bool holds(size_t prime_index) const { return prime_index >= b && prime_index < e; }
};

// Digits lifted to a few consecutive rows of the extended basis at once, in NTT form: one
// pass over each digit's residues serves the group's rows. The conversions are memory-bound
// (a digit's rows are read again for every target row), so the group cuts their reads; three
// rows measured fastest (a rotation at N = 65536: 0.92 of the time of one row per pass).
class RowLifter {
public:
    RowLifter(const Context& ctx, const std::vector<DigitLift>& lifts, const Basis& ext, const RnsPoly& c)
        : ctx_(ctx), lifts_(lifts), ext_(ext), c_(c) {
        for (size_t g = 0; g < kLiftGroup; ++g) lifted_.push_back(word_buffers(lifts.size(), ctx.n()));
    }

    // Lifts rows first .. first + count - 1 (count <= kLiftGroup).
    void lift(size_t first, size_t count) {
        first_ = first;
        count_ = count;
        for (size_t d = 0; d < lifts_.size(); ++d) {
            targets_.clear();
            primes_.clear();
            outs_.clear();
            for (size_t g = 0; g < count; ++g) {
                const size_t pg = ext_[first + g];
                if (lifts_[d].holds(pg)) continue;
                targets_.push_back(first + g);
                primes_.push_back(pg);
                outs_.push_back(lifted_[g][d].data());
            }
            if (targets_.empty()) continue;
            lifts_[d].extend(ctx_, targets_, primes_, outs_);
            for (size_t t = 0; t < outs_.size(); ++t) ctx_.ntt(primes_[t]).forward(outs_[t]);
        }
    }

    bool holds(size_t r) const { return r >= first_ && r < first_ + count_; }

    // Digit d on row r (a held row): c's residue as it is on the digit's own primes.
    const u64* digit(size_t r, size_t d) const {
        const size_t pi = ext_[r];
        return lifts_[d].holds(pi) ? c_.row(pi) : lifted_[r - first_][d].data();
    }

private:
    const Context& ctx_;
    const std::vector<DigitLift>& lifts_;
    const Basis& ext_;
    const RnsPoly& c_;
    std::vector<std::vector<Words>> lifted_;  // [g][d]: digit d on row first_ + g
    size_t first_ = 0, count_ = 0;
    std::vector<size_t> targets_, primes_;
    std::vector<u64*> outs_;
};

// o0 = sum_d x[d] * key.b[digit_of[d]], o1 = sum_d x[d] * key.a[digit_of[d]] on the row of
// prime pi. kb and ka are scratch of digit_of.size() entries (no allocation per row).
void key_product_row(const Context& ctx, const KeySwitchKey& key, const std::vector<size_t>& digit_of,
                     size_t pi, const std::vector<const u64*>& x, std::vector<const u64*>& kb,
                     std::vector<const u64*>& ka, u64* o0, u64* o1) {
    const size_t terms = digit_of.size();
    const size_t row = key_row(ctx, key, pi);
    for (size_t d = 0; d < terms; ++d) {
        kb[d] = key.b[digit_of[d]].row(row);
        ka[d] = key.a[digit_of[d]].row(row);
    }
    row_dot2(o0, o1, x.data(), kb.data(), ka.data(), terms, ctx.n(), ctx.ntt(pi).barrett(), ctx.simd());
}

// z_k = [acc * p^-1 * (P/p_k)^-1]_{p_k}, centered, from acc's special rows (NTT form, used up),
// row k of z at [k * n]; then x = sum_k z_k (P/p_k) = acc p^-1 mod P, which mod_down converts
// straight to p x / P mod q_i (weights t p_k^-1, Context::moddown_weight).
void special_residues(const Context& ctx, const SwitchBasis& basis, RnsPoly& special, Reals& z,
                      std::vector<const double*>& z_rows) {
    const size_t n = ctx.n(), K = basis.special.size();
    z.resize(K * n);
    z_rows.resize(K);
    for (size_t k = 0; k < K; ++k) {
        const size_t si = basis.special[k];
        u64* row = special.row(k);
        ctx.ntt(si).inverse(row);
        z_rows[k] = z.data() + k * n;
        row_mul_const_centered(z.data() + k * n, row, basis.z_const[k], n, ctx.ntt(si).barrett(), ctx.simd());
    }
}

// The switch basis of `key`, checked against the level a key switch runs at.
const SwitchBasis& basis_for(const Context& ctx, const KeySwitchKey& key, size_t level) {
    check_key_level(ctx, key, level);
    return ctx.switch_basis(key.derived);
}

// Row i of the result, acc/P - p x/P (+ plus), as acc - x (+ plus): the keys' chain rows carry
// the P^-1 (keys.h), and x's buffer holds p x/P, the conversion weights carrying the p P^-1
// (Context::moddown_weight). Permuted when perm is not null (then x's buffer holds the
// unpermuted row for the gather).
void finish_row(const Context& ctx, size_t i, const u64* acc, u64* x, const RnsPoly* plus,
                const std::vector<uint32_t>* perm, u64* out) {
    u64* dst = perm != nullptr ? x : out;
    row_sub_add(dst, acc, x, plus != nullptr ? plus->row(i) : nullptr, ctx.n(), ctx.ntt(i).barrett(), ctx.simd());
    if (perm != nullptr) permute_row(*perm, x, out, ctx.simd());
}

}  // namespace

namespace {

// The mod-down of `parts` (1 or 2) accumulators, as mod_down describes it for two: rows(r, o)
// writes row r of accumulator j into o[j]; plus[j] (when not null) is added to part j.
void mod_down_parts(const Context& ctx, const SwitchBasis& basis, size_t level, size_t parts,
                    const std::function<void(size_t r, u64* const* o)>& rows, RnsPoly* const* out,
                    const RnsPoly* const* plus, const std::vector<uint32_t>* perm) {
    const size_t n = ctx.n(), K = basis.special.size();
    // The special rows first: the corrections of every chain row start from them.
    std::vector<RnsPoly> special;
    for (size_t j = 0; j < parts; ++j) special.push_back(RnsPoly::uninit(K, n));
    std::vector<u64*> o(parts);
    for (size_t k = 0; k < K; ++k) {
        for (size_t j = 0; j < parts; ++j) o[j] = special[j].row(k);
        rows(level + k, o.data());
    }
    std::vector<Reals> z(parts);
    std::vector<std::vector<const double*>> z_rows(parts);
    for (size_t j = 0; j < parts; ++j) {
        special_residues(ctx, basis, special[j], z[j], z_rows[j]);
        *out[j] = RnsPoly::uninit(level, n);
    }
    // The corrections p x / P mod q_i for a group of chain rows at a time; then each chain row of the
    // accumulators is produced and finished while it is still in cache.
    const size_t group = std::min(level, kRowGroup);
    std::vector<std::vector<Words>> x(parts);
    for (size_t j = 0; j < parts; ++j) x[j] = word_buffers(group, n);
    std::vector<Words> acc = word_buffers(parts, n);
    std::vector<std::vector<u64>> w_rows(group, std::vector<u64>(K));
    std::vector<const u64*> w;
    std::vector<size_t> primes;
    std::vector<u64*> outs;
    for (size_t i0 = 0; i0 < level; i0 += group) {
        const size_t count = std::min(group, level - i0);
        w.resize(count);
        primes.resize(count);
        outs.resize(count);
        for (size_t g = 0; g < count; ++g) {
            for (size_t k = 0; k < K; ++k) w_rows[g][k] = basis.weight[k][i0 + g];
            w[g] = w_rows[g].data();
            primes[g] = i0 + g;
        }
        for (size_t j = 0; j < parts; ++j) {
            for (size_t g = 0; g < count; ++g) outs[g] = x[j][g].data();
            convert_rows(ctx, z_rows[j], w, primes, outs);
        }
        for (size_t g = 0; g < count; ++g) {
            const size_t i = i0 + g;
            for (size_t j = 0; j < parts; ++j) {
                ctx.ntt(i).forward(x[j][g].data());
                o[j] = acc[j].data();
            }
            rows(i, o.data());
            for (size_t j = 0; j < parts; ++j)
                finish_row(ctx, i, acc[j].data(), x[j][g].data(), plus[j], perm, out[j]->row(i));
        }
    }
}

}  // namespace

void mod_down(const Context& ctx, const SwitchBasis& basis, size_t level, const AccumulatorRows& rows,
              RnsPoly& out0, RnsPoly& out1, Epilogue finish) {
    RnsPoly* out[2] = {&out0, &out1};
    const RnsPoly* plus[2] = {finish.plus0, finish.plus1};
    mod_down_parts(
        ctx, basis, level, 2, [&](size_t r, u64* const* o) { rows(r, o[0], o[1]); }, out, plus, finish.perm);
}

void mod_down_one(const Context& ctx, const SwitchBasis& basis, size_t level, const RnsPoly& acc, RnsPoly& out) {
    const size_t n = ctx.n();
    RnsPoly* outs[1] = {&out};
    const RnsPoly* plus[1] = {nullptr};
    mod_down_parts(
        ctx, basis, level, 1, [&](size_t r, u64* const* o) { std::copy(acc.row(r), acc.row(r) + n, o[0]); }, outs,
        plus, nullptr);
}

struct StreamedKeyProducts::Impl {
    const Context& ctx;
    const KeySwitchKey& key;
    const RnsPoly& c;
    const SwitchBasis& basis;
    Basis ext;
    size_t level;
    std::vector<DigitLift> lifts;
    std::vector<size_t> digit_of;
    std::unique_ptr<RowLifter> lifter;
    std::vector<const u64*> x, kb, ka;
    Impl(const Context& ctx_, const KeySwitchKey& key_, const RnsPoly& c_, size_t level_)
        : ctx(ctx_), key(key_), c(c_), basis(basis_for(ctx_, key_, level_)),
          ext(extended_basis(level_, basis.special)), level(level_) {
        Words scratch(ctx.n());
        for (size_t j = 0; j < ctx.num_digits(); ++j) {
            const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
            if (b >= e) continue;
            lifts.emplace_back(ctx, b, e, ext);
            lifts.back().prepare(ctx, c, scratch);
            digit_of.push_back(j);
        }
        lifter = std::make_unique<RowLifter>(ctx, lifts, ext, c);
        x.resize(lifts.size());
        kb.resize(lifts.size());
        ka.resize(lifts.size());
    }
};

StreamedKeyProducts::StreamedKeyProducts(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level)
    : impl_(std::make_unique<Impl>(ctx, key, c, level)) {}

StreamedKeyProducts::~StreamedKeyProducts() = default;

const Basis& StreamedKeyProducts::extended() const { return impl_->ext; }

const SwitchBasis& StreamedKeyProducts::basis() const { return impl_->basis; }

void StreamedKeyProducts::row(size_t r, u64* o0, u64* o1, const u64* plus0) {
    Impl& m = *impl_;
    const size_t pi = m.ext[r];
    if (!m.lifter->holds(r)) {
        // Rows come in order (mod_down: the special rows, then the chain rows): lift the next
        // few with this one.
        size_t count = 1;
        while (count < kLiftGroup && r + count < m.ext.size() && r + count != m.level) ++count;
        m.lifter->lift(r, count);
    }
    for (size_t d = 0; d < m.lifts.size(); ++d) m.x[d] = m.lifter->digit(r, d);
    const size_t row = key_row(m.ctx, m.key, pi);
    for (size_t d = 0; d < m.lifts.size(); ++d) {
        m.kb[d] = m.key.b[m.digit_of[d]].row(row);
        m.ka[d] = m.key.a[m.digit_of[d]].row(row);
    }
    row_dot2(o0, o1, m.x.data(), m.kb.data(), m.ka.data(), m.lifts.size(), m.ctx.n(), m.ctx.ntt(pi).barrett(),
             m.ctx.simd(), plus0);
}

void key_switch(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level,
                RnsPoly& out0, RnsPoly& out1, Epilogue finish) {
    // A few rows of the extended basis at a time (RowLifter): lift each digit to their primes,
    // NTT, and take the inner products with the key, so each lifted row is still in cache for
    // its NTT and product. (Six rows at a time, as the mod-down groups them, cut the digit's
    // reads further, but then the lifted rows reach their NTTs from further out, which
    // measured slower.)
    StreamedKeyProducts products(ctx, key, c, level);
    mod_down(
        ctx, products.basis(), level, [&](size_t r, u64* o0, u64* o1) { products.row(r, o0, o1); }, out0, out1,
        finish);
}

struct SwitchBatch::Impl {
    const Context& ctx;
    std::vector<const KeySwitchKey*> keys;
    const RnsPoly& c;
    size_t level;
    const SwitchBasis* basis = nullptr;
    Basis ext;
    std::vector<DigitLift> lifts;
    std::vector<size_t> digit_of;
    std::vector<RnsPoly> acc0, acc1;  // per key, over the extended basis
    Impl(const Context& ctx_, std::vector<const KeySwitchKey*> keys_, const RnsPoly& c_, size_t level_)
        : ctx(ctx_), keys(std::move(keys_)), c(c_), level(level_) {}
};

SwitchBatch::SwitchBatch(const Context& ctx, std::vector<const KeySwitchKey*> keys, const RnsPoly& c, size_t level)
    : impl_(std::make_unique<Impl>(ctx, std::move(keys), c, level)) {
    Impl& m = *impl_;
    if (m.keys.empty()) throw InvalidArgument("a batch of key switches needs at least one key");
    for (const KeySwitchKey* key : m.keys) {
        if (key->derived != m.keys[0]->derived)
            throw InvalidArgument("a batch of key switches mixes derived and ordinary keys");
        m.basis = &basis_for(ctx, *key, level);
    }
    m.ext = extended_basis(level, m.basis->special);
    Words scratch(ctx.n());
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
        if (b >= e) continue;
        m.lifts.emplace_back(ctx, b, e, m.ext);
        m.lifts.back().prepare(ctx, c, scratch);
        m.digit_of.push_back(j);
    }
    for (size_t k = 0; k < m.keys.size(); ++k) {
        m.acc0.push_back(RnsPoly::uninit(m.ext.size(), ctx.n()));
        m.acc1.push_back(RnsPoly::uninit(m.ext.size(), ctx.n()));
    }
}

SwitchBatch::~SwitchBatch() = default;

size_t SwitchBatch::size() const { return impl_->keys.size(); }

void SwitchBatch::lift_rows(size_t part, size_t parts) {
    Impl& m = *impl_;
    if (parts == 0 || part >= parts) throw InvalidArgument("a part of a key-switch batch out of range");
    const size_t rows = m.ext.size(), terms = m.lifts.size();
    RowLifter lifter(m.ctx, m.lifts, m.ext, m.c);
    std::vector<const u64*> x(terms), kb(terms), ka(terms);
    const size_t end = (part + 1) * rows / parts;
    for (size_t r0 = part * rows / parts; r0 < end; r0 += kLiftGroup) {
        const size_t count = std::min(kLiftGroup, end - r0);
        lifter.lift(r0, count);
        for (size_t r = r0; r < r0 + count; ++r) {
            for (size_t d = 0; d < terms; ++d) x[d] = lifter.digit(r, d);
            for (size_t k = 0; k < m.keys.size(); ++k)
                key_product_row(m.ctx, *m.keys[k], m.digit_of, m.ext[r], x, kb, ka, m.acc0[k].row(r),
                                m.acc1[k].row(r));
        }
    }
}

void SwitchBatch::finish(size_t k, RnsPoly& out0, RnsPoly& out1, Epilogue epilogue) const {
    const Impl& m = *impl_;
    if (k >= m.keys.size()) throw InvalidArgument("a key of a key-switch batch out of range");
    const size_t n = m.ctx.n();
    auto rows = [&](size_t r, u64* o0, u64* o1) {
        std::copy(m.acc0[k].row(r), m.acc0[k].row(r) + n, o0);
        std::copy(m.acc1[k].row(r), m.acc1[k].row(r) + n, o1);
    };
    mod_down(m.ctx, *m.basis, m.level, rows, out0, out1, epilogue);
}

Decomposition decompose(const Context& ctx, const RnsPoly& c, size_t level, bool derived) {
    const size_t n = ctx.n();
    const Basis ext = extended_basis(level, ctx.switch_basis(derived).special);
    Words scratch(n);
    Decomposition d;
    d.level = level;
    d.derived = derived;
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
        if (b >= e) continue;
        DigitLift lift(ctx, b, e, ext);
        lift.prepare(ctx, c, scratch);
        RnsPoly digit = RnsPoly::uninit(ext.size(), n);
        std::vector<size_t> targets_r, primes;
        std::vector<u64*> outs;
        for (size_t r = 0; r < ext.size(); ++r) {
            const size_t pi = ext[r];
            if (lift.holds(pi)) {
                std::copy(c.row(pi), c.row(pi) + n, digit.row(r));
            } else {
                targets_r.push_back(r);
                primes.push_back(pi);
                outs.push_back(digit.row(r));
            }
        }
        lift.extend(ctx, targets_r, primes, outs);
        for (size_t g = 0; g < outs.size(); ++g) ctx.ntt(primes[g]).forward(outs[g]);
        d.digit_of.push_back(j);
        d.digits.push_back(std::move(digit));
    }
    return d;
}

void apply_switch_key(const Context& ctx, const KeySwitchKey& key, const Decomposition& d, RnsPoly& out0,
                      RnsPoly& out1, Epilogue finish) {
    const size_t level = d.level, terms = d.digits.size();
    if (key.derived != d.derived)
        throw InvalidArgument("a decomposition for one kind of key-switching key used with the other");
    const SwitchBasis& basis = basis_for(ctx, key, level);
    const Basis ext = extended_basis(level, basis.special);
    std::vector<const u64*> x(terms), kb(terms), ka(terms);
    auto product_row = [&](size_t r, u64* o0, u64* o1) {
        for (size_t i = 0; i < terms; ++i) x[i] = d.digits[i].row(r);
        key_product_row(ctx, key, d.digit_of, ext[r], x, kb, ka, o0, o1);
    };
    mod_down(ctx, basis, level, product_row, out0, out1, finish);
}

}  // namespace helib
