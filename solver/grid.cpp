#include "solver/grid.hpp"

#include <cmath>

namespace seisfd {

SimGrid::SimGrid(const GridConfig& g, const BoundaryConfig& b, int order)
    : phys_(g), radius_(order / 2), free_surface_(b.free_surface) {
  n_[0] = g.nz;
  n_[1] = g.ny;
  n_[2] = g.nx;
  h_[0] = g.dz;
  h_[1] = g.dy;
  h_[2] = g.dx;
  o_[0] = g.origin[2];
  o_[1] = g.origin[1];
  o_[2] = g.origin[0];
  const int w = b.type == BoundaryType::kNone ? 0 : b.width;
  int ext[3];
  for (int a = 0; a < 3; ++a) {
    wlo_[a] = w;
    whi_[a] = w;
  }
  if (free_surface_) wlo_[0] = 0;
  for (int a = 0; a < 3; ++a) {
    off_[a] = radius_ + wlo_[a];
    ext[a] = n_[a] + wlo_[a] + whi_[a] + 2 * radius_;
  }
  layout_ = Layout::make(ext[0], ext[1], ext[2]);
}

std::array<double, 3> SimGrid::to_index(const Vec3& xyz) const {
  const double p[3] = {xyz[2], xyz[1], xyz[0]};
  std::array<double, 3> r{};
  for (int a = 0; a < 3; ++a) r[a] = off_[a] + (p[a] - o_[a]) / h_[a];
  return r;
}

Vec3 SimGrid::physical_max() const {
  return {o_[2] + (n_[2] - 1) * h_[2], o_[1] + (n_[1] - 1) * h_[1], o_[0] + (n_[0] - 1) * h_[0]};
}

bool SimGrid::inside_physical(const Vec3& xyz) const {
  const Vec3 hi = physical_max();
  const Vec3 lo = phys_.origin;
  for (int a = 0; a < 3; ++a) {
    const double tol = 1e-9 * (1.0 + std::abs(hi[a]));
    if (xyz[a] < lo[a] - tol || xyz[a] > hi[a] + tol) return false;
  }
  return true;
}

Subdomain Subdomain::whole(const StepSpec& spec) {
  Subdomain d;
  for (int a = 0; a < 3; ++a) {
    d.lo[a] = spec.begin[a];
    d.hi[a] = spec.end[a];
    d.local_lo[a] = spec.begin[a];
    d.layout_lo[a] = 0;
  }
  d.layout_hi = {spec.layout.nz, spec.layout.ny, spec.layout.nx};
  return d;
}

StepSpec SimGrid::step_spec(const std::array<double, 3>& damp, const CpmlSpec& cpml) const {
  StepSpec s;
  s.cpml = cpml;
  s.layout = layout_;
  s.radius = radius_;
  const int ext[3] = {layout_.nz, layout_.ny, layout_.nx};
  for (int a = 0; a < 3; ++a) {
    s.h[a] = h_[a];
    s.begin[a] = radius_;
    s.end[a] = ext[a] - radius_;
    s.sponge.phys_lo[a] = off_[a];
    s.sponge.phys_hi[a] = off_[a] + n_[a] - 1;
    s.sponge.width_lo[a] = wlo_[a];
    s.sponge.width_hi[a] = whi_[a];
    s.sponge.damp[a] = damp[a];
  }
  if (free_surface_) {
    s.free_surface = true;
    s.surface = off_[0];
    s.begin[0] = off_[0] + 1;  // the surface row stays zero; rows above are its mirror
  }
  return s;
}

}  // namespace seisfd
