#include "solver/plan.hpp"

#include <algorithm>
#include <cmath>

#include "io/segy.hpp"
#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/backend.hpp"
#include "solver/resources.hpp"
#include "solver/text_format.hpp"
#include "solver/wavelet.hpp"

namespace seisfd {
namespace {

// Host memory of the model, the model over the layout and (on the cpu backend) the engine,
// known from the config alone: checked before the model is built.
HostMemoryNeed grid_memory(const RunConfig& c, const SimGrid& g) {
  HostMemoryNeed m;
  const Physics ph = c.physics.equation;
  const double arrays = traits(ph).medium_arrays;
  m.model = double(c.grid.nx) * c.grid.ny * c.grid.nz * arrays * 4;
  m.medium = double(g.layout().size()) * arrays * 4;
  if (auto_backend(c.kernel.backend) == Backend::kCpu) {
    const int elem = c.kernel.precision == Precision::kFp64 ? 8 : 4;
    StepSpec s = make_step_spec(g, c.boundary, 1, 1, 1);
    s.tti_operator = c.physics.tti_operator;
    m.fields = double(reference::cpu_engine_bytes(ph, s, elem));
  }
  return m;
}

// kernel.variant, before anything is allocated, as the engine would take it: on the cpu backend
// one of its variants (kernels/cpu/cpu_variants.hpp); on the GPU "auto" or physics/oN/technique
// of this config's physics and order with a technique that exists for the physics
// (kernels/cuda/variants.def lists the files physics_technique, known in every build).
void check_variant(const RunConfig& c) {
  const std::string& v = c.kernel.variant;
  if (v == "auto") return;
  const std::string shown = v.size() > 60 ? v.substr(0, 57) + "..." : v;
  if (auto_backend(c.kernel.backend) == Backend::kCpu) {
    try {
      cpu::resolve_cpu_variant(v, c.physics.equation, c.physics.order, c.physics.tti_operator);
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      if (what.size() > 200) what = what.substr(0, 197) + "...";
      throw ConfigError("kernel.variant", what, c.source_path);
    }
    return;
  }
  static const char* const files[] = {
#define SEISFD_VARIANT_FILE(f) #f,
#include "kernels/cuda/variants.def"
#undef SEISFD_VARIANT_FILE
  };
  const std::string physics = to_string(c.physics.equation);
  const std::string prefix = physics + "/o" + std::to_string(c.physics.order) + "/";
  std::string techniques;
  bool known = false;
  for (const char* f : files) {
    const std::string name(f);
    if (name.rfind(physics + "_", 0) != 0) continue;
    const std::string t = name.substr(physics.size() + 1);
    techniques += (techniques.empty() ? "" : ", ") + t;
    if (v == prefix + t) known = true;
  }
  if (!known)
    throw ConfigError("kernel.variant",
                      "'" + shown + "' is not a GPU kernel variant for this config: expected " +
                          "\"auto\" or " + prefix + "TECHNIQUE with TECHNIQUE one of " +
                          techniques + " (seisfd kernels lists what this build has)",
                      c.source_path);
}

constexpr const char* kMemoryHint =
    "a smaller grid, fewer receivers or a shorter time.duration would fit (seisfd check prints "
    "the estimate)";

}  // namespace

double stability_limit(double vmax, int radius, const double h[3]) {
  // In units of the smallest spacing, so that tiny or huge spacings neither under- nor overflow.
  const double l1 = second_derivative_spectral_radius(radius);
  const double hmin = std::min({h[0], h[1], h[2]});
  double lambda = 0;
  for (int a = 0; a < 3; ++a) lambda += l1 * (hmin / h[a]) * (hmin / h[a]);
  return 2.0 / std::sqrt(lambda) * (hmin / vmax);
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

RunPlan make_plan(const RunConfig& c, bool summary_only) {
  const std::string& src = c.source_path;
  {
    // Before anything of the grid's size exists (the model is built next).
    const SimGrid g0(c.grid, c.boundary, c.physics.order);
    HostMemoryNeed need = grid_memory(c, g0);
    const double nrec = c.receivers.layout == ReceiverLayout::kGrid
                            ? double(c.receivers.count[0]) * c.receivers.count[1]
                        : c.receivers.layout == ReceiverLayout::kLine ? c.receivers.count[0]
                                                                      : 0;
    need.traces = nrec * sizeof(Vec3);
    require_host_memory(need, kMemoryHint);
  }
  RunPlan p(c, SimGrid(c.grid, c.boundary, c.physics.order),
            summary_only ? summarize_model(c) : build_model(c));
  const SimGrid& g = p.grid;
  const double h[3] = {c.grid.dz, c.grid.dy, c.grid.dx};
  check_variant(c);

  // Time step: from the stability bound, or the user's, which must not exceed it.
  // Anisotropy: the fastest phase velocity is v sqrt(1 + 2 eps) (docs/physics.md §3).
  const bool aniso = c.physics.equation != Physics::kAcoustic;
  const double v_bound = p.model.vmax * std::sqrt(1.0 + 2.0 * std::max(0.0f, p.model.eps_max));
  p.dt_limit = stability_limit(v_bound, g.radius(), h);
  const std::string bound_text =
      significant(p.dt_limit) + " s for v_max " + significant(p.model.vmax, 6) + " m/s" +
      (aniso ? " x sqrt(1 + 2 eps_max), eps_max " + significant(p.model.eps_max, 4)
             : std::string()) +
      " at order " + std::to_string(c.physics.order);
  p.dt_bound_text = bound_text;
  if (p.model.delta_clamped > 0)
    p.warnings.push_back("model.delta: " + std::to_string(p.model.delta_clamped) +
                         " cells have delta > epsilon; delta lowered to epsilon there (the "
                         "pseudo-acoustic system is unstable otherwise)");
  if (!(p.dt_limit > 0))
    throw ConfigError("grid.spacing",
                      "the stability limit for v_max " + significant(p.model.vmax, 6) +
                          " m/s and spacing " + significant(std::min({h[0], h[1], h[2]}), 6) +
                          " m is " + significant(p.dt_limit) + " s: no time step is possible",
                      src);
  if (c.time.dt) {
    p.dt = *c.time.dt;
    // Accepts a dt equal to the limit up to rounding; the messages print enough digits to show
    // by how much a refused one is above it.
    if (p.dt > p.dt_limit * (1 + 1e-12))
      throw ConfigError("time.dt",
                        significant(p.dt, 9) + " s exceeds the stability limit " +
                            significant(p.dt_limit, 9) +
                            bound_text.substr(bound_text.find(" s for")) + " (at most " +
                            significant_down(p.dt_limit, 6) + " s)",
                        src);
  } else {
    p.dt = c.time.courant * p.dt_limit;
  }
  // Counts are computed in floating point and range-checked before any integer holds them.
  const double steps = c.time.duration / p.dt;
  const std::string dt_why = c.time.dt ? std::string("time.dt")
                                       : "the stability limit for v_max " +
                                             significant(p.model.vmax, 6) + " m/s and spacing " +
                                             significant(std::min({h[0], h[1], h[2]}), 6) + " m";
  if (!(steps + 1 <= double(kMaxTimeSamples)))
    throw ConfigError("time.duration",
                      significant(c.time.duration, 6) + " s is " + significant(steps, 3) +
                          " time steps of " + significant(p.dt, 6) + " s (dt from " + dt_why +
                          "); at most " + std::to_string(kMaxTimeSamples - 1) +
                          " steps are supported",
                      src);
  if (c.output.sample_interval) {
    const double si = *c.output.sample_interval;
    if (si > c.time.duration)
      throw ConfigError("output.sample_interval",
                        significant(si, 6) + " s is longer than time.duration " +
                            significant(c.time.duration, 6) + " s",
                        src);
    if (c.time.dt) {
      const double k = si / p.dt;
      if (std::fabs(k - std::round(k)) > 1e-6 * k || std::round(k) < 1)
        throw ConfigError(
            "output.sample_interval",
            significant(si) + " s is not a whole multiple of time.dt " + significant(p.dt) + " s",
            src);
      p.out_every = static_cast<int>(std::round(k));
    } else {
      // Round dt down so the output sampling is a whole number of steps.
      p.out_every = static_cast<int>(std::max(1.0, std::ceil(si / p.dt - 1e-9)));
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
                        "the gathers' sample interval " + significant(p.dt * p.out_every) +
                            " s is not a whole number of microseconds from 1 to " +
                            std::to_string(io::kSegyMaxInterval) +
                            ", as SEG-Y gathers (output.formats) need",
                        src);
  }
  const double samples = std::floor(c.time.duration / p.dt + 1e-9) + 1;
  if (!(samples <= double(kMaxTimeSamples)))
    throw ConfigError("time.duration",
                      significant(c.time.duration, 6) + " s is " + significant(samples, 3) +
                          " samples of dt " + significant(p.dt, 6) + " s; at most " +
                          std::to_string(kMaxTimeSamples) + " are supported",
                      src);
  p.nt = static_cast<int>(samples);
  if (segy_gathers && p.nt_out() > io::kSegyMaxSamples)
    throw ConfigError("time.duration",
                      std::to_string(p.nt_out()) +
                          " samples per trace; SEG-Y gathers "
                          "(output.formats) hold up to " +
                          std::to_string(io::kSegyMaxSamples) + " (raise output.sample_interval)",
                      src);
  if (p.nt < 2)
    throw ConfigError("time.duration",
                      significant(c.time.duration, 6) + " s is shorter than one time step " +
                          significant(p.dt, 6) + " s",
                      src);
  {
    // Before the wavelet, the receivers and their traces exist.
    HostMemoryNeed need = grid_memory(c, g);
    const double nrec = c.receivers.layout == ReceiverLayout::kGrid
                            ? double(c.receivers.count[0]) * c.receivers.count[1]
                        : c.receivers.layout == ReceiverLayout::kLine ? c.receivers.count[0]
                                                                      : 0;
    need.traces = nrec * (sizeof(Vec3) + double(p.nt) * (sizeof(double) + sizeof(float)));
    need.wavelet = double(p.nt) * sizeof(double);
    require_host_memory(need, kMemoryHint);
  }

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
    p.warnings.push_back("only " + significant(p.points_per_wavelength, 3) +
                         " points per minimum wavelength (v_min " + significant(p.model.vmin, 6) +
                         " m/s, f_max " + significant(p.fmax, 4) + " Hz, spacing " +
                         significant(hmax, 6) +
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
  p.spec.tti_operator = c.physics.tti_operator;

  // Snapshots: whole physical domain or a box, decimated.
  const SnapshotConfig& sc = c.output.snapshots;
  const double run_time = (p.nt - 1) * p.dt;
  const bool snapshots_fit = !sc.enabled || sc.interval <= run_time * (1 + 1e-9);
  if (!snapshots_fit)
    p.warnings.push_back("output.snapshots.interval: " + significant(sc.interval, 6) +
                         " s is longer than the run (" + significant(run_time, 6) +
                         " s): no snapshot is taken");
  if (sc.enabled && snapshots_fit) {
    SnapshotPlan& s = p.snapshots;
    s.enabled = true;
    if (sc.interval < 0.5 * p.dt)
      throw ConfigError("output.snapshots.interval",
                        significant(sc.interval, 6) + " s is shorter than the time step dt " +
                            significant(p.dt, 6) + " s (snapshots are taken at time steps)",
                        src);
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
  p.device_bytes = cuda_engine_bytes(ph, p.spec, false, c.kernel.model_precision) +
                   cuda_state_bytes(ph, p.spec) + 2 * traces;
  p.aux_bytes = static_cast<size_t>(cpml_aux_cells(p.spec)) * 4;
  p.host_need = grid_memory(c, g);
  p.host_need.traces =
      double(p.receivers.size()) * (sizeof(Vec3) + double(p.nt) * (sizeof(double) + sizeof(float)));
  p.host_need.wavelet = double(p.nt) * sizeof(double);
  if (p.snapshots.enabled)
    p.host_need.snapshot = double(p.snapshots.geometry.nx) * p.snapshots.geometry.ny *
                           p.snapshots.geometry.nz * sizeof(float);
  p.host_bytes = static_cast<size_t>(p.host_need.total());
  // Disk: the gathers of every shot, the snapshots of the first, a checkpoint (the state and
  // the traces) when asked for.
  for (const Shot& shot : p.survey.shots)
    p.disk_need.gathers += double(shot.receivers.size()) * (double(p.nt_out()) * 4 + 24);
  if (p.snapshots.enabled)
    p.disk_need.snapshots =
        double((p.nt - 1) / p.snapshots.every) *
        (double(p.snapshots.geometry.nx) * p.snapshots.geometry.ny * p.snapshots.geometry.nz * 4 +
         8);
  if (c.run.checkpoint_steps > 0 || c.run.checkpoint_seconds > 0) {
    const int elem = c.kernel.precision == Precision::kFp64 ? 8 : 4;
    size_t rec = 0;
    for (const Shot& shot : p.survey.shots) rec = std::max(rec, shot.receivers.size());
    p.disk_need.checkpoint = double(2 * traits(ph).fields) * double(g.layout().size()) * elem +
                             double(cpml_aux_cells(p.spec)) * elem + double(rec) * p.nt * 8;
  }
  require_host_memory(p.host_need, kMemoryHint);
  return p;
}

Medium layout_medium(const RunPlan& p) {
  return layout_medium(p, p.grid.layout(), {0, 0, 0});
}

Medium layout_medium(const RunPlan& p, const Layout& l, const std::array<int, 3>& at) {
  Medium m;
  m.physics = p.config.physics.equation;
  m.precision = p.config.kernel.model_precision;
  const auto extend = [&](const std::vector<float>& f) {
    return extend_to_layout(p.grid, p.model, f, l, at);
  };
  m.velocity = extend(p.model.vp);
  if (traits(m.physics).medium_arrays > 1) {
    m.epsilon = extend(p.model.epsilon);
    m.delta = extend(p.model.delta);
  }
  if (traits(m.physics).medium_arrays > 3) {
    m.theta = extend(p.model.theta);
    m.phi = extend(p.model.phi);
  }
  return m;
}

}  // namespace seisfd
