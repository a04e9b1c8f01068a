// The engine contract (kernels/engine.hpp), written once and run for every backend and physics:
// a runner per backend makes the engine (GROMACS's test runners), the same problem and the
// same checks for each, SCOPED_TRACE naming the case. What RTM, checkpoints and ranks rely on:
// batching steps changes nothing; a state saved (to memory or a file) and loaded continues
// bit for bit; copies and zeroed states behave as fresh ones; one engine runs shot after shot,
// several states at once and both directions; edge strips read and write exactly their cells.
// The CUDA runner skips visibly without a device and fails under SEISFD_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include "io/state_file.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

struct Runner {
  const char* name;
  bool gpu;
  bool fp64;
  std::function<std::unique_ptr<Engine>(const StepSpec&, const Medium&, double)> make;
};

const Runner kRunners[] = {
    {"cpu_fp64", false, true,
     [](const StepSpec& s, const Medium& m, double dt) {
       return reference::make_cpu_engine(s, m, dt, true);
     }},
    {"cpu_fp32", false, false,
     [](const StepSpec& s, const Medium& m, double dt) {
       return reference::make_cpu_engine(s, m, dt, false);
     }},
    // The registry's preferred variant (auto without measuring is the preference order).
    {"cuda", true, false,
     [](const StepSpec& s, const Medium& m, double dt) {
       return make_cuda_engine(s, m, dt, test::variant("auto"));
     }},
};

struct ContractCase {
  const Runner* runner;
  Physics physics;
  bool cpml;  // CPML + free surface, else sponge + free surface
  std::string label() const {
    return std::string(runner->name) + "_" + to_string(physics) + (cpml ? "_cpml" : "_sponge");
  }
};

std::vector<ContractCase> cases() {
  std::vector<ContractCase> out;
  for (const Runner& r : kRunners)
    for (Physics p : kAllPhysics)
      for (bool cpml : {false, true})
        if (!(cpml && *traits(p).cpml_refusal)) out.push_back({&r, p, cpml});
  return out;
}

// A small heterogeneous problem with every part of a step: absorbing layers, free surface,
// off-grid sources and receivers, tilted anisotropy.
struct ContractSetup {
  test::Problem p;
  Medium medium;
  SparsePoints src, src2, rec;
  std::vector<double> w;
  int nt = 61;
};

ContractSetup make_setup(const ContractCase& c) {
  const BoundaryConfig b = c.cpml ? test::cpml(6, 20.0, true) : test::sponge(6, true);
  ContractSetup s{
      test::homogeneous(test::cube_grid(26, 22, 20, 10.0), b, 8, 2000.0, 0.9), {}, {}, {}, {}, {}};
  const Layout& l = s.p.spec.layout;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        s.p.velocity[l.idx(z, y, x)] =
            static_cast<float>(1800.0 + 200.0 * std::sin(0.2 * x + 0.1 * z));
  const double vmax = 2000.0 * std::sqrt(1.6);
  s.p.dt = 0.8 * stability_limit(vmax, 4, s.p.spec.h);
  s.p.spec = make_step_spec(s.p.grid, b, 2000.0, s.p.dt, 20.0, vmax);
  if (c.physics == Physics::kAcoustic) {
    s.medium = s.p.medium();
  } else {
    std::mt19937 rng(3);
    s.medium = test::make_aniso_model(s.p, test::smooth_random_case(c.physics, rng));
  }
  s.src = make_points(s.p.grid, s.p.spec, {{131.3, 101.7, 90.2}}, PointInterp::kSinc,
                      PointRole::kSource);
  s.src2 = make_points(s.p.grid, s.p.spec, {{60.0, 150.5, 120.0}}, PointInterp::kSinc,
                       PointRole::kSource);
  s.rec = make_points(s.p.grid, s.p.spec, {{40.0, 60.0, 20.0}, {200.5, 120.0, 150.0}},
                      PointInterp::kSinc, PointRole::kReceiver);
  SourceConfig sc;
  sc.frequency = 20;
  s.w = make_wavelet(sc, s.p.dt, s.nt);
  return s;
}

// Every field and memory variable of a state, as bytes (bit-for-bit comparisons).
std::vector<unsigned char> bytes(const WaveState& st) {
  std::vector<unsigned char> out;
  for (const StateArray& a : st.save().arrays) out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

class EngineContract : public ::testing::TestWithParam<ContractCase> {
 protected:
  void SetUp() override {
    if (GetParam().runner->gpu) SEISFD_REQUIRE_DEVICE_OR_SKIP();
    setup_ = std::make_unique<ContractSetup>(make_setup(GetParam()));
    engine_ = GetParam().runner->make(s_().p.spec, s_().medium, s_().p.dt);
  }
  // A fresh propagation of source `src` through steps [0, n) in the given chunks.
  Propagation run(const SparsePoints& src, const std::vector<int>& chunks) {
    Propagation p(*engine_);
    p.set_injection(src, s_().w, s_().nt);
    p.set_recording(s_().rec, s_().nt);
    int n = 0;
    for (int c : chunks) {
      p.steps(n, n + c);
      n += c;
    }
    return p;
  }
  const ContractSetup& s_() const { return *setup_; }
  std::unique_ptr<ContractSetup> setup_;
  std::unique_ptr<Engine> engine_;
};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EngineContract);

TEST_P(EngineContract, BatchingStepsChangesNothing) {
  Propagation a = run(s_().src, {60});
  Propagation b = run(s_().src, {1, 7, 2, 13, 1, 1, 20, 15});
  EXPECT_EQ(a.state().step(), 60);
  EXPECT_EQ(bytes(a.state()), bytes(b.state()));
  EXPECT_EQ(a.recorded(), b.recorded());
  double peak = 0;
  for (double v : a.recorded()) peak = std::max(peak, std::fabs(v));
  EXPECT_GT(peak, 0.0) << "the comparison is not of zeros";
}

TEST_P(EngineContract, SavedStateContinuesBitForBit) {
  Propagation a = run(s_().src, {25});
  const StateImage at25 = a.state().save();
  EXPECT_EQ(at25.step, 25);
  a.steps(25, 60);
  // Through a file, into a state that has seen other work first.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("seisfd_contract_" + GetParam().label() + ".h5"))
          .string();
  io::write_state_file(path, at25);
  Propagation b = run(s_().src2, {10});
  b.state().load(io::read_state_file(path));
  std::filesystem::remove(path);
  EXPECT_EQ(b.state().step(), 25);
  b.set_recording(s_().rec, s_().nt);
  b.set_injection(s_().src, s_().w, s_().nt);
  b.steps(25, 60);
  EXPECT_EQ(bytes(a.state()), bytes(b.state()));
  const auto ta = a.recorded(), tb = b.recorded();
  for (int r = 0; r < s_().rec.count(); ++r)
    for (int n = 26; n < 61; ++n)
      ASSERT_EQ(ta[r * s_().nt + n], tb[r * s_().nt + n]) << "receiver " << r << " sample " << n;
  // An image from another engine's states is refused.
  StateImage other = at25;
  other.engine = "another engine";
  EXPECT_THROW(b.state().load(other), std::invalid_argument);
}

TEST_P(EngineContract, CopiesAndZeroedStatesBehaveAsFresh) {
  Propagation a = run(s_().src, {30});
  Propagation b(*engine_);
  b.state().copy_from(a.state());
  EXPECT_EQ(bytes(a.state()), bytes(b.state()));
  b.set_injection(s_().src, s_().w, s_().nt);
  a.steps(30, 60);
  b.steps(30, 60);
  EXPECT_EQ(bytes(a.state()), bytes(b.state()));
  // zero() gives back the state of a fresh propagation: the same run again is bit-identical.
  const auto first = bytes(a.state());
  const auto traces = a.recorded();
  a.reset();
  EXPECT_EQ(a.state().step(), 0);
  a.steps(0, 60);
  EXPECT_EQ(bytes(a.state()), first);
  EXPECT_EQ(a.recorded(), traces);
}

// Shot after shot on one engine (what `seisfd run` does over a survey): the second shot is the
// same as on a fresh engine.
TEST_P(EngineContract, OneEngineRunsShotAfterShot) {
  Propagation p(*engine_);
  const auto first = test::forward(p, s_().src, s_().w, s_().rec, s_().nt);
  p.reset();
  const auto second = test::forward(p, s_().src2, s_().w, s_().rec, s_().nt);
  auto fresh_engine = GetParam().runner->make(s_().p.spec, s_().medium, s_().p.dt);
  Propagation q(*fresh_engine);
  EXPECT_EQ(second, test::forward(q, s_().src2, s_().w, s_().rec, s_().nt));
  EXPECT_EQ(bytes(p.state()), bytes(q.state()));
  EXPECT_NE(first, second);
}

// Two states advanced alternately on one engine (RTM's source and receiver wavefields) equal
// each advanced alone.
TEST_P(EngineContract, StatesAdvancedAlternatelyEqualEachAlone) {
  Propagation a(*engine_), b(*engine_);
  a.set_injection(s_().src, s_().w, s_().nt);
  a.set_recording(s_().rec, s_().nt);
  b.set_injection(s_().src2, s_().w, s_().nt);
  for (int n = 0; n < 60; n += 6) {
    a.steps(n, n + 6);
    b.steps(n, n + 6);
  }
  Propagation a1 = run(s_().src, {60});
  Propagation b1 = run(s_().src2, {60});
  EXPECT_EQ(bytes(a.state()), bytes(a1.state()));
  EXPECT_EQ(bytes(b.state()), bytes(b1.state()));
  EXPECT_EQ(a.recorded(), a1.recorded());
}

// Edge strips: read, written into a zeroed state, read back equal; nothing else written.
TEST_P(EngineContract, EdgeStripsReadAndWriteExactlyTheirCells) {
  Propagation a = run(s_().src, {40});
  const StepSpec& sp = s_().p.spec;
  Box region;
  for (int ax = 0; ax < 3; ++ax) {
    region.lo[ax] = sp.begin[ax];
    region.hi[ax] = sp.end[ax];
  }
  const std::vector<Box> strips = edge_strips(region, sp.radius);
  int64_t cells = 0;
  for (const Box& b : strips) cells += b.cells();
  Box inner = region;
  for (int ax = 0; ax < 3; ++ax) {
    inner.lo[ax] += sp.radius;
    inner.hi[ax] -= sp.radius;
  }
  EXPECT_EQ(cells, region.cells() - inner.cells());
  Propagation b(*engine_);
  for (int f = 0; f < traits(GetParam().physics).fields; ++f)
    for (Level lv : {Level::kCurrent, Level::kPrevious}) {
      std::vector<float> got, back;
      a.state().read_boxes({f, lv}, strips, got);
      ASSERT_EQ(static_cast<int64_t>(got.size()), cells);
      b.state().write_boxes({f, lv}, strips, got);
      b.state().read_boxes({f, lv}, strips, back);
      EXPECT_EQ(got, back);
      std::vector<float> middle;
      const int one[3] = {1, 1, 1};
      b.state().read_box({f, lv}, inner, one, middle);
      for (float v : middle) ASSERT_EQ(v, 0.0f) << "a cell outside the strips was written";
    }
}

// A step split around an interior (Engine::advance_split: the interior's update, the exchange,
// then the rest) leaves every field, memory variable and trace as the whole step does, with
// interiors that leave out some faces or all of them, and calls the exchange once per step.
TEST_P(EngineContract, SplitStepsChangeNothing) {
  const Propagation a = run(s_().src, {40});
  const StepSpec& sp = s_().p.spec;
  const int R = sp.radius;
  // Faces left out (z-, z+, y-, y+, x-, x+): z and y only, the interiors the CUDA engine splits
  // around; one of z, one of y and both of x; all six.
  for (const std::array<int, 6>& out :
       {std::array<int, 6>{1, 1, 1, 1, 0, 0}, std::array<int, 6>{0, 1, 1, 0, 0, 0},
        std::array<int, 6>{1, 0, 0, 1, 1, 1}, std::array<int, 6>{1, 1, 1, 1, 1, 1}}) {
    Box inner;
    for (int ax = 0; ax < 3; ++ax) {
      inner.lo[ax] = sp.begin[ax] + R * out[2 * ax];
      inner.hi[ax] = sp.end[ax] - R * out[2 * ax + 1];
    }
    Propagation b(*engine_);
    b.set_injection(s_().src, s_().w, s_().nt);
    b.set_recording(s_().rec, s_().nt);
    int starts = 0, calls = 0;
    Engine::SplitExchange x;
    x.start = [&] { ++starts; };
    x.finish = [&] { ++calls; };
    engine_->advance_split(b.state(), 0, 15, b.io(), inner, x);
    for (int n = 15; n < 40; ++n) engine_->advance_split(b.state(), n, n + 1, b.io(), inner, x);
    EXPECT_EQ(starts, 40);
    EXPECT_EQ(calls, 40);
    EXPECT_EQ(b.state().step(), 40);
    EXPECT_EQ(bytes(b.state()), bytes(a.state()));
    EXPECT_EQ(b.recorded(), a.recorded());
  }
}

// An exchange with no neighbours (it fills nothing) that overlaps: it counts its start() and
// finish() calls and those out of order, and its interior leaves out the faces of one axis as if
// that axis had neighbours both sides. `ordered`: it says it only queues device work.
struct CountingExchange final : HaloExchange {
  int starts = 0, finishes = 0, out_of_order = 0, radius = 0, axis = 0;
  bool ordered = false;
  const char* name() const override { return "counting"; }
  void exchange(WaveState&, int) override { ++out_of_order; }
  bool overlaps() const override { return true; }
  bool device_ordered() const override { return ordered; }
  void start(WaveState&) override {
    if (starts != finishes) ++out_of_order;
    ++starts;
  }
  void finish(WaveState&, int) override {
    if (finishes + 1 != starts) ++out_of_order;
    ++finishes;
  }
  Box interior(const StepSpec& spec) const override {
    Box b = HaloExchange::interior(spec);
    b.lo[axis] += radius;
    b.hi[axis] -= radius;
    return b;
  }
};

// Propagation::steps with an exchange that overlaps: start() and finish() once per step, in
// that order, around the engine's split step; the fields and traces as without an exchange.
TEST_P(EngineContract, OverlappingExchangeWrapsEachStep) {
  const Propagation a = run(s_().src, {40});
  CountingExchange x;
  x.radius = s_().p.spec.radius;  // as if z had neighbours
  Propagation b(*engine_);
  b.set_injection(s_().src, s_().w, s_().nt);
  b.set_recording(s_().rec, s_().nt);
  b.set_exchange(&x);
  b.steps(0, 25);
  b.steps(25, 40);
  EXPECT_EQ(x.starts, 40);
  EXPECT_EQ(x.finishes, 40);
  EXPECT_EQ(x.out_of_order, 0);
  EXPECT_EQ(bytes(b.state()), bytes(a.state()));
  EXPECT_EQ(b.recorded(), a.recorded());
}

// An exchange ordered on the device (start() and finish() only queue work): the engine may record
// whole chunks of split steps in one graph and replay it without calling them again; the fields
// and traces are still those of whole steps.
TEST_P(EngineContract, DeviceOrderedExchangeStepsInChunks) {
  const Propagation a = run(s_().src, {40});
  // As if y had neighbours (the CUDA engine splits the step around the interior, chunks in
  // graphs), then as if x had (it exchanges before each whole step, a step a call).
  for (int axis : {1, 2}) {
    SCOPED_TRACE("neighbours along axis " + std::to_string(axis));
    CountingExchange x;
    x.radius = s_().p.spec.radius;
    x.axis = axis;
    x.ordered = true;
    Propagation b(*engine_);
    b.set_injection(s_().src, s_().w, s_().nt);
    b.set_recording(s_().rec, s_().nt);
    b.set_exchange(&x);
    b.steps(0, 20);
    b.steps(20, 40);  // the same chunk again: a graph recorded for the first is replayed
    EXPECT_EQ(x.starts, x.finishes);
    EXPECT_EQ(x.out_of_order, 0);
    EXPECT_GE(x.starts, 20);
    EXPECT_LE(x.starts, 40);
    EXPECT_EQ(b.state().step(), 40);
    EXPECT_EQ(bytes(b.state()), bytes(a.state()));
    EXPECT_EQ(b.recorded(), a.recorded());
  }
}

// Forward, adjoint, forward again on one engine: the adjoint leaves the engine as it was, and
// the pair passes the dot test (sponge; the adjoint refuses CPML).
TEST_P(EngineContract, BothDirectionsOnOneEngine) {
  const auto before = apply_forward(*engine_, s_().src, s_().w, s_().rec, s_().nt);
  std::mt19937 rng(9);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> d(static_cast<size_t>(s_().rec.count()) * s_().nt);
  for (auto& x : d) x = g(rng);
  if (GetParam().cpml) {
    EXPECT_THROW(apply_adjoint(*engine_, s_().rec, d, s_().src, s_().nt), std::invalid_argument);
    return;
  }
  // d = F s + noise keeps the dot products free of cancellation (tests/test_gpu_aniso_adjoint.cpp).
  double rms = 0;
  for (double v : before) rms += v * v;
  rms = std::sqrt(rms / before.size());
  for (size_t k = 0; k < d.size(); ++k) d[k] = before[k] + rms * d[k];
  const auto adj = apply_adjoint(*engine_, s_().rec, d, s_().src, s_().nt);
  const auto after = apply_forward(*engine_, s_().src, s_().w, s_().rec, s_().nt);
  EXPECT_EQ(before, after);
  const double lhs = test::dot(before, d), rhs = test::dot(s_().w, adj);
  const double rel = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
  std::printf("[contract] %-26s dot test relative %.2e\n", GetParam().label().c_str(), rel);
  EXPECT_LE(rel, GetParam().runner->fp64 ? tol::kDotFp64 : tol::kDotFp32);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineContract, ::testing::ValuesIn(cases()),
                         [](const auto& i) { return i.param.label(); });

}  // namespace
}  // namespace seisfd
