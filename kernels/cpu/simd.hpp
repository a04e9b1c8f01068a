// The explicit vectors of the CPU backend's register-blocked kernels, as GCC vector types: one
// machine register of T where that register holds 8 lanes or more (AVX-512: 16 fp32 or 8 fp64;
// AVX2: 8 fp32), else 8 lanes of T spread over 2 or 4 registers by the compiler (AVX2's fp64, a
// portable build's SSE2). 8 lanes is the floor because the x neighbours are lane shifts of one
// vector into the next, up to the largest stencil radius (8, at order 16). The lanes compute
// the same values whatever the width; only the speed differs.
//
// Why explicit vectors instead of `omp simd` loops: GCC's cost model for -march=native on AMD
// cores prefers 256-bit vectors, and the kernels need things a loop vectoriser does not do by
// itself: the x neighbours of a vector built from the aligned vectors either side by lane shifts
// (one load a vector instead of 2R + 1 unaligned ones), and the z neighbours kept in registers
// across the planes a pass updates together.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#ifndef SEISFD_CPU_INLINE
#define SEISFD_CPU_INLINE inline __attribute__((always_inline))
#endif
// For the lambdas given to static_for: GCC does not always inline them by itself, and a call
// per lane shift or per plane spills the register queue to memory.
#define SEISFD_UNROLLED __attribute__((always_inline))

namespace seisfd::cpu {

// The widest vector register of the instruction set the build targets.
#if defined(__AVX512F__)
inline constexpr int kRegisterBytes = 64;
#elif defined(__AVX__)
inline constexpr int kRegisterBytes = 32;
#else
inline constexpr int kRegisterBytes = 16;
#endif
// The largest stencil radius: the fewest lanes a vector may have (Simd::window).
inline constexpr int kMinLanes = 8;
template <class T>
inline constexpr int kVectorBytes = std::max(kRegisterBytes,
                                             static_cast<int>(sizeof(T)) * kMinLanes);

// GCC takes vector_size only on a concrete element type, not on a template parameter.
typedef float VecF32 __attribute__((vector_size(kVectorBytes<float>)));
typedef double VecF64 __attribute__((vector_size(kVectorBytes<double>)));
// The same vectors at any element-aligned address (and aliasing the arrays' T): what loads and
// stores go through. A memcpy into a VecF32 compiled, in places, to a byte-vector load stored to
// the stack and loaded back as floats (a store-forwarding round trip per load; tti/oN/simd's
// pass 1 did it for every z neighbour).
typedef float VecF32u __attribute__((vector_size(kVectorBytes<float>), aligned(4), may_alias));
typedef double VecF64u __attribute__((vector_size(kVectorBytes<double>), aligned(8), may_alias));
template <class T>
struct VecOf;
template <>
struct VecOf<float> {
  using type = VecF32;
  using unaligned = VecF32u;
};
template <>
struct VecOf<double> {
  using type = VecF64;
  using unaligned = VecF64u;
};

// fn(std::integral_constant<int, I>{}) for I = B..E-1, unrolled: I is a constant expression.
template <int B, int E, class F>
SEISFD_CPU_INLINE void static_for(F&& fn) {
  if constexpr (B < E) {
    fn(std::integral_constant<int, B>{});
    static_for<B + 1, E>(fn);
  }
}

template <class T>
struct Simd {
  using V = typename VecOf<T>::type;
  static constexpr int kBytes = kVectorBytes<T>;
  static constexpr int kLanes = kBytes / static_cast<int>(sizeof(T));
  static_assert(kLanes >= kMinLanes);

  using U = typename VecOf<T>::unaligned;
  static SEISFD_CPU_INLINE V load(const T* p) { return *reinterpret_cast<const U*>(p); }
  static SEISFD_CPU_INLINE void store(T* p, V v) { *reinterpret_cast<U*>(p) = v; }
  static SEISFD_CPU_INLINE V broadcast(T a) { return V{} + a; }

  // Lanes [lo, hi) of v to p[lo..hi); the other lanes' memory is neither read nor written (a
  // neighbouring row's cells may belong to another thread).
  static SEISFD_CPU_INLINE void store_lanes(T* p, V v, int lo, int hi) {
#if defined(__AVX512F__)
    static_assert(kBytes == 64);
    const unsigned m = ((hi >= 32 ? ~0u : (1u << hi) - 1u)) & ~((1u << lo) - 1u);
    if constexpr (sizeof(T) == 4)
      _mm512_mask_storeu_ps(p, static_cast<__mmask16>(m), reinterpret_cast<__m512>(v));
    else
      _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), reinterpret_cast<__m512d>(v));
#elif defined(__AVX2__)
    // AVX's masked store of 32-bit lanes, a 32-byte register at a time (an fp64 lane is two of
    // them); not a loop, which GCC turns into a call to memcpy whose caller-saved registers push
    // the kernel loop's vectors to the stack.
    constexpr int kPer = static_cast<int>(sizeof(T)) / 4;  // 32-bit lanes a T
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    static_for<0, kBytes / 32>([&](auto h) SEISFD_UNROLLED {
      const __m256i at = _mm256_add_epi32(lane, _mm256_set1_epi32(h * 8));
      const __m256i m = _mm256_and_si256(_mm256_cmpgt_epi32(at, _mm256_set1_epi32(lo * kPer - 1)),
                                         _mm256_cmpgt_epi32(_mm256_set1_epi32(hi * kPer), at));
      __m256 part;
      std::memcpy(&part, reinterpret_cast<const char*>(&v) + h * 32, 32);
      _mm256_maskstore_ps(reinterpret_cast<float*>(p) + h * 8, m, part);
    });
#else
    for (int l = lo; l < hi; ++l) p[l] = v[l];
#endif
  }

  // The lanes of the vector of cells x .. x + kLanes - 1 that fall in [xa, xb), stored at p (the
  // address of cell x): one whole store when all of them do (a row's interior).
  static SEISFD_CPU_INLINE void store_range(T* p, V v, int x, int xa, int xb) {
    if (x >= xa && x + kLanes <= xb)
      store(p, v);
    else
      store_lanes(p, v, std::max(0, xa - x), std::min(kLanes, xb - x));
  }

  // The vector that starts K lanes into lo and continues into hi (0 <= K <= kLanes): with lo,
  // hi the vectors at x and x + kLanes, the one at x + K.
  template <int K>
  static SEISFD_CPU_INLINE V window(V lo, V hi) {
    if constexpr (K == 0)
      return lo;
    else if constexpr (K == kLanes)
      return hi;
    else
      return window_impl<K>(lo, hi, std::make_integer_sequence<int, kLanes>{});
  }

 private:
  template <int K, int... I>
  static SEISFD_CPU_INLINE V window_impl(V lo, V hi, std::integer_sequence<int, I...>) {
    return __builtin_shufflevector(lo, hi, (K + I)...);
  }
};

// v, opaque to the optimiser: its value is rounded to T here, and no later operation is fused
// with (or folded into) the operations that made it. In its register where one register holds
// the vector; a vector spread over several registers, which no asm operand names, goes through
// memory (AVX2's fp64, SSE2: the slower paths).
template <class V>
SEISFD_CPU_INLINE void opaque(V& v) {
  if constexpr (sizeof(V) <= kRegisterBytes)
    asm("" : "+v"(v));
  else
    asm("" : "+m"(v));
}

}  // namespace seisfd::cpu
