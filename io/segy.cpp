// What every build has (with or without libsegyio): sampling checks and file names.
#include "io/segy.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace seisfd::io {

int segy_interval_units(double value, double unit) {
  const double u = value / unit;
  if (!std::isfinite(u) || !(u >= 0.5) || u > 2147483647.0) return -1;
  const double r = std::round(u);
  return std::fabs(u - r) <= 1e-6 * r ? static_cast<int>(r) : -1;
}

std::string segy_cube_problem(const ImageGeometry& g) {
  std::ostringstream os;
  os.precision(10);
  const int dz_mm = segy_interval_units(g.spacing[0], 1e-3);
  if (g.nz > kSegyMaxSamples)
    os << g.nz << " depth samples; SEG-Y holds up to " << kSegyMaxSamples << " per trace";
  else if (dz_mm < 1 || dz_mm > kSegyMaxInterval)
    os << "depth step " << g.spacing[0] << " m is not a whole number of mm from 1 to "
       << kSegyMaxInterval << " (SEG-Y's sample interval, bytes 117-118)";
  else if (g.origin[0] != std::round(g.origin[0]) || std::fabs(g.origin[0]) > 32767)
    os << "origin z " << g.origin[0]
       << " m is not a whole number of metres within +-32767 (SEG-Y's delay, bytes 109-110)";
  return os.str();
}

bool is_segy_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".sgy" || ext == ".segy";
}

}  // namespace seisfd::io
