// The medium as every backend takes it: per-cell parameters over the layout, and the pointwise
// coefficients of the update derived from them once, in double, for each backend to round to
// its own type. docs/physics.md §2, §4.
//
// Pseudo-acoustic VTI/TTI (Zhang, Zhang & Zhang 2011), m = 1/v^2, E = 1 + 2 eps,
// D = sqrt(1 + 2 delta):  m p_tt = E H_0 p + D H_z q,  m q_tt = D H_0 p + H_z q,
// with the symmetry axis n = (sin theta cos phi, sin theta sin phi, cos theta) in (x, y, z),
// theta from vertical (z down), phi the azimuth from +x towards +y; H_z = div(n n^T grad) and
// H_0 = lap - H_z, both discretized as self-adjoint operators (kernels/reference/anisotropic.hpp).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/huge_pages.hpp"
#include "kernels/model_precision.hpp"
#include "kernels/physics.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd {

// One value per cell of the layout (padding included). Angles in radians. epsilon and delta
// for VTI and TTI, theta and phi for TTI; empty otherwise. precision: how the engines store the
// update's coefficients (kernels/model_precision.hpp; compact for VTI and TTI only).
struct Medium {
  Physics physics = Physics::kAcoustic;
  std::vector<float> velocity, epsilon, delta, theta, phi;
  ModelPrecision precision = ModelPrecision::kFp32;
  // With a compact precision: the range ({lowest, highest}) each encoded array is encoded over,
  // where it is wider than this medium's own cells (a rank of a decomposed run encodes over the
  // whole grid's range, coefficient_ranges combined over the ranks, so that it rounds each cell
  // as a run of one rank does); empty: this medium's own.
  std::vector<std::array<float, 2>> coefficient_range;
};

inline Medium acoustic_medium(std::vector<float> velocity) {
  Medium m;
  m.velocity = std::move(velocity);
  return m;
}

// Cells with delta > epsilon make the p/q system grow exponentially (the product of its two
// eigenvalues changes sign); engines refuse such media and the solver clamps them first.
inline int64_t count_delta_above_epsilon(const Medium& m) {
  int64_t n = 0;
  for (size_t i = 0; i < m.epsilon.size() && i < m.delta.size(); ++i)
    if (m.delta[i] > m.epsilon[i]) ++n;
  return n;
}

// The symmetry axis of one cell, in (x, y, z).
inline void symmetry_axis(double theta, double phi, double& nx, double& ny, double& nz) {
  nx = std::sin(theta) * std::cos(phi);
  ny = std::sin(theta) * std::sin(phi);
  nz = std::cos(theta);
}

// TTI cells of the damped CPML layers (past cpml.start) whose axis is not vertical. TTI's CPML
// corrections are VTI's (kernels/cpml.hpp): the stretched operator where the damped medium is
// vertical (exactly so where the stencils' reach, R cells further in, is vertical too).
inline int64_t count_tilted_cpml_cells(const Medium& m, const StepSpec& s) {
  if (m.physics != Physics::kTti || !s.cpml_on()) return 0;
  const Layout& l = s.layout;
  const SpongeSpec& g = s.sponge;
  int64_t n = 0;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int c[3] = {z, y, x};
        bool near = false;
        for (int a = 0; a < 3 && !near; ++a) {
          if (s.cpml.d0[a] <= 0) continue;
          int d = 0;
          if (g.width_lo[a] > 0 && c[a] < g.phys_lo[a]) d = g.phys_lo[a] - c[a];
          if (g.width_hi[a] > 0 && c[a] > g.phys_hi[a]) d = c[a] - g.phys_hi[a];
          near = d > 0 && d > s.cpml.start;
        }
        if (near && m.theta[l.idx(z, y, x)] != 0.0f) ++n;
      }
  return n;
}

// Throws std::invalid_argument, the message starting with `who`: arrays of the wrong size,
// delta > epsilon, CPML where the physics has no CPML, CPML together with sponge damping.
// vertical_tti_cpml: TTI with CPML is accepted where the damped layers are vertical
// (count_tilted_cpml_cells; the CPU reference, for the layer study of tests/test_cpml_tti.cpp);
// otherwise refused as traits(kTti).cpml_refusal says.
inline void check_medium(const Medium& m, const StepSpec& s, const std::string& who,
                         bool vertical_tti_cpml = false) {
  const PhysicsTraits& t = traits(m.physics);
  const bool tti_ok = vertical_tti_cpml && m.physics == Physics::kTti &&
                      static_cast<int64_t>(m.theta.size()) == s.layout.size();
  if (s.cpml_on() && *t.cpml_refusal && !tti_ok)
    throw std::invalid_argument(who + "boundary.type = " + t.cpml_refusal);
  if (tti_ok && s.cpml_on())
    if (const int64_t bad = count_tilted_cpml_cells(m, s))
      throw std::invalid_argument(who + "boundary.type = " + t.cpml_refusal + " (" +
                                  std::to_string(bad) + " cells with a tilted axis in the layers)");
  if (s.cpml_on() && s.sponge_on())
    throw std::invalid_argument(who + "CPML and sponge damping on the same layers");
  const int64_t n = s.layout.size();
  const auto check = [&](const std::vector<float>& v, const char* what) {
    if (static_cast<int64_t>(v.size()) != n)
      throw std::invalid_argument(who + what + " has " + std::to_string(v.size()) +
                                  " values, layout needs " + std::to_string(n));
  };
  check(m.velocity, "velocity");
  if (t.medium_arrays > 1) {
    check(m.epsilon, "epsilon");
    check(m.delta, "delta");
    if (const int64_t bad = count_delta_above_epsilon(m))
      throw std::invalid_argument(who + std::to_string(bad) +
                                  " cells have delta > epsilon (the p/q system is unstable there)");
  }
  if (t.medium_arrays > 3) {
    check(m.theta, "theta");
    check(m.phi, "phi");
  }
}

// The coefficient arrays the physics' update reads (MediumArray order), rounded to T:
// (v dt)^2, E, D and the axis (z, y, x). Mirror rows above a free surface hold the reflected
// axis (n_x, n_y, -n_z) of their image row (docs/physics.md §4).
template <class T>
void exact_medium_coefficients(const Medium& m, const StepSpec& s, double dt,
                               std::vector<T> (&out)[kMaxMediumArrays]);
// Instantiated in medium.cpp, on the host's threads (OpenMP) whoever calls them (the CUDA
// engine's translation units are compiled without OpenMP).
extern template void exact_medium_coefficients<float>(const Medium&, const StepSpec&, double,
                                                      std::vector<float> (&)[kMaxMediumArrays]);
extern template void exact_medium_coefficients<double>(const Medium&, const StepSpec&, double,
                                                       std::vector<double> (&)[kMaxMediumArrays]);

// The coefficients every engine runs: exact_medium_coefficients rounded to T where m.precision
// is fp32; otherwise the fp32 coefficients encoded in m.precision (their codes into `codes`, when
// given) and what the codes decode to, rounded to T (kernels/model_precision.hpp).
//
// E is not encoded itself but as G = E - D^2 = 2 (eps - delta), and decodes to fmaf(D, D, G)
// with D decoded first: the p/q system's slow (shear-artefact) family depends on E - D^2, a
// small difference of two numbers near 1, whose relative error would be ten times theirs if E
// and D were rounded apart (tests/test_model_precision.cpp: fp16 3.1e-2 -> 2.7e-3, fixed16
// 2.7e-4 -> 9.9e-5 on the smooth VTI medium).
// The arrays a compact precision encodes: the exact coefficients with E replaced by G = E - D^2.
inline void encoded_coefficients(const Medium& m, const StepSpec& s, double dt,
                                 std::vector<float> (&exact)[kMaxMediumArrays]) {
  exact_medium_coefficients(m, s, dt, exact);
  for (size_t i = 0; i < exact[kE].size(); ++i)
    exact[kE][i] = static_cast<float>(static_cast<double>(exact[kE][i]) -
                                      static_cast<double>(exact[kD][i]) * exact[kD][i]);
}

// {lowest, highest} of each array a compact precision encodes, over the layout's cells (not its
// x padding); empty for an array the physics does not have. A decomposed run combines the ranks'
// (lowest of the lowest, highest of the highest) into Medium::coefficient_range.
inline std::vector<std::array<float, 2>> coefficient_ranges(const Medium& m, const StepSpec& s,
                                                            double dt) {
  std::vector<float> exact[kMaxMediumArrays];
  encoded_coefficients(m, s, dt, exact);
  std::vector<std::array<float, 2>> out(kMaxMediumArrays, {0.0f, 0.0f});
  for (int a = 0; a < kMaxMediumArrays; ++a) out[a] = array_range(exact[a], s.layout);
  return out;
}

template <class T>
void medium_coefficients(const Medium& m, const StepSpec& s, double dt,
                         std::vector<T> (&out)[kMaxMediumArrays], CompactArray* codes = nullptr) {
  if (m.precision == ModelPrecision::kFp32) {
    exact_medium_coefficients(m, s, dt, out);
    return;
  }
  if (!anisotropic(m.physics))
    throw std::invalid_argument(std::string("kernel.model_precision = \"") +
                                to_string(m.precision) +
                                "\" is implemented for physics.equation = \"vti\" and \"tti\"");
  std::vector<float> exact[kMaxMediumArrays];
  encoded_coefficients(m, s, dt, exact);
  std::vector<float> decoded[kMaxMediumArrays];
  for (int a = 0; a < kMaxMediumArrays; ++a) {
    if (exact[a].empty()) continue;
    const std::array<float, 2>* range =
        a < static_cast<int>(m.coefficient_range.size()) ? &m.coefficient_range[a] : nullptr;
    CompactArray c = encode_array(m.precision, exact[a], s.layout, range);
    decoded[a] = decode_array(m.precision, c);
    if (codes) codes[a] = std::move(c);
  }
  for (size_t i = 0; i < decoded[kE].size(); ++i)
    decoded[kE][i] = std::fma(decoded[kD][i], decoded[kD][i], decoded[kE][i]);
  for (int a = 0; a < kMaxMediumArrays; ++a) assign_huge(out[a], decoded[a]);
}

}  // namespace seisfd
