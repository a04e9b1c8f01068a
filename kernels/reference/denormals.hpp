// Denormal floats flushed to zero on the threads that compute. A wave front leaves values far
// below the field's scale behind it, which decay through the denormal range; on x86 each
// operation on a denormal takes a slow path costing many times a normal one (measured: the
// fp32 CPU backend 5x slower on a 161^3 run). Flushing them changes values below 1e-38 (fp32)
// and 1e-308 (fp64) only, far under what any result resolves. The CPU engine enables it on its
// OpenMP threads for the duration of a call (FlushDenormals) and restores each thread's mode.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace seisfd::reference {

// The calling thread's floating-point control word, and the same with flushing on.
inline unsigned fp_mode() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr();
#elif defined(__aarch64__)
  unsigned long v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return static_cast<unsigned>(v);
#else
  return 0;
#endif
}

inline void set_fp_mode(unsigned m) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(m);
#elif defined(__aarch64__)
  const unsigned long v = m;
  __asm__ volatile("msr fpcr, %0" : : "r"(v));
#else
  (void)m;
#endif
}

inline unsigned with_flush(unsigned m) {
#if defined(__x86_64__) || defined(__i386__)
  return m | 0x8040u;  // FTZ (bit 15) and DAZ (bit 6)
#elif defined(__aarch64__)
  return m | (1u << 24);  // FZ
#else
  return m;
#endif
}

// Flushing on every thread of the OpenMP team (and the caller) for this object's lifetime.
class FlushDenormals {
 public:
  FlushDenormals();
  ~FlushDenormals();
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  static constexpr int kMaxThreads = 1024;
  unsigned saved_[kMaxThreads];
  int threads_ = 0;
};

}  // namespace seisfd::reference
