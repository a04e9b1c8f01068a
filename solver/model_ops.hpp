// Operations on models for migration and Born modelling (docs/migration.md §2-§3): smoothing a
// velocity model into a migration model, the built-in reflector perturbation, and the image
// post-operators (illumination normalisation, Laplacian). Arrays are [nz][ny][nx] over the
// physical grid.
#pragma once
#include <vector>

#include "solver/config.hpp"
#include "solver/grid.hpp"
#include "solver/model.hpp"

namespace seisfd {

// The slowness 1/v smoothed by a Gaussian of standard deviation sigma metres along each axis
// (edges extended), back to velocity; anisotropy parameters unchanged. sigma <= 0: unchanged.
void smooth_velocity(VelocityModel& m, const GridConfig& g, double sigma);

// The built-in perturbation of m = 1/v^2 (s^2/m^2): two flat reflectors at 40% and 65% of the
// depth and a dipping one (25 degrees from x, through 85% of the depth at the middle of x,
// between 75% and 95%), each dm = contrast * m with a Gaussian profile of one cell across it.
std::vector<float> reflector_perturbation(const VelocityModel& m, const GridConfig& g,
                                          double contrast);

// A field of the physical grid extended over a layout: zero outside the physical cells.
std::vector<float> physical_to_layout(const SimGrid& grid, const std::vector<float>& phys);
// The physical cells of a layout field.
std::vector<float> layout_to_physical(const SimGrid& grid, const std::vector<float>& field);
std::vector<double> layout_to_physical(const SimGrid& grid, const std::vector<double>& field);

// out = -Laplacian(in) (second-order, spacing h[3] in (z, y, x), zero beyond the edges).
std::vector<float> negative_laplacian(const std::vector<float>& in, int nz, int ny, int nx,
                                      const double h[3]);

// The image of imaging condition `c` from a migration's stacks (physical cells): the
// cross-correlation `cc` itself; `cc` over the illumination `il` plus 1% of its largest value
// (normalized); half the negative Laplacian of the zero-lag correlation `zl`
// (inverse_scattering; docs/migration.md §5). A stack the condition does not read may be empty.
std::vector<float> imaging_condition(ImagingCondition c, const std::vector<float>& cc,
                                     const std::vector<float>& il, const std::vector<float>& zl,
                                     int nz, int ny, int nx, const double h[3]);

}  // namespace seisfd
