#include "kernels/huge_pages.hpp"

#include <omp.h>

#include <algorithm>

namespace seisfd {

void populate_pages(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // Below this the single thread's first write costs little and a parallel region more.
  constexpr size_t kMin = size_t{32} << 20;
  constexpr uintptr_t kPage = 4096, kHuge = uintptr_t{2} << 20;
  const int threads = omp_get_max_threads();
  if (bytes < kMin || threads < 2) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  // Shares bounded at huge-page boundaries, so that no 2 MB page is faulted by two threads.
  const uintptr_t share = (e - b) / threads;
  const auto bound = [&](int t) {
    return t == 0 ? b : t == threads ? e : std::min(e, (b + t * share + kHuge - 1) & ~(kHuge - 1));
  };
#pragma omp parallel for schedule(static)
  for (int t = 0; t < threads; ++t) {
    const uintptr_t lo = bound(t), hi = bound(t + 1);
    // An error (a kernel older than 5.14: EINVAL) leaves the pages to the first write.
    if (lo < hi) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
  }
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace seisfd
