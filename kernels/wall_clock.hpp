// Wall seconds since a steady-clock instant: what the kernels, the drivers and the time loop time
// themselves with (light: no other header of the project).
#pragma once
#include <chrono>

namespace seisfd {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace seisfd
