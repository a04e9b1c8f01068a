// IEEE binary16 on the host: what the fp16 storage of a source wavefield keeps (round to
// nearest even, as the GPU's __float2half_rn), so the CPU engine stores and recalls exactly the
// values the CUDA engine does.
#pragma once
#include <cstdint>
#include <cstring>

namespace seisfd::reference {

inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // a subnormal half (or zero): round(value / 2^-24)
    const int shift = 126 - static_cast<int>(abs >> 23);  // value / 2^-24 = mant / 2^shift
    if (shift > 24) return static_cast<uint16_t>(sign);   // below half the smallest: 0
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t mid = 1u << (shift - 1);
    const uint32_t r = q + (rem > mid || (rem == mid && (q & 1u)) ? 1u : 0u);
    return static_cast<uint16_t>(sign | r);
  }
  const uint32_t e = ((abs >> 23) - 112u) << 10;  // rebias 127 -> 15
  const uint32_t m = (abs >> 13) & 0x3ffu;
  const uint32_t rem = abs & 0x1fffu;
  uint32_t h = e | m;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
  return static_cast<uint16_t>(sign | h);
}

inline float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  uint32_t x;
  if (e == 0) {
    if (m == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int shift = 0;
      uint32_t mm = m;
      while (!(mm & 0x400u)) {
        mm <<= 1;
        ++shift;
      }
      x = sign | ((113u - shift) << 23) | ((mm & 0x3ffu) << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace seisfd::reference
