// Off-grid points: the weights that inject a point source into the grid and interpolate the
// wavefield at a receiver (docs/physics.md §6). Per axis, either Kaiser-windowed sinc (Hicks 2002,
// radius 4, b = 6.31) or linear weights, normalised to sum 1; an axis on which the point sits
// exactly on a grid line uses that one cell. A source's weights are divided by the cell volume
// (a discrete delta); a receiver's sum to 1. Weights landing outside the updated region are
// dropped; with a free surface, weights at or above the surface row fold onto the mirror
// image with opposite sign (the field there is the odd mirror), so injection and recording
// stay exact transposes of each other.
#pragma once
#include <vector>

#include "kernels/engine.hpp"
#include "solver/config.hpp"
#include "solver/grid.hpp"

namespace seisfd {

enum class PointRole { kSource, kReceiver };

constexpr int kSincRadius = 4;
constexpr double kKaiserB = 6.31;

// The 1D weights of one axis for fractional index f: cells first..first+w.size()-1.
struct AxisWeights {
  int first = 0;
  std::vector<double> w;
};
AxisWeights axis_weights(double f, PointInterp interp);

// The points' weights on the cells of `spec` (the global grid's). With a subdomain, only the
// entries on cells it owns are kept, in its local layout `local`, and only the points with any
// such entry (SparsePoints::id names each kept point's index in `positions`); the whole grid
// keeps every point.
SparsePoints make_points(const SimGrid& grid, const StepSpec& spec,
                         const std::vector<Vec3>& positions, PointInterp interp, PointRole role);
SparsePoints make_points(const SimGrid& grid, const StepSpec& spec,
                         const std::vector<Vec3>& positions, PointInterp interp, PointRole role,
                         const Subdomain& sub, const Layout& local);

}  // namespace seisfd
