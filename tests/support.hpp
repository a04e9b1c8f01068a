// Building blocks for physics tests: homogeneous problems built in code (no config file).
#pragma once
#include <cmath>
#include <vector>

#include "kernels/engine.hpp"
#include "kernels/medium.hpp"
#include "kernels/propagation.hpp"
#include "solver/config.hpp"
#include "solver/grid.hpp"
#include "solver/plan.hpp"
#include "solver/points.hpp"

namespace seisfd::test {

struct Problem {
  SimGrid grid;
  StepSpec spec;
  std::vector<float> velocity;  // over the layout
  double dt = 0;
  Medium medium() const { return acoustic_medium(velocity); }
};

inline GridConfig cube_grid(int nx, int ny, int nz, double h) {
  GridConfig g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.dx = g.dy = g.dz = h;
  return g;
}

// A homogeneous medium v. dt = courant x the stability limit unless dt > 0 is given.
inline Problem homogeneous(const GridConfig& g, const BoundaryConfig& b, int order, double v,
                           double courant, double dt = 0) {
  SimGrid grid(g, b, order);
  const double h[3] = {g.dz, g.dy, g.dx};
  const double dt_use = dt > 0 ? dt : courant * stability_limit(v, order / 2, h);
  StepSpec spec = make_step_spec(grid, b, v, dt_use, 0.0);
  std::vector<float> vel(static_cast<size_t>(grid.layout().size()), static_cast<float>(v));
  return {grid, spec, vel, dt_use};
}

inline BoundaryConfig no_boundary() {
  BoundaryConfig b;
  b.type = BoundaryType::kNone;
  b.width = 0;
  return b;
}

// No absorbing layer, pressure-release top: energy is conserved.
inline BoundaryConfig reflecting_top_free() {
  BoundaryConfig b = no_boundary();
  b.free_surface = true;
  return b;
}

inline BoundaryConfig sponge(int width, bool free_surface = false) {
  BoundaryConfig b;
  b.type = BoundaryType::kSponge;
  b.width = width;
  b.free_surface = free_surface;
  return b;
}

// CPML layers; the CFS frequency is given explicitly (make_step_spec gets no source here).
inline BoundaryConfig cpml(int width, double cfs_frequency, bool free_surface = false) {
  BoundaryConfig b;
  b.type = BoundaryType::kCpml;
  b.width = width;
  b.reflection = BoundaryConfig::kCpmlReflection;
  b.cfs_frequency = cfs_frequency;
  b.free_surface = free_surface;
  return b;
}

// apply_forward on a propagation the caller keeps: its state then holds the last field.
inline std::vector<double> forward(Propagation& p, const SparsePoints& sources,
                                   const std::vector<double>& traces, const SparsePoints& receivers,
                                   int nt) {
  p.set_injection(sources, traces, nt);
  p.set_recording(receivers, nt);
  p.steps(0, nt - 1);
  return p.recorded();
}

// p of the current field over the whole layout.
inline std::vector<double> whole_field(const Propagation& p) {
  const Layout& l = p.engine().spec().layout;
  const int lo[3] = {0, 0, 0}, hi[3] = {l.nz, l.ny, l.nx}, dec[3] = {1, 1, 1};
  std::vector<float> f;
  p.copy_field(lo, hi, dec, f);
  return std::vector<double>(f.begin(), f.end());
}

inline double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Least-squares slope of log(err) against log(h).
inline double loglog_slope(const std::vector<double>& h, const std::vector<double>& err) {
  double mx = 0, my = 0;
  const size_t n = h.size();
  for (size_t i = 0; i < n; ++i) {
    mx += std::log(h[i]) / n;
    my += std::log(err[i]) / n;
  }
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (std::log(h[i]) - mx) * (std::log(err[i]) - my);
    sxx += (std::log(h[i]) - mx) * (std::log(h[i]) - mx);
  }
  return sxy / sxx;
}

}  // namespace seisfd::test
