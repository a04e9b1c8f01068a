// The anisotropic config (issue 4): the new keys and their errors (one line naming key and file
// line), the operator in the plan, the dt bound, the documented delta > eps behaviour, the salt
// demo and the shipped configs, parameters from HDF5 files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "io/model_file.hpp"
#include "kernels/propagation.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/backend.hpp"
#include "solver/plan.hpp"
#include "tests/support.hpp"

namespace seisfd {
namespace {

constexpr double kDeg = M_PI / 180.0;

// The plan's source through its whole run on the CPU backend: the diagnostics at the end.
Diagnostics run_on_cpu(const RunPlan& p) {
  auto choice = make_engine(p, Backend::kCpu);
  const auto S = make_points(p.grid, p.spec, {p.config.source.position}, PointInterp::kSinc,
                             PointRole::kSource);
  Propagation prop(*choice.engine);
  prop.set_injection(S, p.wavelet, p.nt);
  prop.steps(0, p.nt - 1);
  return prop.diagnostics();
}

// Config: the new keys, their errors (one line naming key and file line), the dt bound, and
// the documented delta > eps behaviour (clamped to eps, the count reported).

const char* kVtiLayered = R"(
[grid]
nx = 24
ny = 20
nz = 30
spacing = 10.0
[model]
type = "layered"
interfaces = [0.0, 100.0, 200.0]
velocities = [1500.0, 2000.0, 2500.0]
epsilon = [0.0, 0.1, 0.2]
delta = [0.0, 0.15, 0.1]
[physics]
equation = "vti"
order = 8
[time]
duration = 0.05
[source]
position = [120.0, 100.0, 50.0]
frequency = 15.0
[receivers]
layout = "line"
start = [20.0, 100.0, 20.0]
end = [220.0, 100.0, 20.0]
count = 5
[boundary]
type = "sponge"
width = 6
)";

ConfigError config_error(const std::string& text) {
  try {
    parse_config(text, "aniso.toml");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError";
  return ConfigError("", "none");
}

std::string with(std::string text, const std::string& old, const std::string& now) {
  const auto at = text.find(old);
  EXPECT_NE(at, std::string::npos) << old;
  return text.replace(at, old.size(), now);
}

TEST(AnisoConfig, ErrorsNameKeyAndLine) {
  struct Case {
    std::string text, key, words;
    int line;
  };
  const std::vector<Case> cases{
      {with(kVtiLayered, "epsilon = [0.0, 0.1, 0.2]", "epsilon = [0.0, 0.1]"), "model.epsilon",
       "one per layer", 11},
      {with(kVtiLayered, "epsilon = [0.0, 0.1, 0.2]", "epsilon = [0.0, 0.1, -0.7]"),
       "model.epsilon", "(-0.5, 1]", 11},
      {with(kVtiLayered, "equation = \"vti\"", "equation = \"acoustic\""), "model.epsilon",
       "not used by physics.equation", 11},
      {with(kVtiLayered, "delta = [0.0, 0.15, 0.1]", "delta = [0.0, 0.15, 0.1]\ntheta = 30"),
       "model.theta", "no tilt", 13},
      {with(with(kVtiLayered, "equation = \"vti\"", "equation = \"tti\""), "type = \"sponge\"",
            "type = \"cpml\""),
       "boundary.type", "not implemented", 27},
      {with(kVtiLayered, "equation = \"vti\"", "equation = \"hti\""), "physics.equation", "\"tti\"",
       14},
      // physics.tti_operator: TTI only, a known name, "nested" at orders divisible by 4.
      {with(kVtiLayered, "order = 8", "order = 8\ntti_operator = \"nested\""),
       "physics.tti_operator", "not used by physics.equation", 16},
      {with(with(kVtiLayered, "equation = \"vti\"", "equation = \"tti\""), "order = 8",
            "order = 8\ntti_operator = \"wide\""),
       "physics.tti_operator", "\"nested\"", 16},
      {with(with(kVtiLayered, "equation = \"vti\"", "equation = \"tti\""), "order = 8",
            "order = 6\ntti_operator = \"nested\""),
       "physics.tti_operator", "order 4, 8, 12 or 16", 16},
  };
  for (const auto& c : cases) {
    const ConfigError e = config_error(c.text);
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

// physics.tti_operator reaches the plan's step and `seisfd check` says which operator runs.
TEST(AnisoConfig, TtiOperatorInThePlan) {
  const std::string tti = with(kVtiLayered, "equation = \"vti\"", "equation = \"tti\"");
  const RunPlan narrow = make_plan(parse_config(tti, "aniso.toml"));
  EXPECT_EQ(narrow.spec.tti_operator, TtiOperator::kNarrow);
  const RunPlan nested = make_plan(
      parse_config(with(tti, "order = 8", "order = 8\ntti_operator = \"nested\""), "aniso.toml"));
  EXPECT_EQ(nested.spec.tti_operator, TtiOperator::kNested);
  EXPECT_EQ(nested.spec.cross_radius(), 2);
  const std::string text = describe_plan(nested);
  EXPECT_NE(text.find("order 8, operator nested"), std::string::npos) << text;
}

// dt from the bound with v_max sqrt(1 + 2 eps_max), printed by `seisfd check`; delta > eps in
// the second layer (0.15 > 0.1): clamped, and the plan warns with the number of cells.
TEST(AnisoConfig, DtBoundAndDeltaAboveEpsilonClamped) {
  const RunPlan p = make_plan(parse_config(kVtiLayered, "aniso.toml"));
  const double h[3] = {10.0, 10.0, 10.0};
  // eps_max is stored in fp32.
  EXPECT_NEAR(p.dt_limit, stability_limit(2500.0 * std::sqrt(1.4), 4, h), 1e-8 * p.dt_limit);
  EXPECT_LE(p.dt, p.dt_limit);
  const std::string text = describe_plan(p);
  EXPECT_NE(text.find("sqrt(1 + 2 eps_max)"), std::string::npos) << text;
  // Layer 2 spans z = 100 .. 190 m: 10 rows of 24 x 20 cells.
  const int64_t expected = 10 * 24 * 20;
  EXPECT_EQ(p.model.delta_clamped, expected);
  bool warned = false;
  for (const auto& w : p.warnings)
    warned |= w.find(std::to_string(expected) + " cells have delta > epsilon") != std::string::npos;
  EXPECT_TRUE(warned) << text;
  for (size_t i = 0; i < p.model.delta.size(); ++i) ASSERT_LE(p.model.delta[i], p.model.epsilon[i]);
  // The clamped model runs (stays finite and non-zero) through the engine factory.
  const Diagnostics d = run_on_cpu(p);
  EXPECT_EQ(d.nonfinite, 0);
  EXPECT_GT(d.max_abs, 0.0);
  // Without the clamp the engines refuse the model, naming the count.
  Medium raw = layout_medium(p);
  raw.delta = raw.epsilon;
  raw.delta[p.grid.layout().idx(12, 10, 10)] += 0.05f;
  try {
    reference::CpuEngine<float> e(p.spec, raw, p.dt);
    ADD_FAILURE() << "engine accepted delta > epsilon";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 cells have delta > epsilon"), std::string::npos)
        << e.what();
  }
}

// The salt demo's anisotropic variant: shale-like sediments, isotropic water and salt, tilt
// draping over the dome.
TEST(AnisoConfig, SaltDemoTti) {
  const std::string text =
      with(with(with(kVtiLayered, "type = \"layered\"", "type = \"salt\""),
                "interfaces = [0.0, 100.0, 200.0]\nvelocities = [1500.0, 2000.0, 2500.0]\n"
                "epsilon = [0.0, 0.1, 0.2]\ndelta = [0.0, 0.15, 0.1]\n",
                ""),
           "equation = \"vti\"", "equation = \"tti\"");
  const RunPlan p = make_plan(parse_config(text, "salt.toml"));
  const auto& m = p.model;
  ASSERT_EQ(m.theta.size(), m.vp.size());
  double max_theta = 0;
  for (size_t i = 0; i < m.vp.size(); ++i) {
    if (m.vp[i] == 1500.0f || m.vp[i] == 4500.0f) {
      EXPECT_EQ(m.epsilon[i], 0.0f);
      EXPECT_EQ(m.delta[i], 0.0f);
    } else {
      EXPECT_GE(m.epsilon[i], 0.1f);
      EXPECT_LE(m.delta[i], m.epsilon[i]);
      max_theta = std::max(max_theta, static_cast<double>(m.theta[i]));
    }
  }
  EXPECT_GT(max_theta, 20 * kDeg);
  EXPECT_EQ(m.delta_clamped, 0);
}

// The shipped anisotropic configs run (a few steps on the CPU backend; the GPU runs of the
// whole configs are in bench/NOTES.md).
TEST(AnisoConfig, ShippedConfigsRun) {
  for (const char* name : {"vti_layered", "tti_salt"}) {
    const std::string path = std::string(SEISFD_SOURCE_DIR) + "/configs/" + name + ".toml";
    const RunPlan p = make_plan(load_config(path, {"time.duration=0.004"}));
    const Diagnostics d = run_on_cpu(p);
    std::printf("[configs] %s: %d steps, max|p| %.3e\n", name, p.nt - 1, d.max_abs);
    EXPECT_EQ(d.nonfinite, 0) << name;
    EXPECT_GT(d.max_abs, 0.0) << name;
  }
}

// Parameters from HDF5 datasets of the grid's shape; a wrong shape names the key.
TEST(AnisoConfig, ParametersFromHdf5) {
  const std::string dir = (std::filesystem::temp_directory_path() / "seisfd_aniso_h5").string();
  std::filesystem::create_directories(dir);
  const std::string h5 = dir + "/aniso.h5";
  const int nz = 30, ny = 20, nx = 24;
  std::vector<float> eps(nz * ny * nx), theta(nz * ny * nx);
  for (size_t i = 0; i < eps.size(); ++i) {
    eps[i] = 0.1f + 0.001f * static_cast<float>(i % 97);
    theta[i] = static_cast<float>(i % 61);
  }
  io::write_volume(h5, "epsilon", {nz, ny, nx}, eps.data());
  io::write_volume(dir + "/theta.h5", "theta", {nz, ny, nx}, theta.data());
  io::write_volume(dir + "/small.h5", "epsilon", {nz, ny, nx - 1}, eps.data());
  std::string text = with(kVtiLayered, "equation = \"vti\"", "equation = \"tti\"");
  text = with(text, "epsilon = [0.0, 0.1, 0.2]",
              "epsilon = { path = \"" + h5 + "\", dataset = \"epsilon\" }");
  text = with(text, "delta = [0.0, 0.15, 0.1]",
              "delta = 0.05\ntheta = { path = \"" + dir + "/theta.h5\", dataset = \"theta\" }");
  const RunPlan p = make_plan(parse_config(text, "h5.toml"));
  for (size_t i = 0; i < eps.size(); ++i) {
    ASSERT_EQ(p.model.epsilon[i], eps[i]);
    ASSERT_NEAR(p.model.theta[i], theta[i] * kDeg, 1e-6);
    ASSERT_EQ(p.model.delta[i], 0.05f);
  }
  try {  // the file is read when the model is built
    make_plan(parse_config(with(text, h5, dir + "/small.h5"), "h5.toml"));
    ADD_FAILURE() << "no error for a dataset of the wrong shape";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "model.epsilon") << e.what();
    EXPECT_NE(std::string(e.what()).find("small.h5"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seisfd
