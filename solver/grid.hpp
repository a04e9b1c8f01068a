// The computational grid: the physical grid of the config plus absorbing layers on every face
// (none on top with a free surface) plus a ghost halo of `radius` cells (DESIGN.md §3).
#pragma once
#include <array>

#include "kernels/step_spec.hpp"
#include "solver/config.hpp"

namespace seisfd {

class SimGrid {
 public:
  SimGrid(const GridConfig& g, const BoundaryConfig& b, int order);

  const GridConfig& physical() const { return phys_; }
  const Layout& layout() const { return layout_; }
  int radius() const { return radius_; }
  bool free_surface() const { return free_surface_; }
  // Axis order (z, y, x) from here on.
  int offset(int axis) const { return off_[axis]; }  // computational index of physical 0
  int physical_size(int axis) const { return n_[axis]; }
  double spacing(int axis) const { return h_[axis]; }
  double origin(int axis) const { return o_[axis]; }
  int width_lo(int axis) const { return wlo_[axis]; }
  int width_hi(int axis) const { return whi_[axis]; }

  // Fractional computational index (z, y, x) of a position (x, y, z) in metres.
  std::array<double, 3> to_index(const Vec3& xyz) const;
  bool inside_physical(const Vec3& xyz) const;
  Vec3 physical_max() const;  // (x, y, z) of the last physical cell

  // The per-step description for the backends. damp: eta_max * dt / 2 per axis (0: off);
  // cpml: the CPML profile on the same layers (d0 = 0: off).
  StepSpec step_spec(const std::array<double, 3>& damp, const CpmlSpec& cpml = {}) const;

 private:
  GridConfig phys_;
  int radius_;
  bool free_surface_;
  int n_[3], off_[3], wlo_[3], whi_[3];
  double h_[3], o_[3];
  Layout layout_;
};

}  // namespace seisfd
