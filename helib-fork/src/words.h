// Word buffers for polynomial rows, without the zero fill when the caller overwrites every word
// next (a key-switching buffer at N = 65536 is 12 MiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace helib {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

    // Value-less construction leaves the word uninitialized.
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <class T, class U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
    return true;
}
template <class T, class U>
bool operator!=(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
    return false;
}

using u64 = uint64_t;
using Words = std::vector<u64, DefaultInitAllocator<u64>>;
// Signed residues held as doubles, the input form of the basis-conversion kernels.
using Reals = std::vector<double, DefaultInitAllocator<double>>;

// `count` buffers of n words each, uninitialized. (std::vector<Words>(count, Words(n)) would
// copy its prototype buffer into every one: 512 KiB each at N = 65536.)
inline std::vector<Words> word_buffers(size_t count, size_t n) {
    std::vector<Words> out(count);
    for (Words& w : out) w.resize(n);
    return out;
}

}  // namespace helib
