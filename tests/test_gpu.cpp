// Every registered GPU variant against the CPU reference, through the same Engine
// interface, the same problem and the same checks (SCOPED_TRACE names the variant).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <random>

#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "kernels/registry.hpp"
#include "kernels/propagation.hpp"
#include "solver/time_loop.hpp"
#include "solver/wavelet.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

std::vector<std::string> variant_names() {
  std::vector<std::string> n;
  for (const auto& v : kernel_registry())
    if (v.physics == Physics::kAcoustic) n.push_back(v.name);  // vti/tti: test_gpu_anisotropic.cpp
  return n;
}

// Visible in every build: says whether the GPU suite below can run here.
TEST(Gpu, DeviceAvailable) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const auto d = cuda_devices();
  std::printf("[gpu] %s, compute capability %d, %d SMs\n", d[0].name.c_str(),
              d[0].compute_capability, d[0].multiprocessors);
  EXPECT_FALSE(kernel_registry().empty());
}

struct GpuCase {
  test::Problem p;
  SparsePoints src, rec;
  std::vector<double> wavelet;
  int nt;
};

// Heterogeneous model, absorbing layers on five faces, free surface, off-grid sinc points:
// every code path of a step runs. Odd sizes so no axis is a multiple of a block dimension.
GpuCase make_setup(int order, int nt, const BoundaryConfig& b = test::sponge(8, true)) {
  auto p = test::homogeneous(test::cube_grid(45, 37, 29, 10.0), b, order, 2000.0, 0.9);
  // Smooth heterogeneity (+-20%): every cell has its own (v dt)^2, as in real models. A
  // white-noise model would be a scattering medium that amplifies rounding differences.
  const Layout& l = p.spec.layout;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        p.velocity[l.idx(z, y, x)] = static_cast<float>(
            2000.0 + 250.0 * std::sin(0.21 * x + 0.5) * std::cos(0.17 * y) + 12.0 * z);
  p.dt = 0.85 * stability_limit(2700.0, order / 2, p.spec.h);
  p.spec = make_step_spec(p.grid, b, 2700.0, p.dt, 25.0);
  SourceConfig sc;
  sc.frequency = 25;
  const auto src =
      make_points(p.grid, p.spec, {{221.3, 180.2, 33.3}}, PointInterp::kSinc, PointRole::kSource);
  std::vector<Vec3> rp;
  for (int i = 0; i < 20; ++i) rp.push_back({20.0 + 20.5 * i, 100.0 + 3.0 * i, 6.0});
  const auto rec = make_points(p.grid, p.spec, rp, PointInterp::kSinc, PointRole::kReceiver);
  return {p, src, rec, make_wavelet(sc, p.dt, nt), nt};
}

class GpuVariant : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuVariant);

// Both runs in fp32 with the same fp32 model, as the issue asks ("CPU vs CUDA"). Traces are
// compared on the absorbing setups (sponge, CPML); the whole field on a setup without
// absorbing layers, whose energy is conserved: after 500 steps with absorbing layers the
// field is a small residual whose relative norm amplifies rounding (measured 2026-11-22 on an
// H200: sponge 1e-5..2e-4, CPML 1.7e-3..5e-3, against 1e-6 for the traces of the same runs).
TEST_P(GpuVariant, MatchesCpuReferenceAfter500Steps) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  SCOPED_TRACE(v->name);
  const std::pair<const char*, BoundaryConfig> setups[] = {
      {"sponge+fs", test::sponge(8, true)},
      {"cpml+fs", test::cpml(8, 25.0, true)},
      {"none+fs", test::reflecting_top_free()}};
  for (const auto& [label, boundary] : setups) {
    const bool absorbing = boundary.type != BoundaryType::kNone;
    const GpuCase s = make_setup(v->order, 501, boundary);
    reference::CpuEngine<float> cpu_engine(s.p.spec, s.p.medium(), s.p.dt);
    auto gpu_engine = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v->name));
    Propagation cpu(cpu_engine), gpu(*gpu_engine);
    const auto dc = test::forward(cpu, s.src, s.wavelet, s.rec, s.nt);
    const auto dg = test::forward(gpu, s.src, s.wavelet, s.rec, s.nt);
    const double trace_err = test::rel_l2(dg, dc);
    const double field_err = test::rel_l2(test::whole_field(gpu), test::whole_field(cpu));
    std::printf("[gpu] %-24s %-10s traces %.2e  field %.2e (relative L2 after 500 steps)\n",
                v->name.c_str(), label, trace_err, field_err);
    EXPECT_LE(trace_err, tol::kCpuGpuL2) << label;
    if (!absorbing) {
      EXPECT_LE(field_err, tol::kCpuGpuL2);
    }
    // With CPML the field left after 500 steps is a residual at rounding level (sum of squares
    // 5e-12 against 3e-7 with the sponge): the CPU's own fp32 and fp64 runs differ by 1.3e-3
    // in it (L2) and 1.2e-4 in its sum of squares (measured 2026-11-22). There the whole field
    // is compared while the wave crosses the layers instead (MatchesCpuWhileCrossingCpml).
    const Diagnostics a = gpu.diagnostics(), b = cpu.diagnostics();
    EXPECT_EQ(a.nonfinite, 0);
    if (boundary.type == BoundaryType::kCpml) continue;
    EXPECT_NEAR(a.sum_sq, b.sum_sq, 1e-4 * b.sum_sq);
    EXPECT_NEAR(a.max_abs, b.max_abs, 1e-4 * b.max_abs);
  }
}

// The whole field, layers included, after 120 steps: the pulse is inside the CPML layers.
TEST_P(GpuVariant, MatchesCpuWhileCrossingCpml) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  const GpuCase s = make_setup(v->order, 121, test::cpml(8, 25.0, true));
  reference::CpuEngine<float> cpu_engine(s.p.spec, s.p.medium(), s.p.dt);
  auto gpu_engine = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v->name));
  Propagation cpu(cpu_engine), gpu(*gpu_engine);
  test::forward(cpu, s.src, s.wavelet, s.rec, s.nt);
  test::forward(gpu, s.src, s.wavelet, s.rec, s.nt);
  const double err = test::rel_l2(test::whole_field(gpu), test::whole_field(cpu));
  std::printf("[gpu] %-24s cpml+fs    field %.2e after 120 steps\n", v->name.c_str(), err);
  EXPECT_LE(err, tol::kCpuGpuL2);
}

// Graph replay and plain launches run the same kernels on the same buffers in the same order:
// traces and field must agree bit for bit, over chunks of both parities and a short tail.
TEST_P(GpuVariant, GraphsMatchPlainLaunchesBitForBit) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  const std::vector<int> chunks{10, 10, 7,  10, 7,  7,  10, 10, 10, 10,
                                10, 10, 10, 10, 10, 10, 7,  4,  1};
  int total = 0;
  for (int c : chunks) total += c;
  const GpuCase s = make_setup(v->order, total + 1, test::cpml(8, 25.0, true));
  std::vector<double> field[2];
  std::vector<double> traces[2];
  for (const bool graphs : {true, false}) {
    auto e = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v->name));
    e->set_graphs(graphs);
    EXPECT_EQ(e->graphs(), graphs);
    Propagation p(*e);
    p.set_injection(s.src, s.wavelet, s.nt);
    p.set_recording(s.rec, s.nt);
    int n = 0;
    for (const int chunk : chunks) {
      p.steps(n, n + chunk);
      n += chunk;
    }
    ASSERT_EQ(n, s.nt - 1);
    field[graphs] = test::whole_field(p);
    traces[graphs] = p.recorded();
  }
  ASSERT_EQ(field[0].size(), field[1].size());
  EXPECT_EQ(std::memcmp(field[0].data(), field[1].data(), field[0].size() * sizeof(double)), 0);
  EXPECT_EQ(traces[0], traces[1]);
  double norm = 0;
  for (double x : traces[0]) norm += x * x;
  EXPECT_GT(norm, 0.0);  // the run did something
}

TEST_P(GpuVariant, DotTestFp32) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  const GpuCase s = make_setup(v->order, 300);
  // Random band-limited vectors: sums of Ricker pulses with random times and amplitudes, so
  // that the signals are resolved by the grid and the dot products are not sums of
  // cancelling white noise (whose relative rounding error is amplified).
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> when(0.0, (s.nt - 1) * s.p.dt);
  auto random_trace = [&](double* out) {
    for (int k = 0; k < 12; ++k) {
      const double a = g(rng), t0 = when(rng);
      for (int n = 0; n < s.nt; ++n) out[n] += ricker(n * s.p.dt, 20.0, t0, a);
    }
  };
  std::vector<double> w(s.nt, 0.0), d(static_cast<size_t>(s.rec.count()) * s.nt, 0.0);
  random_trace(w.data());
  for (int r = 0; r < s.rec.count(); ++r) random_trace(d.data() + static_cast<size_t>(r) * s.nt);
  auto e = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v->name));
  const double lhs = test::dot(apply_forward(*e, s.src, w, s.rec, s.nt), d);
  const double rhs = test::dot(w, apply_adjoint(*e, s.rec, d, s.src, s.nt));
  const double rel = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
  std::printf("[gpu] %-24s dot test relative %.2e\n", v->name.c_str(), rel);
  EXPECT_LE(rel, tol::kDotFp32);
}

TEST_P(GpuVariant, NonFiniteCellIsReported) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  GpuCase s = make_setup(v->order, 20);
  const int64_t bad = s.p.spec.layout.idx(15, 20, 25);
  s.p.velocity[bad] = NAN;
  auto e = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v->name));
  Propagation gpu(*e);
  gpu.set_injection(s.src, s.wavelet, s.nt);
  gpu.set_recording(s.rec, s.nt);
  gpu.steps(0, 3);
  const Diagnostics d = gpu.diagnostics();
  EXPECT_GT(d.nonfinite, 0);
  EXPECT_GE(d.first_nonfinite, 0);
}

// Diagnostics are collected asynchronously by the time loop; a NaN still stops the run with
// the step it was seen at and the cell.
TEST(GpuDiagnostics, AsynchronousNonFiniteStopsTheLoop) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  GpuCase s = make_setup(8, 200);
  s.p.velocity[s.p.spec.layout.idx(15, 20, 25)] = NAN;
  auto e = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant("auto"));
  Propagation gpu(*e);
  gpu.set_injection(s.src, s.wavelet, s.nt);
  gpu.set_recording(s.rec, s.nt);
  LoopOptions o;
  o.diagnostics_interval = 5;
  try {
    run_time_loop(gpu, s.nt, o);
    ADD_FAILURE() << "no NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("at step 5:"), std::string::npos) << e.what();
  }
}

// Healthy runs: every queued diagnostics comes back, in order, and the last one is the field's.
TEST(GpuDiagnostics, AsynchronousResultsArriveInOrder) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  GpuCase s = make_setup(8, 301);
  auto e = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant("auto"));
  Propagation gpu(*e);
  gpu.set_injection(s.src, s.wavelet, s.nt);
  gpu.set_recording(s.rec, s.nt);
  LoopOptions o;
  o.diagnostics_interval = 10;
  const LoopResult r = run_time_loop(gpu, s.nt, o);
  EXPECT_EQ(r.diagnostics_runs, 30);
  const Diagnostics now = gpu.diagnostics();
  EXPECT_NEAR(r.last.sum_sq, now.sum_sq, 1e-12 * now.sum_sq);  // atomics: order of the sum
  EXPECT_GT(now.sum_sq, 0.0);
}

// The diagnostics an engine reduces inside its chunks of steps (set_diagnostics_every: fused
// into the update where the variant does that, the separate reduction kernel inside the chunk
// otherwise) against those a second engine, run through the same steps (bit-identical fields),
// computes and waits for at each of those fields: with and without graphs, chunks that start
// at every phase of K, odd chunks (the buffer roles swap), a chunk whose start is not where the
// last one ended, a chunk of 100 reductions (more than the ring holds: launched in parts), K
// changed between chunks, and explicit queue_diagnostics at fields no chunk reduces.
TEST(GpuDiagnostics, InChunkReductionsEqualTheWaitedFor) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  std::vector<std::string> names;
  for (const auto& v : kernel_registry())
    if (v.physics == Physics::kAcoustic && (v.order == 4 || v.order == 16) &&
        (v.fuses_diagnostics || v.name.find("naive") != std::string::npos))
      names.push_back(v.name);
  ASSERT_GE(names.size(), 3u) << "expected naive and the variants that fuse diagnostics";
  for (const std::string& name : names) {
    const bool fused = find_variant(name)->fuses_diagnostics;
    for (const bool graphs : {true, false}) {
      SCOPED_TRACE(name + (graphs ? " graphs" : " plain launches"));
      GpuCase s = make_setup(find_variant(name)->order, 220);
      auto ea = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(name));
      auto eb = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(name));
      Propagation a(*ea), b(*eb);
      for (Propagation* p : {&a, &b}) {
        p->set_injection(s.src, s.wavelet, s.nt);
        p->set_recording(s.rec, s.nt);
        p->engine().set_graphs(graphs);
      }
      std::vector<TaggedDiagnostics> got;
      std::vector<std::pair<int, Diagnostics>> want;
      auto advance = [&](int from, int to) {
        a.steps(from, to);
        int at = from;
        for (int m = from; m < to; ++m)
          if (ea->diagnostics_due(m)) {
            b.steps(at, m);
            at = m;
            want.push_back({m, b.diagnostics()});
          }
        b.steps(at, to);
        for (const auto& t : a.completed_diagnostics(3)) got.push_back(t);
      };
      auto queue = [&](int step) {
        a.queue_diagnostics(step);
        want.push_back({step, b.diagnostics()});
      };
      ea->set_diagnostics_every(5);
      advance(0, 10);   // field 5 (field 0 never)
      advance(10, 13);  // field 10 first in the chunk; odd chunk
      queue(13);
      queue(13);        // twice in a row
      advance(13, 14);  // a one-step chunk without a reduction
      advance(15, 31);  // does not start where the last ended: fields 15, 20, 25, 30
      ea->set_diagnostics_every(1);
      advance(31, 131);  // 100 reductions in one call
      ea->set_diagnostics_every(7);
      for (int n = 131; n < 200; n += 10) advance(n, std::min(n + 10, 200));  // every phase of 7
      queue(200);
      for (const auto& t : a.completed_diagnostics(0)) got.push_back(t);
      ASSERT_EQ(got.size(), want.size());
      // Fused: the squares of four cells are summed in float first (diag_reduce.cuh).
      const double tol = fused ? 2e-6 : 1e-12;
      for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE("reduction " + std::to_string(i) + ", field " + std::to_string(want[i].first));
        EXPECT_EQ(got[i].step, want[i].first);
        EXPECT_GT(want[i].second.sum_sq, 0.0);
        EXPECT_NEAR(got[i].d.sum_sq, want[i].second.sum_sq, tol * want[i].second.sum_sq);
        EXPECT_EQ(got[i].d.max_abs, want[i].second.max_abs);
        EXPECT_EQ(got[i].d.nonfinite, 0);
        EXPECT_EQ(got[i].d.first_nonfinite, -1);
      }
    }
  }
}

// A fused reduction counts the non-finite cells and names the first one as the separate one
// does: a NaN velocity makes exactly that cell NaN in field 1, and its neighbours in field 2.
TEST(GpuDiagnostics, FusedNamesTheNonFiniteCell) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  int fused = 0;
  for (const auto& v : kernel_registry()) {
    if (v.physics != Physics::kAcoustic || v.order != 8 || !v.fuses_diagnostics) continue;
    ++fused;
    SCOPED_TRACE(v.name);
    GpuCase s = make_setup(8, 20);
    const int64_t bad = s.p.spec.layout.idx(15, 20, 25);
    s.p.velocity[bad] = NAN;
    auto ee = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v.name));
    auto er = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant(v.name));
    Propagation e(*ee), ref(*er);
    e.set_injection(s.src, s.wavelet, s.nt);
    ref.set_injection(s.src, s.wavelet, s.nt);
    ee->set_diagnostics_every(1);
    e.steps(0, 3);  // fields 1 and 2, reduced by the updates of steps 1 and 2
    const auto got = e.completed_diagnostics(0);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].step, 1);
    EXPECT_EQ(got[0].d.nonfinite, 1);
    EXPECT_EQ(got[0].d.first_nonfinite, bad);
    EXPECT_EQ(got[1].step, 2);
    ref.steps(0, 1);
    ref.steps(1, 2);
    const Diagnostics two = ref.diagnostics();
    EXPECT_GT(two.nonfinite, 1);
    EXPECT_LT(two.first_nonfinite, bad);
    EXPECT_EQ(got[1].d.nonfinite, two.nonfinite);
    EXPECT_EQ(got[1].d.first_nonfinite, two.first_nonfinite);
    EXPECT_NEAR(got[1].d.sum_sq, two.sum_sq, 2e-6 * two.sum_sq);
    EXPECT_EQ(got[1].d.max_abs, two.max_abs);
  }
  EXPECT_GE(fused, 2);
}

// CPML on all six faces over 20,000 steps at Courant 0.9 on the device (the CPU runs the same
// check on a smaller grid in test_cpml): the energy falls to rounding level and stays there.
TEST(GpuCpml, StableOverTwentyThousandSteps) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  constexpr int kSteps = 20000, kEvery = 100;
  const double f = 25;
  auto p = test::homogeneous(test::cube_grid(64, 64, 64, 10.0), test::cpml(20, f), 8, 2000.0, 0.9);
  auto e = make_cuda_engine(p.spec, p.medium(), p.dt, test::variant("auto"));
  Propagation prop(*e);
  SourceConfig sc;
  sc.frequency = f;
  const int nt_src = static_cast<int>(3.0 / f / p.dt) + 1;
  prop.set_injection(
      make_points(p.grid, p.spec, {{317, 303, 311}}, PointInterp::kSinc, PointRole::kSource),
      make_wavelet(sc, p.dt, nt_src), nt_src);
  std::vector<double> energy;
  for (int n = 0; n < kSteps; n += kEvery) {
    prop.steps(n, n + kEvery);
    energy.push_back(prop.diagnostics().sum_sq);
  }
  const double peak = *std::max_element(energy.begin(), energy.end());
  const size_t half = energy.size() / 2;
  const double late = *std::max_element(energy.begin() + half, energy.end());
  std::printf(
      "[gpu] %s cpml 20 stability: peak %.3e, after 1000 steps %.3e, max over steps "
      "10000-20000 %.3e, final %.3e\n",
      e->name().c_str(), peak, energy[9], late, energy.back());
  for (double x : energy) ASSERT_TRUE(std::isfinite(x));
  EXPECT_LT(energy[9], 1e-4 * peak);
  EXPECT_LT(late, 1e-8 * peak);
  EXPECT_LE(energy.back(), energy[half] * 10 + 1e-30) << "late-time growth";
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuVariant, ::testing::ValuesIn(variant_names()),
                         test::VariantTestName());

}  // namespace
}  // namespace seisfd
