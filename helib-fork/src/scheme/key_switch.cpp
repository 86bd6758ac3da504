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

void mod_down(const Context& ctx, const SwitchBasis& basis, size_t level, const AccumulatorRows& rows,
              RnsPoly& out0, RnsPoly& out1, Epilogue finish) {
    const size_t n = ctx.n(), K = basis.special.size();
    // The special rows first: the corrections of every chain row start from them.
    RnsPoly special0 = RnsPoly::uninit(K, n), special1 = RnsPoly::uninit(K, n);
    for (size_t k = 0; k < K; ++k) rows(level + k, special0.row(k), special1.row(k));
    Reals z0, z1;
    std::vector<const double*> z0_rows, z1_rows;
    special_residues(ctx, basis, special0, z0, z0_rows);
    special_residues(ctx, basis, special1, z1, z1_rows);
    out0 = RnsPoly::uninit(level, n);
    out1 = RnsPoly::uninit(level, n);
    // The corrections p x / P mod q_i for a group of chain rows at a time; then each chain row of the
    // accumulators is produced and finished while it is still in cache.
    const size_t group = std::min(level, kRowGroup);
    std::vector<Words> x0 = word_buffers(group, n), x1 = word_buffers(group, n);
    Words acc0(n), acc1(n);
    std::vector<std::vector<u64>> w_rows(group, std::vector<u64>(K));
    for (size_t i0 = 0; i0 < level; i0 += group) {
        const size_t count = std::min(group, level - i0);
        std::vector<const u64*> w(count);
        std::vector<size_t> primes(count);
        std::vector<u64*> outs0(count), outs1(count);
        for (size_t g = 0; g < count; ++g) {
            for (size_t k = 0; k < K; ++k) w_rows[g][k] = basis.weight[k][i0 + g];
            w[g] = w_rows[g].data();
            primes[g] = i0 + g;
            outs0[g] = x0[g].data();
            outs1[g] = x1[g].data();
        }
        convert_rows(ctx, z0_rows, w, primes, outs0);
        convert_rows(ctx, z1_rows, w, primes, outs1);
        for (size_t g = 0; g < count; ++g) {
            const size_t i = i0 + g;
            ctx.ntt(i).forward(x0[g].data());
            ctx.ntt(i).forward(x1[g].data());
            rows(i, acc0.data(), acc1.data());
            finish_row(ctx, i, acc0.data(), x0[g].data(), finish.plus0, finish.perm, out0.row(i));
            finish_row(ctx, i, acc1.data(), x1[g].data(), finish.plus1, finish.perm, out1.row(i));
        }
    }
}

void key_switch(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level,
                RnsPoly& out0, RnsPoly& out1, Epilogue finish) {
    const size_t n = ctx.n();
    const SwitchBasis& basis = basis_for(ctx, key, level);
    const Basis ext = extended_basis(level, basis.special);
    Words scratch(n);
    std::vector<DigitLift> lifts;
    std::vector<size_t> digit_of;
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
        if (b >= e) continue;
        lifts.emplace_back(ctx, b, e, ext);
        lifts.back().prepare(ctx, c, scratch);
        digit_of.push_back(j);
    }

    // One row of the extended basis at a time: lift each digit to this prime, NTT, and take the
    // inner product with the key, so each lifted row is still in cache for its NTT and product.
    // (Grouping target rows as the mod-down does cut the reads of the digit, but then the lifted
    // rows reach their NTTs from further out, which measured slower.)
    std::vector<Words> lifted = word_buffers(lifts.size(), n);
    std::vector<const u64*> x(lifts.size()), kb(lifts.size()), ka(lifts.size());
    auto product_row = [&](size_t r, u64* o0, u64* o1) {
        const size_t pi = ext[r];
        for (size_t d = 0; d < lifts.size(); ++d) {
            if (lifts[d].holds(pi)) {
                x[d] = c.row(pi);  // the digit's own primes: c's residue as it is
            } else {
                lifts[d].extend(ctx, {r}, {pi}, {lifted[d].data()});
                ctx.ntt(pi).forward(lifted[d].data());
                x[d] = lifted[d].data();
            }
        }
        key_product_row(ctx, key, digit_of, pi, x, kb, ka, o0, o1);
    };
    mod_down(ctx, basis, level, product_row, out0, out1, finish);
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
    const size_t rows = m.ext.size(), n = m.ctx.n(), terms = m.lifts.size();
    std::vector<Words> lifted = word_buffers(terms, n);
    std::vector<const u64*> x(terms), kb(terms), ka(terms);
    for (size_t r = part * rows / parts; r < (part + 1) * rows / parts; ++r) {
        const size_t pi = m.ext[r];
        for (size_t d = 0; d < terms; ++d) {
            if (m.lifts[d].holds(pi)) {
                x[d] = m.c.row(pi);
            } else {
                m.lifts[d].extend(m.ctx, {r}, {pi}, {lifted[d].data()});
                m.ctx.ntt(pi).forward(lifted[d].data());
                x[d] = lifted[d].data();
            }
        }
        for (size_t k = 0; k < m.keys.size(); ++k)
            key_product_row(m.ctx, *m.keys[k], m.digit_of, pi, x, kb, ka, m.acc0[k].row(r), m.acc1[k].row(r));
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
