// What the variant files' register_<file>() functions share: the loop over the compiled radii
// and the fields every entry derives from its physics, order and technique. Plain C++.
#pragma once
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/fd_coefficients.hpp"
#include "kernels/registry.hpp"

namespace seisfd::cuda {

namespace detail {
template <class F, int... I>
void for_radii(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I + 1>{}), ...);
}
}  // namespace detail

// f(std::integral_constant<int, R>) for R = 1..kMaxRadius, in order (a template argument inside:
// `constexpr int R = decltype(r)::value;`).
template <class F>
void for_each_radius(F&& f) {
  detail::for_radii(f, std::make_integer_sequence<int, kMaxRadius>{});
}

// An entry named "<physics>/o<2R>/<technique>" with bytes_per_cell from the physics' traits;
// the caller fills in the rest.
inline KernelVariant variant_entry(Physics physics, int radius, const char* technique,
                                   const char* description) {
  KernelVariant v;
  v.name = std::string(to_string(physics)) + "/o" + std::to_string(2 * radius) + "/" + technique;
  v.physics = physics;
  v.order = 2 * radius;
  v.technique = technique;
  v.description = description;
  v.bytes_per_cell = traits(physics).min_bytes_per_cell;
  return v;
}

}  // namespace seisfd::cuda
