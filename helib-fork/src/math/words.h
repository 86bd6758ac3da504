// Word buffers for polynomial rows, without the zero fill when the caller overwrites every word
// next (a key-switching buffer at N = 65536 is 12 MiB), and with their pages mapped in one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace helib {

// Asks the kernel to map every page of [p, p + bytes) now, in one call, unless they look mapped
// already (recycled memory), where the OS can (Linux 5.14+); elsewhere, or on failure, nothing
// happens and pages fault in on first touch.
void populate_pages(void* p, size_t bytes) noexcept;

// Buffers of at least this many bytes get populate_pages: fresh memory costs a page fault per
// 4 KiB page on first touch (2.7-5.5 us each on the project's VMs, against 1.2-1.7 us per page
// when mapped in one call), and keys and ciphertexts are GiBs of fresh memory.
constexpr size_t kPopulateBytes = size_t(1) << 20;

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

    T* allocate(size_t count) {
        T* p = std::allocator<T>::allocate(count);
        if (count * sizeof(T) >= kPopulateBytes) populate_pages(p, count * sizeof(T));
        return p;
    }

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
