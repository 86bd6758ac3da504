// Byte format of contexts, keys and ciphertexts, so that a data owner can ship ciphertexts and
// evaluation keys to a server and get results back.
//
// Every object starts with a 16-byte header: the magic "BPHE", the format version (u16), the
// object kind (u16) and the context fingerprint (u64). All integers are little-endian; residue
// rows are N u64 words per prime, in the engine's NTT form. What follows the header is listed
// with each object's save() (ctxt.h, keys.h, galois.h, and the context below).
//
// Reading validates everything before it is used: magic, version, kind, fingerprint, every
// count against the context, every residue below its prime, every secret coefficient in
// {-1, 0, 1}, no trailing bytes. Anything else is InvalidArgument ("corrupt data: ..."), or
// Mismatch for well-formed data of another context or secret key. Keys and ciphertexts are
// allocated only after the data was found long enough to fill them. A context is different: a
// few bytes describe it, and building it takes what the parameters take (up to GiBs of tables
// at the largest ring), so a server that serves fixed parameters builds its own context and
// lets the fingerprints check what it reads against it.
//
// Bump kFormatVersion whenever the bytes' meaning changes, including the seed expansion of the
// "a" parts (ChaCha12 and the rejection sampler, random.h) and the choice of primes or roots,
// which the fingerprint covers only through the primes and roots it can see.
//
// The uniform "a" parts of public and key-switching keys are not stored: their 32-byte seed is,
// and reading expands it again (keys.h), which halves the size of the keys on the wire. The same
// holds for the c1 = a of a fresh secret-key encryption (Ctxt::encrypt_symmetric).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

#include "scheme/context.h"

namespace helib {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the byte format assumes a little-endian host");

constexpr uint16_t kFormatVersion = 1;

// In a Galois-key entry's element word, the levels of a key that serves fewer than the top
// (Galois elements stay below 2^40).
constexpr unsigned kLevelsShift = 48;

enum class ObjectKind : uint16_t {
    context = 1,
    secret_key = 2,
    public_key = 3,
    galois_keys = 4,
    ciphertext = 5,
    // A fresh secret-key encryption: c1 is uniform, so its seed stands in for its rows.
    seeded_ciphertext = 6,
    // Master Galois keys and the identity key in derived form (master_keys.h).
    master_keys = 7,
    // A public key without its relinearization key: for encryption, and for a server that
    // multiplies no two ciphertexts.
    encryption_key = 8,
    // An online encryption (an encryption of zero made ahead of time, plus a message added
    // without a transform): the ciphertext's fields, c0's rows in coefficient form, c1's rows
    // in NTT form. Reading transforms c0 (coefficient_form.h).
    coefficient_ciphertext = 9,
    // One party's share of a joint secret key (keys.h: SecKey::share).
    key_share = 10,
    // One party's part of a joint decryption (threshold.h).
    decryption_share = 11,
    // A joint public key with its relinearization key, whose a parts travel in full
    // (threshold.h): header, id, seed, b's rows, the digit count (u32), then per digit the
    // key's b rows and a rows.
    joint_public_key = 12,
    // One party's message in a round of the joint relinearization key, or a round's sum.
    relin_share = 13,
    // One party's share of the joint public key, or of the joint Galois keys: laid out as an
    // encryption key and as Galois keys, read only where shares are combined.
    public_key_share = 14,
    galois_key_share = 15,
    // One party's share of joint master keys: laid out as master keys.
    master_key_share = 16,
};
constexpr uint16_t kLastObjectKind = static_cast<uint16_t>(ObjectKind::master_key_share);

// (Inside Writer and Reader, u64 names the method, so the types are spelled uint64_t.)

// Appends to a caller's buffer of `capacity` bytes, or with no buffer only counts, so that the
// size query and the write run the same code. Never writes past the capacity.
class Writer {
public:
    Writer() = default;
    Writer(uint8_t* out, size_t capacity) : out_(out), capacity_(capacity) {}
    void bytes(const void* p, size_t len) {
        if (out_ != nullptr && len > 0) {
            if (len > capacity_ - pos_) throw std::logic_error("serialization wrote more than it counted");
            std::memcpy(out_ + pos_, p, len);
        }
        pos_ += len;
    }
    void u16(uint16_t v) { bytes(&v, sizeof v); }
    void u32(uint32_t v) { bytes(&v, sizeof v); }
    void u64(uint64_t v) { bytes(&v, sizeof v); }
    void f64(double v) { bytes(&v, sizeof v); }
    void words(const uint64_t* p, size_t count) { bytes(p, count * sizeof(uint64_t)); }
    // Whether this writer only counts (no buffer): expensive conversions can then be skipped.
    bool counting() const { return out_ == nullptr; }
    size_t size() const { return pos_; }

private:
    uint8_t* out_ = nullptr;
    size_t capacity_ = 0;
    size_t pos_ = 0;
};

// Reads from a byte string, throwing InvalidArgument("corrupt data: ...") on anything short or
// out of range.
class Reader {
public:
    Reader(const uint8_t* data, size_t len) : data_(data), len_(len) {}
    void bytes(void* out, size_t len, const char* what);
    uint16_t u16(const char* what) { return scalar<uint16_t>(what); }
    uint32_t u32(const char* what) { return scalar<uint32_t>(what); }
    uint64_t u64(const char* what) { return scalar<uint64_t>(what); }
    double f64(const char* what) { return scalar<double>(what); }
    // count words, each below `bound`.
    void words_below(uint64_t* out, size_t count, uint64_t bound, const char* what);
    // Throws unless at least `len` bytes are left (before allocating for them).
    void require(size_t len, const char* what) const;
    // Throws unless every byte was read.
    void expect_end() const;
    size_t remaining() const { return len_ - pos_; }
    size_t position() const { return pos_; }

private:
    template <class T>
    T scalar(const char* what) {
        T v;
        bytes(&v, sizeof v, what);
        return v;
    }

    const uint8_t* data_;
    size_t len_;
    size_t pos_ = 0;
};

[[noreturn]] void corrupt(const std::string& what);

// A ciphertext's fields after its header (ctxt.h, save()), checked: the secret key's id (key_id,
// else Mismatch), the level, the noise bound (+inf once beyond the modulus) and the plaintext
// factor in [1, p).
struct CtxtFields {
    uint32_t level = 0;
    double noise = 0;
    NTL::ZZ factor;
};
CtxtFields read_ctxt_fields(Reader& r, const Context& ctx, uint64_t key_id);

// A hash of everything that makes two contexts interchangeable: m, p, every prime, the digits.
// It catches data meant for other parameters (or an engine that picks other primes); it is not
// a MAC and does not authenticate the data.
uint64_t context_fingerprint(const Context& ctx);

// The most bytes that a valid object of `kind` can take under ctx: `count` keys for Galois and
// master keys (at most N), ciphertexts at the top level. A reader compares a file's or a
// message's length with it before reading it whole; the context's own bytes are at most
// kMaxContextBytes.
uint64_t max_serialized_size(const Context& ctx, ObjectKind kind, uint64_t count);
// Header, m, ciphertext bits, digits, limb count, 32 limbs of p, options, parties.
constexpr uint64_t kMaxContextBytes = 16 + 8 + 4 + 4 + 4 + 8 * 32 + 4 + 4;

void write_header(Writer& w, ObjectKind kind, const Context& ctx);
// Checks magic, version and kind; then the fingerprint against ctx (Mismatch if it differs).
void read_header(Reader& r, ObjectKind kind, const Context& ctx);
// The same for an object that may be either of two kinds; returns the one found.
ObjectKind read_header_either(Reader& r, ObjectKind kind, ObjectKind alternative, const Context& ctx);
// The same for an object of any of `kinds` (the first one names what was expected).
ObjectKind read_header_any(Reader& r, std::initializer_list<ObjectKind> kinds, const Context& ctx);

// A context: header, then m (u64), the requested ciphertext bits (u32) and key-switching digits
// (u32), and p as a limb count (u32) and little-endian u64 limbs.
void save_context(Writer& w, const Context& ctx);
// Rebuilds the context (allow_insecure as the caller says, never as the data says) and checks
// that it has the fingerprint the data carries.
std::shared_ptr<const Context> load_context(Reader& r, bool allow_insecure);

}  // namespace helib
