// What every C API entry point shares: the handle types behind the opaque C structs, the one
// catch ladder (`guard`) that turns engine exceptions into status codes plus the thread's last
// error message, and the argument checks. Included only by the capi*.cpp files.
#pragma once

#include <memory>
#include <new>
#include <string>

#include "scheme/ctxt.h"
#include "scheme/errors.h"
#include "scheme/galois.h"
#include "scheme/horner_chain.h"
#include "helib_c.h"
#include "scheme/keys.h"
#include "scheme/master_keys.h"
#include "scheme/ptxt.h"
#include "serialization/serialize.h"

struct helib_context {
    std::shared_ptr<const helib::Context> ctx;
};
struct helib_seckey {
    std::shared_ptr<const helib::SecKey> sk;
};
struct helib_pubkey {
    std::shared_ptr<const helib::PubKey> pk;
};
struct helib_ctxt {
    helib::Ctxt c;
};
struct helib_ptxt {
    std::shared_ptr<const helib::EncodedPtxt> pt;
};
struct helib_galois_keys {
    std::shared_ptr<const helib::GaloisKeys> gk;
};
struct helib_galois_batch {
    helib::GaloisBatch batch;
};
struct helib_horner_chain {
    std::shared_ptr<const helib::GaloisKeys> gk;  // the chain reads its key, so holds it
    helib::HornerChain chain;
};
struct helib_master_keys {
    std::shared_ptr<const helib::MasterKeys> mk;
};
struct helib_sparse_encoder {
    std::shared_ptr<const helib::SparseTables> tables;
};

namespace helib_capi {

// The message behind helib_last_error(), one per thread.
inline thread_local std::string t_last_error;

inline helib_status fail(helib_status code, const char* what) {
    try {
        t_last_error = what;
    } catch (...) {
        // Out of memory while recording the message: the status code still tells the story.
    }
    return code;
}

template <class F>
helib_status guard(F&& body) noexcept {
    try {
        body();
        return HELIB_OK;
    } catch (const helib::InvalidArgument& e) {
        return fail(HELIB_ERR_INVALID_ARGUMENT, e.what());
    } catch (const helib::InsecureParameters& e) {
        return fail(HELIB_ERR_INSECURE_PARAMETERS, e.what());
    } catch (const helib::Mismatch& e) {
        return fail(HELIB_ERR_MISMATCH, e.what());
    } catch (const helib::NoiseBudgetExhausted& e) {
        return fail(HELIB_ERR_NOISE_BUDGET_EXHAUSTED, e.what());
    } catch (const helib::MissingKey& e) {
        return fail(HELIB_ERR_MISSING_KEY, e.what());
    } catch (const helib::LevelError& e) {
        return fail(HELIB_ERR_LEVEL, e.what());
    } catch (const helib::BufferTooSmall& e) {
        return fail(HELIB_ERR_BUFFER_TOO_SMALL, e.what());
    } catch (const std::bad_alloc&) {
        return fail(HELIB_ERR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::length_error& e) {
        return fail(HELIB_ERR_OUT_OF_MEMORY, e.what());
    } catch (const std::invalid_argument& e) {
        return fail(HELIB_ERR_INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
        return fail(HELIB_ERR_INTERNAL, e.what());
    } catch (...) {
        return fail(HELIB_ERR_INTERNAL, "unknown C++ exception");
    }
}

template <class T>
inline void require(const T* ptr, const char* name) {
    if (ptr == nullptr) throw helib::InvalidArgument(std::string(name) + " must not be NULL");
}

// Size-query protocol: out == NULL asks for the size.
inline bool size_query(const void* out, size_t out_len, size_t needed_len, size_t* needed) {
    if (needed) *needed = needed_len;
    if (out == nullptr) {
        if (!needed) throw helib::InvalidArgument("out and needed must not both be NULL");
        return true;
    }
    if (out_len < needed_len)
        throw helib::BufferTooSmall("output buffer holds " + std::to_string(out_len) +
                                    " elements, " + std::to_string(needed_len) + " needed");
    return false;
}

// Runs `save` once to count the bytes, and again into the caller's buffer if it is large enough;
// *needed ends as the number of bytes written.
template <class Save>
void serialize_into(uint8_t* out, size_t out_len, size_t* needed, Save&& save) {
    helib::Writer counter;
    save(counter);
    if (size_query(out, out_len, counter.size(), needed)) return;
    helib::Writer writer(out, out_len);
    save(writer);
    if (writer.size() != counter.size()) throw std::logic_error("serialization wrote other than it counted");
    if (needed) *needed = writer.size();
}

// Reads one whole object with `load`: bytes left over are corrupt data too.
template <class Load>
auto deserialize_from(const uint8_t* data, size_t len, Load&& load) {
    if (len > 0) require(data, "data");
    helib::Reader reader(data, len);
    auto object = load(reader);
    reader.expect_end();
    return object;
}

}  // namespace helib_capi
