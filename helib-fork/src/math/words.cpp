#include "math/words.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace helib {

void populate_pages(void* p, size_t bytes) noexcept {
    // A failed call changes nothing: the pages then fault in on first touch, as without it.
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older headers lack the name, older kernels refuse it
#endif
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    // The whole pages inside the buffer (madvise takes page-aligned ranges; the partial pages at
    // the ends fault in as usual).
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
    if (end <= begin) return;
    // Recycled heap memory is mapped already, and asking again still walks every page (about
    // 0.14 us each): only buffers whose first or last page is not mapped get the call.
    unsigned char first = 0, last = 0;
    void* first_page = reinterpret_cast<void*>(begin);
    void* last_page = reinterpret_cast<void*>(end - page);
    if (mincore(first_page, page, &first) == 0 && mincore(last_page, page, &last) == 0 && (first & last & 1))
        return;
    (void)madvise(first_page, end - begin, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace helib
