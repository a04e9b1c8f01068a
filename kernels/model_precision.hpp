// Compact storage of the update's coefficients (kernel.model_precision, docs/physics.md §4): each
// coefficient array the update reads (kernels/medium.hpp medium_coefficients: (v dt)^2, E, D,
// the axis components) kept as 16-bit codes, decoded to fp32 in registers by the kernels that
// read them, so that a step moves 2 B a cell and array instead of 4. The arithmetic of the
// update stays fp32.
//
// A code q decodes to fmaf(scale, value(q), offset), where value(q) is
//   fp16:    q read as IEEE binary16 (offset 0, scale the power of two that brings the array's
//            largest magnitude into [0.5, 1): the scale changes no rounding, it keeps (v dt)^2 in
//            any units inside binary16's range);
//   bf16:    q read as the high half of a binary32 (offset 0, the same scale);
//   fixed16: q as an unsigned integer 0..65535 (offset the array's minimum, scale (max - min) /
//            65535 over the layout's cells): uniform steps between the extremes, exact where an
//            array is constant.
// Every backend runs the decoded values: the CPU engine and the GPU's fp32 copy of the medium
// hold exactly what the compact kernels decode (both decode with one correctly rounded fmaf),
// so a compact run compares with the CPU run of the same model at the fp32 tolerances, and the
// difference from an fp32 run is the model's rounding alone.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/layout.hpp"
#include "kernels/reference/half.hpp"

namespace seisfd {

enum class ModelPrecision { kFp32, kFp16, kBf16, kFixed16 };

inline constexpr ModelPrecision kAllModelPrecisions[] = {
    ModelPrecision::kFp32, ModelPrecision::kFp16, ModelPrecision::kBf16, ModelPrecision::kFixed16};

inline const char* to_string(ModelPrecision p) {
  switch (p) {
    case ModelPrecision::kFp16:
      return "fp16";
    case ModelPrecision::kBf16:
      return "bf16";
    case ModelPrecision::kFixed16:
      return "fixed16";
    default:
      return "fp32";
  }
}

inline std::optional<ModelPrecision> parse_model_precision(const std::string& s) {
  for (ModelPrecision p : kAllModelPrecisions)
    if (s == to_string(p)) return p;
  return std::nullopt;
}

// Bytes a cell of one coefficient array takes.
inline int model_bytes(ModelPrecision p) {
  return p == ModelPrecision::kFp32 ? 4 : 2;
}

// One coefficient array as codes (layout-sized) and how they decode.
struct CompactArray {
  std::vector<uint16_t> code;
  float scale = 1.0f, offset = 0.0f;
};

namespace model_detail {

inline uint16_t float_to_bf16(float f) {  // round to nearest even (finite values)
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_to_float(uint16_t c) {
  const uint32_t x = static_cast<uint32_t>(c) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace model_detail

// The value a code stands for, before scale and offset.
inline float code_value(ModelPrecision p, uint16_t c) {
  switch (p) {
    case ModelPrecision::kFp16:
      return reference::half_to_float(c);
    case ModelPrecision::kBf16:
      return model_detail::bf16_to_float(c);
    default:
      return static_cast<float>(c);
  }
}

inline float decode(ModelPrecision p, uint16_t c, float scale, float offset) {
  return std::fma(scale, code_value(p, c), offset);
}

// The codes of v (a layout-sized array; the scale and range from the cells x < nx, padding
// clamped into it), each the nearest. p is not kFp32.
//
// Rounded to nearest, a region of equal values (a homogeneous layer) errs alike in every cell:
// its wave speed changes by up to half the relative step, and a wave's phase in proportion to
// the wavelengths it travels. Rounding each cell up or down at random with the probabilities that
// make it unbiased was measured too and is worse (tests/test_model_precision.cpp, 2000 steps:
// fp16 4.3e-2 against 2.4e-2, fixed16 on a smooth medium 3.7e-4 against 2.7e-4): the scattering
// of cell-to-cell noise in the coefficients costs more than the drift it removes.
// {lowest, highest} of v over the layout's cells (not its x padding); {0, 0} where it has none.
inline std::array<float, 2> array_range(const std::vector<float>& v, const Layout& l) {
  float lo = 0, hi = 0;
  bool any = false;
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
    if (i % l.sy >= l.nx) continue;
    lo = any ? std::min(lo, v[i]) : v[i];
    hi = any ? std::max(hi, v[i]) : v[i];
    any = true;
  }
  return {lo, hi};
}

// `range`: the {lowest, highest} to encode over where it is wider than v's own (a decomposed
// run's ranks encode over the whole grid's, kernels/medium.hpp Medium::coefficient_range).
inline CompactArray encode_array(ModelPrecision p, const std::vector<float>& v, const Layout& l,
                                 const std::array<float, 2>* range = nullptr) {
  CompactArray a;
  a.code.resize(v.size());
  auto [lo, hi] = array_range(v, l);
  if (range) {
    lo = std::min(lo, (*range)[0]);
    hi = std::max(hi, (*range)[1]);
  }
  const float big = std::max(std::fabs(lo), std::fabs(hi));
  if (p == ModelPrecision::kFixed16) {
    a.offset = lo;
    a.scale = static_cast<float>((static_cast<double>(hi) - lo) / 65535.0);
    for (size_t i = 0; i < v.size(); ++i) {
      if (a.scale == 0.0f) {
        a.code[i] = 0;
        continue;
      }
      const double r = std::round((static_cast<double>(v[i]) - lo) / a.scale);
      int q = static_cast<int>(std::clamp(r, 0.0, 65535.0));
      // The decoded neighbour nearest to v (the scale is rounded to fp32).
      for (int d : {q - 1, q + 1})
        if (d >= 0 && d <= 65535 &&
            std::fabs(decode(p, static_cast<uint16_t>(d), a.scale, a.offset) - v[i]) <
                std::fabs(decode(p, static_cast<uint16_t>(q), a.scale, a.offset) - v[i]))
          q = d;
      a.code[i] = static_cast<uint16_t>(q);
    }
    return a;
  }
  // A power of two: dividing by it is exact, and it moves no value across a rounding boundary.
  a.scale = big > 0 ? std::ldexp(1.0f, std::ilogb(big) + 1) : 1.0f;
  for (size_t i = 0; i < v.size(); ++i) {
    const float s = v[i] / a.scale;
    a.code[i] =
        p == ModelPrecision::kFp16 ? reference::float_to_half(s) : model_detail::float_to_bf16(s);
  }
  return a;
}

inline std::vector<float> decode_array(ModelPrecision p, const CompactArray& a) {
  std::vector<float> v(a.code.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = decode(p, a.code[i], a.scale, a.offset);
  return v;
}

}  // namespace seisfd
