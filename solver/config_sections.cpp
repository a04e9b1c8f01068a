// The required sections and [physics]: grid, model, physics, time, source; and read_config,
// which walks the whole document.
#include <algorithm>
#include <climits>

#include "io/error.hpp"
#include "io/segy.hpp"
#include "solver/config_reader.hpp"
#include "solver/config_text.hpp"

namespace seisfd::config_detail {
namespace {

std::string not_used(const char* key, const char* value) {
  return std::string("not used by ") + key + " = \"" + value + "\"";
}

// Keys of one type (model type, wavelet, layout) given with another type are errors.
void reject_others(const Section& s, const std::vector<std::string>& specific,
                   const std::vector<std::string>& allowed, const std::string& why) {
  for (const auto& k : specific)
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) s.reject(k, why);
}

// One anisotropy parameter: a number, one number per layer, or { path, dataset } (HDF5; a
// SEG-Y cube, .sgy or .segy, takes no dataset).
AnisoParam read_aniso(const Section& s, const std::string& k, const ModelConfig& m, double lo,
                      double hi) {
  AnisoParam a;
  const toml::node* node = s.find(k);
  if (!node) return a;
  const auto in_range = [&](double v) {
    if (!(v > lo && v <= hi))
      s.fail(k, "must be in (" + format_number(lo) + ", " + format_number(hi) + "] (got " +
                    format_number(v) + ")");
  };
  if (node->is_table()) {
    const Section t = *s.get_table(k);
    t.check_known({"path", "dataset"});
    a.kind = AnisoParam::Kind::kFile;
    a.path = t.need("path", t.get_path("path"));
    if (io::is_segy_path(a.path))
      t.reject("dataset", "not used with a SEG-Y path (a cube holds one volume)");
    else
      a.dataset = t.need("dataset", t.get_string("dataset"));
  } else if (node->is_array()) {
    if (m.type != ModelType::kLayered)
      s.fail(k,
             "one value per layer needs model.type = \"layered\" (give a number, or a table "
             "{ path, dataset })");
    a.kind = AnisoParam::Kind::kLayers;
    a.layers = *s.get_doubles(k);
    if (a.layers.size() != m.interfaces.size())
      s.fail(k, "has " + std::to_string(a.layers.size()) + " values but model.interfaces has " +
                    std::to_string(m.interfaces.size()) + " (one per layer)");
    for (double v : a.layers) in_range(v);
  } else if (node->is_number()) {
    a.kind = AnisoParam::Kind::kConstant;
    a.value = *s.get_double(k);
    in_range(a.value);
  } else {
    s.fail(k,
           "expected a number, an array of numbers (one per layer) or a table { path, "
           "dataset }, got " +
               describe(*node));
  }
  return a;
}

// grid.from_model: shape, origin and (where not given) spacing from model.path's SEG-Y cube.
void resolve_grid_from_model(const Section& grid, const Section& model, GridConfig& g,
                             const ModelConfig& m) {
  if (m.type != ModelType::kFile || !io::is_segy_path(m.path))
    grid.fail("from_model", "needs model.type = \"file\" with a SEG-Y model.path (.sgy, .segy)");
  io::ImageGeometry h;
  try {
    h = io::segy_cube_geometry(m.path);
  } catch (const io::IoError& e) {
    model.fail("path", e.what());
  }
  g.nx = h.nx;
  g.ny = h.ny;
  g.nz = h.nz;
  g.origin = {h.origin[2], h.origin[1], h.origin[0]};
  const double from_headers[3] = {h.spacing[2], h.spacing[1], h.spacing[0]};
  double* spacing[3] = {&g.dx, &g.dy, &g.dz};
  for (int a = 0; a < 3; ++a) {
    if (*spacing[a] > 0) continue;  // given: the model reader checks it against the headers
    if (!(from_headers[a] > 0))
      grid.fail("from_model", std::string("the cube in model.path has one sample along ") +
                                  "xyz"[a] + ", so its d" + "xyz"[a] + " is unknown: give grid.d" +
                                  "xyz"[a] + " (or grid.spacing)");
    *spacing[a] = from_headers[a];
  }
}

}  // namespace

GridConfig read_grid(const Section& s) {
  s.check_known({"nx", "ny", "nz", "spacing", "dx", "dy", "dz", "origin", "from_model"});
  GridConfig g;
  g.from_model = s.get_bool("from_model").value_or(false);
  if (g.from_model) {
    // The rest comes from model.path's SEG-Y headers (read_config); a spacing may be given.
    for (const char* k : {"nx", "ny", "nz", "origin"})
      s.reject(k, "taken from the SEG-Y headers of model.path with grid.from_model = true");
    if (const auto spacing = s.get_positive("spacing")) {
      for (const char* k : {"dx", "dy", "dz"})
        if (s.has(k)) s.fail(k, "cannot be combined with grid.spacing; give one or the other");
      g.dx = g.dy = g.dz = *spacing;
    }
    g.dx = s.get_positive("dx").value_or(g.dx);
    g.dy = s.get_positive("dy").value_or(g.dy);
    g.dz = s.get_positive("dz").value_or(g.dz);
    return g;
  }
  g.nx = s.need("nx", s.get_int("nx", 1));
  g.ny = s.need("ny", s.get_int("ny", 1));
  g.nz = s.need("nz", s.get_int("nz", 1));
  // Layout sizes (cells plus layers and halo, rows padded) are int per axis.
  constexpr int kMaxCells = 100000000;
  for (const auto& [k, n] : {std::pair<const char*, int>{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}})
    if (n > kMaxCells)
      s.fail(k, std::to_string(n) + " cells; at most " + std::to_string(kMaxCells) +
                    " per axis are supported");
  if (const auto spacing = s.get_positive("spacing")) {
    for (const char* k : {"dx", "dy", "dz"})
      if (s.has(k)) s.fail(k, "cannot be combined with grid.spacing; give one or the other");
    g.dx = g.dy = g.dz = *spacing;
  } else if (!s.has("dx") && !s.has("dy") && !s.has("dz")) {
    s.fail("spacing", "required key is missing (or give dx, dy and dz)");
  } else {
    const std::string hint = "give all of dx, dy, dz, or spacing";
    g.dx = s.need("dx", s.get_positive("dx"), hint);
    g.dy = s.need("dy", s.get_positive("dy"), hint);
    g.dz = s.need("dz", s.get_positive("dz"), hint);
  }
  g.origin = s.get_vec3("origin").value_or(g.origin);
  return g;
}

ModelConfig read_model(const Section& s, const GridConfig& grid) {
  s.check_known({"type", "vp", "interfaces", "velocities", "path", "dataset", "epsilon", "delta",
                 "theta", "phi"});
  ModelConfig m;
  m.type = s.need("type", s.get_enum("type", {ModelType::kConstant, ModelType::kLayered,
                                              ModelType::kSalt, ModelType::kFile}));
  const std::vector<std::string> specific{"vp", "interfaces", "velocities", "path", "dataset"};
  const std::string why = not_used("model.type", to_string(m.type));
  switch (m.type) {
    case ModelType::kConstant:
      reject_others(s, specific, {"vp"}, why);
      m.vp = s.need("vp", s.get_positive("vp"));
      break;
    case ModelType::kLayered: {
      reject_others(s, specific, {"interfaces", "velocities"}, why);
      m.interfaces = s.need("interfaces", s.get_doubles("interfaces"));
      m.velocities = s.need("velocities", s.get_doubles("velocities"));
      if (m.velocities.size() != m.interfaces.size())
        s.fail("velocities", "has " + std::to_string(m.velocities.size()) +
                                 " values but model.interfaces has " +
                                 std::to_string(m.interfaces.size()) + " (one per layer)");
      for (size_t i = 1; i < m.interfaces.size(); ++i)
        if (!(m.interfaces[i] > m.interfaces[i - 1]))
          s.fail("interfaces", "must be strictly increasing (got " +
                                   format_number(m.interfaces[i]) + " after " +
                                   format_number(m.interfaces[i - 1]) + ")");
      for (double v : m.velocities)
        if (!(v > 0)) s.fail("velocities", "must all be > 0 (got " + format_number(v) + ")");
      if (m.interfaces[0] > grid.origin[2])
        s.fail("interfaces", "the first interface (z = " + format_number(m.interfaces[0]) +
                                 " m) must be at or above the top of the grid (z = " +
                                 format_number(grid.origin[2]) + " m)");
      break;
    }
    case ModelType::kSalt:
      reject_others(s, specific, {}, why);
      break;
    case ModelType::kFile:
      reject_others(s, specific, {"path", "dataset"}, why);
      m.path = s.need("path", s.get_path("path"));
      if (io::is_segy_path(m.path))
        s.reject("dataset", "not used with a SEG-Y model.path (a cube holds one volume)");
      m.dataset = s.get_string("dataset").value_or(m.dataset);
      break;
  }
  // 1 + 2 eps and 1 + 2 delta must be positive; angles in degrees, any finite value.
  m.epsilon = read_aniso(s, "epsilon", m, -0.5, 1.0);
  m.delta = read_aniso(s, "delta", m, -0.5, 1.0);
  m.theta = read_aniso(s, "theta", m, -1e6, 1e6);
  m.phi = read_aniso(s, "phi", m, -1e6, 1e6);
  return m;
}

PhysicsConfig read_physics(const Section& s) {
  s.check_known({"equation", "order", "tti_operator"});
  PhysicsConfig p;
  p.equation = s.get_enum("equation", {Physics::kAcoustic, Physics::kVti, Physics::kTti})
                   .value_or(p.equation);
  p.order = s.get_int("order", INT_MIN).value_or(p.order);
  if (p.order < 2 || p.order > 16 || p.order % 2 != 0)
    s.fail("order", "must be an even integer from 2 to 16 (got " + std::to_string(p.order) + ")");
  if (p.equation != Physics::kTti)
    s.reject("tti_operator", not_used("physics.equation", to_string(p.equation)));
  p.tti_operator = s.get_enum("tti_operator", {TtiOperator::kNarrow, TtiOperator::kNested})
                       .value_or(p.tti_operator);
  if (p.tti_operator == TtiOperator::kNested && p.order % 4 != 0)
    s.fail("tti_operator",
           "\"nested\" needs physics.order 4, 8, 12 or 16 (its first "
           "derivatives are of half the order; got " +
               std::to_string(p.order) + ")");
  return p;
}

TimeConfig read_time(const Section& s) {
  s.check_known({"duration", "dt", "courant"});
  TimeConfig t;
  t.duration = s.need("duration", s.get_positive("duration"));
  t.dt = s.get_positive("dt");
  t.courant = s.get_double("courant").value_or(t.courant);
  if (!(t.courant > 0 && t.courant <= 1))
    s.fail("courant", "must be in (0, 1] (got " + format_number(t.courant) + ")");
  return t;
}

SourceConfig read_source(const Section& s) {
  s.check_known(
      {"position", "wavelet", "frequency", "delay", "amplitude", "file", "file_dt", "injection"});
  SourceConfig src;
  // Required without [shots], refused with it: read_config checks which.
  src.position = s.get_vec3("position").value_or(src.position);
  src.wavelet =
      s.get_enum("wavelet", {WaveletType::kRicker, WaveletType::kFile}).value_or(src.wavelet);
  const std::vector<std::string> specific{"frequency", "delay", "file", "file_dt"};
  const std::string why = not_used("source.wavelet", to_string(src.wavelet));
  if (src.wavelet == WaveletType::kRicker) {
    reject_others(s, specific, {"frequency", "delay"}, why);
    src.frequency = s.need("frequency", s.get_positive("frequency"));
    src.delay = s.get_double("delay");
    if (src.delay && *src.delay < 0)
      s.fail("delay", "must be >= 0 (got " + format_number(*src.delay) + ")");
  } else {
    reject_others(s, specific, {"file", "file_dt"}, why);
    src.file = s.need("file", s.get_path("file"));
    src.file_dt = s.need("file_dt", s.get_positive("file_dt"));
  }
  src.amplitude = s.get_double("amplitude").value_or(src.amplitude);
  src.injection = s.get_enum("injection", {PointInterp::kSinc, PointInterp::kTrilinear})
                      .value_or(src.injection);
  return src;
}

RunConfig read_config(const Context& ctx, const toml::table& root) {
  const Section top(ctx, root, "");
  top.check_known({"grid", "model", "physics", "time", "source", "shots", "receivers", "boundary",
                   "output", "kernel", "run", "parallel", "migration", "born"},
                  "section");
  const auto required = [&](const char* name) {
    auto s = top.get_table(name);
    if (!s) ctx.fail(name, "required section is missing", nullptr);
    return *s;
  };
  static const toml::table kEmpty;
  const auto optional = [&](const char* name) {
    return top.get_table(name).value_or(Section(ctx, kEmpty, name));
  };
  RunConfig c;
  c.source_path = ctx.source();
  const Section grid = required("grid");
  c.grid = read_grid(grid);
  const Section model = required("model");
  c.model = read_model(model, c.grid);
  if (c.grid.from_model) resolve_grid_from_model(grid, model, c.grid, c.model);
  c.physics = read_physics(optional("physics"));
  // Anisotropy keys belong to the anisotropic equations; the tilt to TTI only.
  const std::string why =
      std::string("not used by physics.equation = \"") + to_string(c.physics.equation) + "\"";
  if (c.physics.equation == Physics::kAcoustic)
    for (const char* k : {"epsilon", "delta", "theta", "phi"}) model.reject(k, why);
  if (c.physics.equation == Physics::kVti)
    for (const char* k : {"theta", "phi"}) model.reject(k, why + " (no tilt; use \"tti\")");
  c.time = read_time(required("time"));
  const Section source = required("source");
  const auto shots = top.get_table("shots");
  if (shots) {
    source.reject("position", "not used with [shots] (the shots give the positions)");
  } else {
    source.need("position", source.get_vec3("position"), "or give a [shots] section");
  }
  c.source = read_source(source);
  const auto receivers = top.get_table("receivers");
  if (receivers) {
    c.receivers = read_receivers(*receivers);
  } else {
    c.receivers.count = {0, 0};  // no [receivers]: no receivers, no gathers
  }
  if (shots) c.shots = read_shots(*shots, receivers.has_value());
  const Section boundary = optional("boundary");
  c.boundary = read_boundary(boundary);
  if (c.boundary.type == BoundaryType::kCpml && *traits(c.physics.equation).cpml_refusal)
    boundary.fail("type", traits(c.physics.equation).cpml_refusal);
  c.output = read_output(optional("output"), receivers.has_value());
  const Section kernel = optional("kernel");
  c.kernel = read_kernel(kernel);
  if (c.kernel.model_precision != ModelPrecision::kFp32 && !anisotropic(c.physics.equation))
    kernel.fail("model_precision", std::string("compact storage is implemented for "
                                               "physics.equation = \"vti\" and \"tti\" (got \"") +
                                       to_string(c.physics.equation) + "\"); use \"fp32\"");
  c.run = read_run(optional("run"));
  c.parallel = read_parallel(optional("parallel"));
  if (const auto migration = top.get_table("migration")) c.migration = read_migration(*migration);
  if (const auto born = top.get_table("born")) c.born = read_born(*born, c.migration);
  return c;
}

}  // namespace seisfd::config_detail
