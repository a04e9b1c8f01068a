#include "solver/model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "io/error.hpp"
#include "io/model_file.hpp"
#include "io/segy.hpp"

namespace seisfd {

float salt_demo_velocity(double x, double y, double z, const Vec3& lo, const Vec3& hi) {
  auto frac = [&](int a, double v) { return hi[a] > lo[a] ? (v - lo[a]) / (hi[a] - lo[a]) : 0.5; };
  const double u = frac(0, x), w = frac(1, y), d = frac(2, z);
  const double water = 0.12;
  if (d < water) return 1500.0f;
  // Dome: top surface at depth 0.35 in the centre, falling off as a Gaussian to the base.
  const double r2 = (u - 0.5) * (u - 0.5) / 0.04 + (w - 0.5) * (w - 0.5) / 0.06;
  const double salt_top = 1.0 - 0.65 * std::exp(-r2);
  if (d >= salt_top && d > 0.3) return 4500.0f;
  // Sediments: 1700 m/s at the sea floor to 3600 m/s at the base, with gentle layering.
  const double s = (d - water) / (1.0 - water);
  const double layering = 60.0 * std::sin(2.0 * M_PI * 7.0 * s + 2.0 * u);
  return static_cast<float>(1700.0 + 1900.0 * s + layering);
}

AnisoSample salt_demo_anisotropy(double x, double y, double z, const Vec3& lo, const Vec3& hi) {
  AnisoSample a;
  if (salt_demo_velocity(x, y, z, lo, hi) >= 4500.0f) return a;  // salt
  auto frac = [&](int k, double v) { return hi[k] > lo[k] ? (v - lo[k]) / (hi[k] - lo[k]) : 0.5; };
  const double u = frac(0, x), w = frac(1, y), d = frac(2, z);
  const double water = 0.12;
  if (d < water) return a;
  const double s = (d - water) / (1.0 - water);
  a.epsilon = 0.12 + 0.12 * s;
  a.delta = 0.04 + 0.06 * s;
  // Layers drape over the dome: their dip follows the slope of the dome's Gaussian flank.
  const double r2 = (u - 0.5) * (u - 0.5) / 0.04 + (w - 0.5) * (w - 0.5) / 0.06;
  const double r = std::sqrt(r2);
  a.theta = 40.0 * std::min(1.0, 1.6 * r * std::exp(-0.5 * r2));
  a.phi = std::atan2((w - 0.5) / 0.06, (u - 0.5) / 0.04) * 180.0 / M_PI;
  return a;
}

namespace {

// The layer of a depth: the last interface at or above it (a depth on an interface is below it).
size_t layer_of(const ModelConfig& mc, double depth) {
  size_t layer = 0;
  for (size_t k = 0; k < mc.interfaces.size(); ++k)
    if (depth >= mc.interfaces[k] - 1e-9 * (1.0 + std::fabs(depth))) layer = k;
  return layer;
}

std::string num(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

// A SEG-Y cube (docs/outputs.md §8) checked against the grid: the same shape, and the spacing
// and origin its headers give (to their mm precision).
std::vector<float> read_segy_model(const GridConfig& g, const std::string& path) {
  io::SegyCube cube = io::read_segy_cube(path);
  const io::ImageGeometry& h = cube.geometry;
  const std::string where = "SEG-Y '" + path + "': ";
  const int have[3] = {h.nx, h.ny, h.nz}, want[3] = {g.nx, g.ny, g.nz};
  const char* what[3] = {"crosslines (nx)", "inlines (ny)", "samples per trace (nz)"};
  for (int a = 0; a < 3; ++a)
    if (have[a] != want[a])
      throw io::IoError(where + std::to_string(have[a]) + " " + what[a] + ", the grid has " +
                        std::to_string(want[a]) + " (grid.n" + "xyz"[a] + ")");
  // (x, y, z) of the headers against the grid; a spacing along an axis of one sample is unknown.
  const double hs[3] = {h.spacing[2], h.spacing[1], h.spacing[0]};
  const double ho[3] = {h.origin[2], h.origin[1], h.origin[0]};
  const double gs[3] = {g.dx, g.dy, g.dz};
  const auto close = [](double a, double b) {
    return std::fabs(a - b) <= 1e-3 + 1e-6 * std::fabs(b);
  };
  for (int a = 0; a < 3; ++a) {
    if (have[a] > 1 && !close(hs[a], gs[a]))
      throw io::IoError(where + "spacing along " + "xyz"[a] + " " + num(hs[a]) +
                        " m in the headers, the grid has " + num(gs[a]) + " m (grid.d" + "xyz"[a] +
                        ")");
    if (!close(ho[a], g.origin[a]))
      throw io::IoError(where + "origin " + "xyz"[a] + " " + num(ho[a]) +
                        " m in the headers (first trace" +
                        (a == 2 ? "'s delay, bytes 109-110" : "'s CDP, bytes 181-188") +
                        "), the grid has " + num(g.origin[a]) + " m (grid.origin)");
  }
  return std::move(cube.data);
}

// The planes z0 <= z < z1 of a model volume: an HDF5 dataset (read plane range only), or a
// SEG-Y cube for a .sgy/.segy path (read whole, then cut; dataset unused).
std::vector<float> read_model_volume(const GridConfig& g, const std::string& path,
                                     const std::string& dataset, int z0, int z1) {
  if (!io::is_segy_path(path)) return io::read_volume(path, dataset, {g.nz, g.ny, g.nx}, z0, z1);
  std::vector<float> all = read_segy_model(g, path);
  if (z0 == 0 && z1 == g.nz) return all;
  const size_t plane = static_cast<size_t>(g.ny) * g.nx;
  return std::vector<float>(all.begin() + z0 * plane, all.begin() + z1 * plane);
}

// One anisotropy parameter on the grid (values as given: angles still in degrees).
std::vector<float> aniso_field(const RunConfig& c, const AnisoParam& a, const char* key,
                               double AnisoSample::*member, int z0, int z1) {
  const GridConfig& g = c.grid;
  const ModelConfig& mc = c.model;
  const size_t n = static_cast<size_t>(z1 - z0) * g.ny * g.nx;
  const Vec3 lo = g.origin;
  const Vec3 hi{lo[0] + (g.nx - 1) * g.dx, lo[1] + (g.ny - 1) * g.dy, lo[2] + (g.nz - 1) * g.dz};
  std::vector<float> out(n, 0.0f);
  switch (a.kind) {
    case AnisoParam::Kind::kDefault:
      if (mc.type == ModelType::kSalt)
#pragma omp parallel for schedule(static)
        for (int z = z0; z < z1; ++z)
          for (int y = 0; y < g.ny; ++y)
            for (int x = 0; x < g.nx; ++x)
              out[(static_cast<size_t>(z - z0) * g.ny + y) * g.nx + x] =
                  static_cast<float>(salt_demo_anisotropy(lo[0] + x * g.dx, lo[1] + y * g.dy,
                                                          lo[2] + z * g.dz, lo, hi).*
                                     member);
      break;
    case AnisoParam::Kind::kConstant:
      std::fill(out.begin(), out.end(), static_cast<float>(a.value));
      break;
    case AnisoParam::Kind::kLayers:
      for (int z = z0; z < z1; ++z)
        std::fill(out.begin() + static_cast<size_t>(z - z0) * g.ny * g.nx,
                  out.begin() + static_cast<size_t>(z - z0 + 1) * g.ny * g.nx,
                  static_cast<float>(a.layers[layer_of(mc, lo[2] + z * g.dz)]));
      break;
    case AnisoParam::Kind::kFile:
      try {
        out = read_model_volume(g, a.path, a.dataset, z0, z1);
      } catch (const io::IoError& e) {
        std::string what = e.what();  // read_volume names model.path; the key here is another
        if (what.rfind("model.path: ", 0) == 0) what.erase(0, 12);
        throw ConfigError::input_file(std::string("model.") + key, what, c.source_path);
      }
      break;
  }
  const bool thomsen = member == &AnisoSample::epsilon || member == &AnisoSample::delta;
  for (size_t i = 0; i < n; ++i) {
    const float v = out[i];
    if (!std::isfinite(v) || (thomsen && !(v > -0.5f && v <= 1.0f))) {
      const size_t x = i % g.nx, y = (i / g.nx) % g.ny,
                   z = z0 + i / (static_cast<size_t>(g.nx) * g.ny);
      std::ostringstream os;
      os << "value " << v << " at cell (x=" << x << ", y=" << y << ", z=" << z << ") must be "
         << (thomsen ? "in (-0.5, 1]" : "finite");
      if (a.kind == AnisoParam::Kind::kFile)
        throw ConfigError::input_file(std::string("model.") + key, os.str(), c.source_path);
      throw ConfigError(std::string("model.") + key, os.str(), c.source_path);
    }
  }
  return out;
}

void build_anisotropy(const RunConfig& c, VelocityModel& m, int z0, int z1) {
  const ModelConfig& mc = c.model;
  m.epsilon = aniso_field(c, mc.epsilon, "epsilon", &AnisoSample::epsilon, z0, z1);
  m.delta = aniso_field(c, mc.delta, "delta", &AnisoSample::delta, z0, z1);
  for (size_t i = 0; i < m.epsilon.size(); ++i) {
    m.eps_max = std::max(m.eps_max, m.epsilon[i]);
    if (m.delta[i] > m.epsilon[i]) {
      m.delta[i] = m.epsilon[i];
      ++m.delta_clamped;
    }
  }
  m.epsilon_range = ValueRange::of(m.epsilon);
  m.delta_range = ValueRange::of(m.delta);
  if (c.physics.equation != Physics::kTti) return;
  const float rad = static_cast<float>(M_PI / 180.0);
  m.theta = aniso_field(c, mc.theta, "theta", &AnisoSample::theta, z0, z1);
  m.phi = aniso_field(c, mc.phi, "phi", &AnisoSample::phi, z0, z1);
  for (auto& v : m.theta) v *= rad;
  for (auto& v : m.phi) v *= rad;
  m.theta_range = ValueRange::of(m.theta);
  m.phi_range = ValueRange::of(m.phi);
}

// The planes z0 <= z < z1 of the model (arrays of (z1 - z0) x ny x nx cells) with their value
// ranges; errors name cells by their index in the whole grid.
VelocityModel build_planes(const RunConfig& c, int z0, int z1) {
  const GridConfig& g = c.grid;
  VelocityModel m;
  m.nz = z1 - z0;
  m.ny = g.ny;
  m.nx = g.nx;
  const size_t plane = static_cast<size_t>(g.ny) * g.nx, n = plane * (z1 - z0);
  const ModelConfig& mc = c.model;
  const Vec3 lo = g.origin;
  const Vec3 hi{lo[0] + (g.nx - 1) * g.dx, lo[1] + (g.ny - 1) * g.dy, lo[2] + (g.nz - 1) * g.dz};
  switch (mc.type) {
    case ModelType::kConstant:
      m.vp.assign(n, static_cast<float>(mc.vp));
      break;
    case ModelType::kLayered:
      m.vp.resize(n);
      for (int z = z0; z < z1; ++z)
        std::fill(m.vp.begin() + (z - z0) * plane, m.vp.begin() + (z - z0 + 1) * plane,
                  static_cast<float>(mc.velocities[layer_of(mc, lo[2] + z * g.dz)]));
      break;
    case ModelType::kSalt:
      m.vp.resize(n);
#pragma omp parallel for schedule(static)
      for (int z = z0; z < z1; ++z)
        for (int y = 0; y < g.ny; ++y)
          for (int x = 0; x < g.nx; ++x)
            m.vp[(z - z0) * plane + static_cast<size_t>(y) * g.nx + x] =
                salt_demo_velocity(lo[0] + x * g.dx, lo[1] + y * g.dy, lo[2] + z * g.dz, lo, hi);
      break;
    case ModelType::kFile:
      try {
        m.vp = read_model_volume(g, mc.path, mc.dataset, z0, z1);
      } catch (const io::IoError& e) {
        // read_volume's messages already start with "model.path: "; name the key once.
        std::string what = e.what();
        if (what.rfind("model.path: ", 0) == 0) what.erase(0, 12);
        throw ConfigError::input_file("model.path", what, c.source_path);
      }
      break;
  }
  ValueRange vr;
  for (size_t i = 0; i < n; ++i) {
    const float v = m.vp[i];
    vr.lo = std::min(vr.lo, v);
    vr.hi = std::max(vr.hi, v);
    if (!(std::isfinite(v) && v > 0.0f)) {
      const size_t x = i % g.nx, y = (i / g.nx) % g.ny, z = z0 + i / plane;
      std::ostringstream os;
      os << "velocity " << v << " m/s at cell (x=" << x << ", y=" << y << ", z=" << z
         << ") must be finite and > 0";
      if (mc.type == ModelType::kFile)
        throw ConfigError::input_file("model.path", os.str(), c.source_path);
      throw ConfigError("model", os.str(), c.source_path);
    }
  }
  m.vmin = vr.lo;
  m.vmax = vr.hi;
  if (c.physics.equation != Physics::kAcoustic) build_anisotropy(c, m, z0, z1);
  return m;
}

}  // namespace

VelocityModel build_model(const RunConfig& c) {
  return build_planes(c, 0, c.grid.nz);
}

VelocityModel summarize_model(const RunConfig& c) {
  const GridConfig& g = c.grid;
  VelocityModel sum;
  sum.nz = g.nz;
  sum.ny = g.ny;
  sum.nx = g.nx;
  const size_t plane = static_cast<size_t>(g.ny) * g.nx;
  // A SEG-Y cube is read whole whatever part is asked for: one slab then.
  const auto segy = [](const AnisoParam& a) {
    return a.kind == AnisoParam::Kind::kFile && io::is_segy_path(a.path);
  };
  const ModelConfig& mc = c.model;
  const bool whole = (mc.type == ModelType::kFile && io::is_segy_path(mc.path)) ||
                     (c.physics.equation != Physics::kAcoustic &&
                      (segy(mc.epsilon) || segy(mc.delta) || segy(mc.theta) || segy(mc.phi)));
  const int step = whole ? g.nz : static_cast<int>(std::max<size_t>(1, kSummaryCells / plane));
  ValueRange v;
  for (int z0 = 0; z0 < g.nz; z0 += step) {
    const VelocityModel m = build_planes(c, z0, std::min(g.nz, z0 + step));
    v = v.with({m.vmin, m.vmax});
    sum.eps_max = std::max(sum.eps_max, m.eps_max);
    sum.delta_clamped += m.delta_clamped;
    sum.epsilon_range = sum.epsilon_range.with(m.epsilon_range);
    sum.delta_range = sum.delta_range.with(m.delta_range);
    sum.theta_range = sum.theta_range.with(m.theta_range);
    sum.phi_range = sum.phi_range.with(m.phi_range);
  }
  sum.vmin = v.lo;
  sum.vmax = v.hi;
  return sum;
}

std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m) {
  return extend_to_layout(grid, m, m.vp);
}

std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m,
                                    const std::vector<float>& field) {
  return extend_to_layout(grid, m, field, grid.layout(), {0, 0, 0});
}

std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m,
                                    const std::vector<float>& field, const Layout& l,
                                    const std::array<int, 3>& at) {
  std::vector<float> out(static_cast<size_t>(l.size()), 0.0f);
  const int n[3] = {m.nz, m.ny, m.nx};
  auto clamp_phys = [&](int a, int i) {
    return std::clamp(i + at[a] - grid.offset(a), 0, n[a] - 1);
  };
#pragma omp parallel for schedule(static)
  for (int z = 0; z < l.nz; ++z) {
    const int pz = clamp_phys(0, z);
    for (int y = 0; y < l.ny; ++y) {
      const int py = clamp_phys(1, y);
      const float* src = &field[(static_cast<size_t>(pz) * m.ny + py) * m.nx];
      float* dst = &out[l.idx(z, y, 0)];
      for (int x = 0; x < l.nx; ++x) dst[x] = src[clamp_phys(2, x)];
    }
  }
  return out;
}

}  // namespace seisfd
