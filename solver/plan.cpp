#include "solver/plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "io/segy.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/wavelet.hpp"

namespace seisfd {
namespace {

std::string fmt(double v, int prec = 4) {
  std::ostringstream os;
  os.precision(prec);
  os << v;
  return os.str();
}

}  // namespace

std::string point_text(const Vec3& p) {
  return "(" + fmt(p[0], 6) + ", " + fmt(p[1], 6) + ", " + fmt(p[2], 6) + ")";
}

std::string physical_domain_text(const SimGrid& g) {
  const Vec3 lo = g.physical().origin, hi = g.physical_max();
  return "x [" + fmt(lo[0], 6) + ", " + fmt(hi[0], 6) + "], y [" + fmt(lo[1], 6) + ", " +
         fmt(hi[1], 6) + "], z [" + fmt(lo[2], 6) + ", " + fmt(hi[2], 6) + "] m";
}

double stability_limit(double vmax, int radius, const double h[3]) {
  const double l1 = second_derivative_spectral_radius(radius);
  double lambda = 0;
  for (int a = 0; a < 3; ++a) lambda += l1 / (h[a] * h[a]);
  return 2.0 / (vmax * std::sqrt(lambda));
}

std::array<double, 3> sponge_damping(const BoundaryConfig& b, double vmax, const double h[3],
                                     double dt) {
  std::array<double, 3> damp{0, 0, 0};
  if (b.type != BoundaryType::kSponge || b.width <= 0) return damp;
  for (int a = 0; a < 3; ++a)
    damp[a] = 3.0 * vmax * std::log(1.0 / b.reflection) / (2.0 * b.width * h[a]) * dt / 2.0;
  return damp;
}

CpmlSpec cpml_parameters(const BoundaryConfig& b, double vmax, const double h[3], double dt,
                         double f_peak, double vmax_horizontal) {
  CpmlSpec c;
  if (b.type != BoundaryType::kCpml || b.width <= 0) return c;
  if (vmax_horizontal <= 0) vmax_horizontal = vmax;
  for (int a = 0; a < 3; ++a)
    c.d0[a] = (b.power + 1) * (a == 0 ? vmax : vmax_horizontal) * std::log(1.0 / b.reflection) /
              (2.0 * b.width * h[a]);
  c.alpha_max = M_PI * (b.cfs_frequency > 0 ? b.cfs_frequency : f_peak);
  c.power = b.power;
  c.dt = dt;
  return c;
}

StepSpec make_step_spec(const SimGrid& g, const BoundaryConfig& b, double vmax, double dt,
                        double f_peak, double vmax_horizontal) {
  const double h[3] = {g.spacing(0), g.spacing(1), g.spacing(2)};
  return g.step_spec(sponge_damping(b, vmax, h, dt),
                     cpml_parameters(b, vmax, h, dt, f_peak, vmax_horizontal));
}

std::vector<Vec3> receiver_positions(const ReceiverConfig& r, bool present, const std::string&) {
  std::vector<Vec3> out;
  if (!present) return out;
  auto lerp = [](const Vec3& a, const Vec3& b, double t) {
    return Vec3{a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t};
  };
  switch (r.layout) {
    case ReceiverLayout::kLine:
      for (int i = 0; i < r.count[0]; ++i)
        out.push_back(lerp(r.start, r.end, r.count[0] > 1 ? double(i) / (r.count[0] - 1) : 0.0));
      break;
    case ReceiverLayout::kGrid:
      for (int j = 0; j < r.count[1]; ++j)
        for (int i = 0; i < r.count[0]; ++i) {
          const double u = r.count[0] > 1 ? double(i) / (r.count[0] - 1) : 0.0;
          const double v = r.count[1] > 1 ? double(j) / (r.count[1] - 1) : 0.0;
          out.push_back({r.start[0] + (r.end[0] - r.start[0]) * u,
                         r.start[1] + (r.end[1] - r.start[1]) * v, r.start[2]});
        }
      break;
    case ReceiverLayout::kFile:
      out = read_positions_file(r.file, "receivers.file", "receiver").positions;
      break;
  }
  return out;
}

RunPlan make_plan(const RunConfig& c) {
  const std::string& src = c.source_path;
  RunPlan p(c, SimGrid(c.grid, c.boundary, c.physics.order), build_model(c));
  const SimGrid& g = p.grid;
  const double h[3] = {c.grid.dz, c.grid.dy, c.grid.dx};

  // Time step: from the stability bound, or the user's, which must not exceed it.
  // Anisotropy: the fastest phase velocity is v sqrt(1 + 2 eps) (docs/physics.md §3).
  const bool aniso = c.physics.equation != Physics::kAcoustic;
  const double v_bound = p.model.vmax * std::sqrt(1.0 + 2.0 * std::max(0.0f, p.model.eps_max));
  p.dt_limit = stability_limit(v_bound, g.radius(), h);
  const std::string bound_text =
      fmt(p.dt_limit) + " s for v_max " + fmt(p.model.vmax, 6) + " m/s" +
      (aniso ? " x sqrt(1 + 2 eps_max), eps_max " + fmt(p.model.eps_max, 4) : std::string()) +
      " at order " + std::to_string(c.physics.order);
  p.dt_bound_text = bound_text;
  if (p.model.delta_clamped > 0)
    p.warnings.push_back("model.delta: " + std::to_string(p.model.delta_clamped) +
                         " cells have delta > epsilon; delta lowered to epsilon there (the "
                         "pseudo-acoustic system is unstable otherwise)");
  if (c.time.dt) {
    p.dt = *c.time.dt;
    if (p.dt > p.dt_limit)
      throw ConfigError("time.dt", fmt(p.dt) + " s exceeds the stability limit " + bound_text, src);
  } else {
    p.dt = c.time.courant * p.dt_limit;
  }
  if (c.output.sample_interval) {
    const double si = *c.output.sample_interval;
    if (c.time.dt) {
      const double k = si / p.dt;
      if (std::fabs(k - std::round(k)) > 1e-6 * k || std::round(k) < 1)
        throw ConfigError("output.sample_interval",
                          fmt(si) + " s is not a whole multiple of time.dt " + fmt(p.dt) + " s",
                          src);
      p.out_every = static_cast<int>(std::round(k));
    } else {
      // Round dt down so the output sampling is a whole number of steps.
      p.out_every = static_cast<int>(std::ceil(si / p.dt - 1e-9));
      p.dt = si / p.out_every;
    }
  }
  // SEG-Y gathers hold the sample interval in whole microseconds: a dt of our own choosing is
  // rounded down to one; a given sampling must be one.
  const bool segy_gathers = c.output.has(OutputFormat::kSegy) && c.output.gathers;
  if (segy_gathers && !c.output.sample_interval && !c.time.dt && p.dt >= 1e-6)
    p.dt = std::floor(p.dt * 1e6 + 1e-6) * 1e-6;
  if (segy_gathers) {
    const int us = io::segy_interval_units(p.dt * p.out_every, 1e-6);
    if (us < 1 || us > io::kSegyMaxInterval)
      throw ConfigError(c.output.sample_interval ? "output.sample_interval" : "time.dt",
                        "the gathers' sample interval " + fmt(p.dt * p.out_every) +
                            " s is not a whole number of microseconds from 1 to " +
                            std::to_string(io::kSegyMaxInterval) +
                            ", as SEG-Y gathers (output.formats) need",
                        src);
  }
  p.nt = static_cast<int>(std::floor(c.time.duration / p.dt + 1e-9)) + 1;
  if (segy_gathers && p.nt_out() > io::kSegyMaxSamples)
    throw ConfigError("time.duration",
                      std::to_string(p.nt_out()) +
                          " samples per trace; SEG-Y gathers "
                          "(output.formats) hold up to " +
                          std::to_string(io::kSegyMaxSamples) + " (raise output.sample_interval)",
                      src);
  if (p.nt < 2)
    throw ConfigError("time.duration", "shorter than one time step " + fmt(p.dt) + " s", src);

  // Source (with [shots], the survey checks each shot), wavelet, sampling warning.
  if (!c.shots.present && !g.inside_physical(c.source.position))
    throw ConfigError("source.position",
                      point_text(c.source.position) + " is outside the physical domain " +
                          physical_domain_text(g),
                      src);
  p.wavelet = make_wavelet(c.source, p.dt, p.nt);
  p.fmax = max_frequency(c.source, p.wavelet, p.dt);
  const double hmax = std::max({h[0], h[1], h[2]});
  p.points_per_wavelength = p.fmax > 0 ? p.model.vmin / (p.fmax * hmax) : INFINITY;
  if (p.points_per_wavelength < 4.0)
    p.warnings.push_back("only " + fmt(p.points_per_wavelength, 3) +
                         " points per minimum wavelength (v_min " + fmt(p.model.vmin, 6) +
                         " m/s, f_max " + fmt(p.fmax, 4) + " Hz, spacing " + fmt(hmax, 6) +
                         " m); 4 or more are needed to keep numerical dispersion small");

  // Receivers.
  const bool have_receivers =
      !(c.receivers.layout == ReceiverLayout::kLine && c.receivers.count[0] == 0);
  p.receivers = receiver_positions(c.receivers, have_receivers, src);
  // Moving receivers are offsets from each shot: the survey places them and drops those outside.
  const bool moving = c.shots.present && c.shots.receivers == ReceiverMode::kMoving;
  for (size_t i = 0; i < p.receivers.size() && !moving; ++i)
    if (!g.inside_physical(p.receivers[i]))
      throw ConfigError(
          c.receivers.layout == ReceiverLayout::kFile ? "receivers.file" : "receivers",
          "receiver " + std::to_string(i) + " at " + point_text(p.receivers[i]) +
              " is outside the physical domain " + physical_domain_text(g),
          src);
  p.survey = make_survey(c, g, p.receivers, p.warnings);

  p.f_peak = c.source.wavelet == WaveletType::kRicker ? c.source.frequency : p.fmax / 2.5;
  // VTI: waves cross the x and y layers at up to v sqrt(1 + 2 eps) (TTI refuses CPML).
  const double vmax_h =
      aniso ? p.model.vmax * std::sqrt(1.0 + 2.0 * std::max(0.0f, p.model.eps_max)) : 0.0;
  p.spec = make_step_spec(g, c.boundary, p.model.vmax, p.dt, p.f_peak, vmax_h);

  // Snapshots: whole physical domain or a box, decimated.
  const SnapshotConfig& sc = c.output.snapshots;
  if (sc.enabled) {
    SnapshotPlan& s = p.snapshots;
    s.enabled = true;
    s.every = std::max(1, static_cast<int>(std::lround(sc.interval / p.dt)));
    const int dec_zyx[3] = {sc.decimation[2], sc.decimation[1], sc.decimation[0]};
    std::array<double, 3> lo_f{}, hi_f{};
    for (int a = 0; a < 3; ++a) {
      lo_f[a] = g.offset(a);
      hi_f[a] = g.offset(a) + g.physical_size(a) - 1;
    }
    if (sc.box) {
      const auto blo = g.to_index((*sc.box)[0]), bhi = g.to_index((*sc.box)[1]);
      for (int a = 0; a < 3; ++a) {
        lo_f[a] = std::max(lo_f[a], std::ceil(blo[a] - 1e-9));
        hi_f[a] = std::min(hi_f[a], std::floor(bhi[a] + 1e-9));
        if (hi_f[a] < lo_f[a])
          throw ConfigError("output.snapshots.box", "holds no grid cell inside the domain", src);
      }
    }
    int n[3];
    for (int a = 0; a < 3; ++a) {
      s.lo[a] = static_cast<int>(lo_f[a]);
      s.hi[a] = static_cast<int>(hi_f[a]) + 1;
      s.dec[a] = dec_zyx[a];
      n[a] = (s.hi[a] - s.lo[a] + s.dec[a] - 1) / s.dec[a];
      s.geometry.spacing[a] = h[a] * s.dec[a];
      s.geometry.origin[a] = g.origin(a) + (s.lo[a] - g.offset(a)) * h[a];
      s.geometry.decimation[a] = s.dec[a];
    }
    s.geometry.nz = n[0];
    s.geometry.ny = n[1];
    s.geometry.nx = n[2];
  }

  // Memory: the engine and one state on the device, traces beside them; the host's for the
  // cpu backend, with the model extended over the layout.
  const Physics ph = c.physics.equation;
  const size_t traces = (p.receivers.size() + 1) * static_cast<size_t>(p.nt) * sizeof(float);
  p.device_bytes = cuda_engine_bytes(ph, p.spec) + cuda_state_bytes(ph, p.spec) + 2 * traces;
  const int elem = c.kernel.precision == Precision::kFp64 ? 8 : 4;
  p.aux_bytes = static_cast<size_t>(cpml_aux_cells(p.spec)) * 4;
  p.host_bytes = reference::cpu_engine_bytes(ph, p.spec, elem) +
                 static_cast<size_t>(g.layout().size()) * 4 + traces;
  return p;
}

Medium layout_medium(const RunPlan& p) {
  Medium m;
  m.physics = p.config.physics.equation;
  m.velocity = extend_to_layout(p.grid, p.model);
  if (traits(m.physics).medium_arrays > 1) {
    m.epsilon = extend_to_layout(p.grid, p.model, p.model.epsilon);
    m.delta = extend_to_layout(p.grid, p.model, p.model.delta);
  }
  if (traits(m.physics).medium_arrays > 3) {
    m.theta = extend_to_layout(p.grid, p.model, p.model.theta);
    m.phi = extend_to_layout(p.grid, p.model, p.model.phi);
  }
  return m;
}

std::string describe_plan(const RunPlan& p) {
  const RunConfig& c = p.config;
  const Layout& l = p.grid.layout();
  std::ostringstream os;
  os << "grid        " << c.grid.nx << " x " << c.grid.ny << " x " << c.grid.nz
     << " physical cells (x, y, z), spacing " << c.grid.dx << ", " << c.grid.dy << ", " << c.grid.dz
     << " m\n";
  os << "            computational " << l.nx << " x " << l.ny << " x " << l.nz << " with absorbing "
     << p.grid.width_hi(2) << " cells/face"
     << (c.boundary.free_surface ? " (free surface on top)" : "") << " and halo " << p.grid.radius()
     << ", " << fmt(double(l.cells()) / 1e6, 5) << " Mcells\n";
  const BoundaryConfig& b = c.boundary;
  os << "boundary    " << to_string(b.type);
  if (b.type != BoundaryType::kNone)
    os << ", " << b.width << " cells/face, target reflection " << fmt(b.reflection, 3);
  if (p.spec.cpml_on())
    os << ", d0 " << fmt(p.spec.cpml.d0[2], 4) << " 1/s (x), alpha_max "
       << fmt(p.spec.cpml.alpha_max, 4) << " 1/s, power " << fmt(b.power, 3)
       << "; auxiliary fields " << fmt(p.aux_bytes / 1048576.0, 5) << " MiB";
  os << (b.free_surface ? "; free surface on top" : "") << "\n";
  os << "model       " << to_string(c.model.type) << ", v " << p.model.vmin << " .. "
     << p.model.vmax << " m/s\n";
  os << "physics     " << to_string(c.physics.equation) << ", order " << c.physics.order << "\n";
  if (!p.model.epsilon.empty()) {
    const auto range = [](const std::vector<float>& v, double scale) {
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      return fmt(*lo * scale, 4) + " .. " + fmt(*hi * scale, 4);
    };
    os << "anisotropy  epsilon " << range(p.model.epsilon, 1) << ", delta "
       << range(p.model.delta, 1);
    if (!p.model.theta.empty())
      os << ", theta " << range(p.model.theta, 180 / M_PI) << " deg, phi "
         << range(p.model.phi, 180 / M_PI) << " deg";
    os << "; source injected into p and q, receivers record p\n";
  }
  os << "time        dt " << fmt(p.dt, 6) << " s (stability limit " << fmt(p.dt_limit, 6)
     << " s, ratio " << fmt(p.dt / p.dt_limit, 3) << "), " << p.nt << " samples to "
     << fmt((p.nt - 1) * p.dt, 6) << " s\n";
  if (c.physics.equation != Physics::kAcoustic)
    os << "            stability limit " << p.dt_bound_text << "\n";
  os << "wavelet     " << to_string(c.source.wavelet) << ", f_max " << fmt(p.fmax, 4) << " Hz, "
     << fmt(p.points_per_wavelength, 3) << " points per minimum wavelength\n";
  const bool shots = c.shots.present;
  const bool moving = shots && c.shots.receivers == ReceiverMode::kMoving;
  os << "source      " << (shots ? std::string("at each shot") : point_text(c.source.position))
     << ", " << to_string(c.source.injection) << " injection\n";
  size_t rmin = 0, rmax = 0;
  for (size_t k = 0; k < p.survey.shots.size(); ++k) {
    const size_t n = p.survey.shots[k].receivers.size();
    rmin = k == 0 ? n : std::min(rmin, n);
    rmax = std::max(rmax, n);
  }
  os << "shots       " << p.survey.shots.size() << " (layout "
     << (shots ? to_string(c.shots.layout) : "source.position") << ", receivers "
     << (moving ? "moving" : "fixed") << "), " << p.receivers.size() << " receivers per shot ("
     << rmin << ".." << rmax << ")\n";
  os << "receivers   " << p.receivers.size() << (moving ? " offsets from each shot" : "")
     << ", recorded every " << fmt(p.out_every * p.dt, 6) << " s (" << p.nt_out() << " samples)\n";
  if (p.snapshots.enabled)
    os << "snapshots   every " << p.snapshots.every << " steps, " << p.snapshots.geometry.nx
       << " x " << p.snapshots.geometry.ny << " x " << p.snapshots.geometry.nz << " samples\n";
  os << "memory      " << fmt(p.device_bytes / 1048576.0, 5) << " MiB per device, "
     << fmt(p.host_bytes / 1048576.0, 5) << " MiB on the host (cpu backend)\n";
  for (const auto& w : p.warnings) os << "warning     " << w << "\n";
  return os.str();
}

}  // namespace seisfd
