// The CPU engine's per-cell arrays on transparent huge pages (2 MB) where the operating system
// offers them on request (Linux: /sys/kernel/mm/transparent_hugepage/enabled = madvise, the
// default of many distributions, or always). The z-marching kernels touch 2R + 1 planes of one
// array at strides of a whole plane, and with 4 KB pages each plane's rows are a page walk
// apart; on 2 MB pages the same working set needs a few TLB entries (bench/NOTES.md measures
// what it gives). Advisory only: where huge pages are off, unsupported or not available, the
// arrays are ordinary memory and nothing else changes. SEISFD_HUGE_PAGES=off in the environment
// leaves every array on ordinary pages (to compare, or where huge pages misbehave).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace seisfd {

// Asks for huge pages over the 2 MB-aligned part of [p, p + bytes); call it before the memory is
// first written (a page already touched stays a small page until the kernel collapses it).
inline void advise_huge_pages(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  static const bool off = [] {
    const char* v = std::getenv("SEISFD_HUGE_PAGES");
    return v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
  }();
  if (off) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Has the host's threads fault in the pages of [p, p + bytes) (Linux: MADV_POPULATE_WRITE over
// a share of the range each), for memory about to be written by one thread: the kernel's
// zeroing of fresh pages, most of the cost of a first write, then runs on every core instead
// of one (kernels/huge_pages.cpp). Nothing for small ranges, or where the system has no such
// request.
void populate_pages(const void* p, size_t bytes);
// v becomes n copies of value in storage allocated afresh and advised before it is written.
template <class T>
void assign_huge(std::vector<T>& v, size_t n, const T& value) {
  std::vector<T> fresh;
  fresh.reserve(n);
  advise_huge_pages(fresh.data(), n * sizeof(T));
  populate_pages(fresh.data(), n * sizeof(T));
  fresh.assign(n, value);
  v.swap(fresh);
}

// n zeros in storage advised the same way: a large temporary (a downloaded image, its
// conversions) costs a fault per 2 MB instead of per 4 KB where huge pages are offered.
template <class T>
std::vector<T> huge_vector(size_t n) {
  std::vector<T> v;
  assign_huge(v, n, T(0));
  return v;
}

// v becomes a copy of src (converted to T), the same way.
template <class T, class U>
void assign_huge(std::vector<T>& v, const std::vector<U>& src) {
  std::vector<T> fresh;
  fresh.reserve(src.size());
  advise_huge_pages(fresh.data(), src.size() * sizeof(T));
  populate_pages(fresh.data(), src.size() * sizeof(T));
  fresh.assign(src.begin(), src.end());
  v.swap(fresh);
}

}  // namespace seisfd
