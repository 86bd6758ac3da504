// Zeroing of secret material (secret keys, keystream state) before its memory is released, in a
// way the compiler may not drop as a dead store.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

namespace helib {

// Overwrites `len` bytes at `p` with zeros; the write is kept even when `p` is never read again.
inline void secure_wipe(void* p, size_t len) {
    if (p == nullptr || len == 0) return;
    std::memset(p, 0, len);
    // The empty asm takes p as an input and clobbers memory, so the zeros must be in memory.
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

// Zeroes a vector's elements (its whole capacity's worth of initialized elements).
template <class T, class A>
void secure_wipe(std::vector<T, A>& v) {
    secure_wipe(v.data(), v.size() * sizeof(T));
}

// Wipes a vector when the scope ends, however it ends (a throw included).
template <class V>
class WipeOnExit {
public:
    explicit WipeOnExit(V& v) : v_(v) {}
    WipeOnExit(const WipeOnExit&) = delete;
    WipeOnExit& operator=(const WipeOnExit&) = delete;
    ~WipeOnExit() { secure_wipe(v_); }

private:
    V& v_;
};

}  // namespace helib
