// The computational grid: the physical grid of the config plus absorbing layers on every face
// (none on top with a free surface) plus a ghost halo of `radius` cells (docs/physics.md §1),
// and the part of it one rank computes (Subdomain).
#pragma once
#include <array>

#include "kernels/step_spec.hpp"
#include "solver/config.hpp"

namespace seisfd {

// The part of the computational grid one rank updates (docs/parallel.md): its box of global
// computational indices, the global box its own layout spans (the updated box plus the halo its
// neighbours fill; to the grid's edge where it has no neighbour), and the rank across each face
// (-1: the grid's own edge, where the boundary conditions apply). A single-rank run is the
// whole updated region in the whole layout, without neighbours.
struct Subdomain {
  int rank = 0, ranks = 1;
  std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};  // updated cells [lo, hi), global (z, y, x)
  std::array<int, 3> local_lo{0, 0, 0};         // the local index of global lo
  std::array<int, 3> layout_lo{0, 0, 0}, layout_hi{0, 0, 0};  // the local layout, global
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};       // z-, z+, y-, y+, x-, x+

  // The whole updated region of `spec`, local indices equal to global ones.
  static Subdomain whole(const StepSpec& spec);
  bool is_whole() const { return ranks == 1; }
  bool owns(int z, int y, int x) const {
    return z >= lo[0] && z < hi[0] && y >= lo[1] && y < hi[1] && x >= lo[2] && x < hi[2];
  }
  // Local (z, y, x) of a global cell this subdomain owns.
  std::array<int, 3> to_local(int z, int y, int x) const {
    return {z - lo[0] + local_lo[0], y - lo[1] + local_lo[1], x - lo[2] + local_lo[2]};
  }
  // The cells of the global layout this rank answers for in outputs: its updated box, widened
  // to the layout's edge where it has no neighbour (these boxes tile the whole layout).
  int out_lo(int axis) const { return neighbour[2 * axis] < 0 ? layout_lo[axis] : lo[axis]; }
  int out_hi(int axis) const { return neighbour[2 * axis + 1] < 0 ? layout_hi[axis] : hi[axis]; }
};

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
