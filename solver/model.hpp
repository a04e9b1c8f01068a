// Velocity models: built on the physical grid from the config, then extended over the
// absorbing layers and halo by copying the nearest physical value (edge extension keeps the
// boundary transparent to the first order).
#pragma once
#include <vector>

#include "solver/config.hpp"
#include "solver/grid.hpp"

namespace seisfd {

struct VelocityModel {
  int nz = 0, ny = 0, nx = 0;
  std::vector<float> vp;  // [nz][ny][nx], m/s
  float vmin = 0, vmax = 0;
};

// Throws ConfigError naming the model key for bad values (non-positive or non-finite cells
// with their index, wrong file shape).
VelocityModel build_model(const RunConfig& c);

// The salt demo: water layer, compacting sediments (velocity increasing with depth), and a
// salt body (4500 m/s) rising as a dome from the bottom of the model. Depends only on the
// grid, so any grid gets the same geology scaled to its extent.
float salt_demo_velocity(double x, double y, double z, const Vec3& lo, const Vec3& hi);

std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m);

}  // namespace seisfd
