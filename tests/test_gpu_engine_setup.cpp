// How the CUDA engines are set up: kernel.variant = "auto" measures the runnable variants and
// caches the choice; kernel.compressible puts the arrays in compressible memory without
// changing a bit of the result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <sstream>
#include <string>

#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/support.hpp"

namespace seisfd {
namespace {

std::string detail(const Engine& e, const std::string& key) {
  for (const auto& [k, v] : e.details())
    if (k == key) return v;
  return "";
}

// "measured, cached in F: a 1.0, b 2.0 Gcells/s" -> {(a, 1.0), (b, 2.0)}
std::vector<std::pair<std::string, double>> listed(const std::string& how) {
  std::vector<std::pair<std::string, double>> out;
  const auto colon = how.rfind(": ");
  if (colon == std::string::npos) return out;
  std::string rest = how.substr(colon + 2);
  rest = rest.substr(0, rest.rfind(" Gcells/s"));
  std::istringstream in(rest);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::istringstream f(item);
    std::string name;
    double g = 0;
    f >> name >> g;
    out.emplace_back(name, g);
  }
  return out;
}

// A smooth model, sponge on all faces, a source and a line of receivers.
struct RunCase {
  test::Problem p;
  SparsePoints src, rec;
  std::vector<double> wavelet;
  int nt = 200;
};

RunCase make_setup() {
  RunCase s{
      test::homogeneous(test::cube_grid(61, 47, 39, 10.0), test::sponge(8, false), 8, 2000.0, 0.9),
      {},
      {},
      {},
      200};
  const Layout& l = s.p.spec.layout;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        s.p.velocity[l.idx(z, y, x)] =
            static_cast<float>(1800.0 + 150.0 * std::sin(0.13 * x) * std::cos(0.11 * y) + 5.0 * z);
  SourceConfig sc;
  sc.frequency = 20;
  s.src = make_points(s.p.grid, s.p.spec, {{300.0, 230.0, 150.0}}, PointInterp::kSinc,
                      PointRole::kSource);
  std::vector<Vec3> rp;
  for (int i = 0; i < 16; ++i) rp.push_back({40.0 + 33.0 * i, 230.0, 30.0});
  s.rec = make_points(s.p.grid, s.p.spec, rp, PointInterp::kSinc, PointRole::kReceiver);
  s.wavelet = make_wavelet(sc, s.p.dt, s.nt);
  return s;
}

TEST(GpuAutotune, MeasuresTheCandidatesOnceThenReadsTheCache) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const std::string cache = ::testing::TempDir() + "seisfd_autotune_test.tsv";
  std::remove(cache.c_str());
  ::setenv("SEISFD_AUTOTUNE_CACHE", cache.c_str(), 1);
  const RunCase s = make_setup();
  const auto d = cuda_devices();
  const auto cands = runnable_variants(Physics::kAcoustic, 8, s.p.spec, d[0].compute_capability);
  ASSERT_GE(cands.size(), 2u);

  auto a = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant("auto"));
  const std::string how = detail(*a, "variant_choice");
  std::printf("[gpu] auto, first engine: %s -> %s\n", how.c_str(), a->name().c_str());
  EXPECT_EQ(how.rfind("measured, cached in " + cache, 0), 0u) << how;
  const auto g = listed(how);
  ASSERT_EQ(g.size(), cands.size()) << how;
  std::pair<std::string, double> best{"", -1};
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(g[i].first, cands[i]->name);
    EXPECT_GT(g[i].second, 0.0) << g[i].first << " did not run";
    if (g[i].second > best.second) best = g[i];
  }
  EXPECT_EQ(a->name(), "cuda:" + best.first);

  auto b = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant("auto"));
  EXPECT_EQ(detail(*b, "variant_choice").rfind("cached (" + cache + ")", 0), 0u)
      << detail(*b, "variant_choice");
  EXPECT_EQ(b->name(), a->name());

  auto c = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, test::variant("acoustic/o8/naive"));
  EXPECT_EQ(detail(*c, "variant_choice"), "named in the config");
  ::unsetenv("SEISFD_AUTOTUNE_CACHE");
  std::remove(cache.c_str());
}

// Compression is lossless: the traces and the final field are bit-identical to plain memory.
// Where the device supports it, kAuto and kOn get it; where not, kAuto falls back and kOn
// refuses naming the device.
TEST(GpuCompressible, BitIdenticalToPlainMemory) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const RunCase s = make_setup();
  const std::string name = "acoustic/o8/smem_regqueue";
  auto run = [&](Engine& e, std::vector<double>& traces, std::vector<double>& field) {
    Propagation p(e);
    p.set_injection(s.src, s.wavelet, s.nt);
    p.set_recording(s.rec, s.nt);
    p.steps(0, s.nt);
    traces = p.recorded();
    field = test::whole_field(p);
  };
  const auto options = [&](Compressible c) {
    CudaEngineOptions o = test::variant(name);
    o.compressible = c;
    return o;
  };
  auto plain = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, options(Compressible::kOff));
  EXPECT_EQ(detail(*plain, "compressible"), "off");
  auto comp = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, options(Compressible::kAuto));
  const std::string outcome = detail(*comp, "compressible");
  std::printf("[gpu] kernel.compressible = auto on %s: %s\n", cuda_devices()[0].name.c_str(),
              outcome.c_str());
  std::vector<double> t0, t1, f0, f1;
  run(*plain, t0, f0);
  run(*comp, t1, f1);
  ASSERT_EQ(t0.size(), t1.size());
  EXPECT_EQ(std::memcmp(t0.data(), t1.data(), t0.size() * sizeof(double)), 0);
  ASSERT_EQ(f0.size(), f1.size());
  EXPECT_EQ(std::memcmp(f0.data(), f1.data(), f0.size() * sizeof(double)), 0);
  double peak = 0;
  for (double v : t0) peak = std::max(peak, std::abs(v));
  EXPECT_GT(peak, 0.0);  // the wave reached the receivers: the comparison is not of zeros

  // Supported: auto compressed, or measured that compression does not pay here.
  if (outcome.rfind("on (auto", 0) == 0 || outcome.rfind("off (auto: measured", 0) == 0 ||
      outcome.rfind("off (auto: cached", 0) == 0) {
    auto on = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, options(Compressible::kOn));
    EXPECT_EQ(detail(*on, "compressible"), "on (on)");
  } else {
    EXPECT_EQ(outcome.rfind("off (auto: ", 0), 0u) << outcome;
    try {
      make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, options(Compressible::kOn));
      ADD_FAILURE() << "kOn accepted without compression";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("kernel.compressible = on"), std::string::npos)
          << e.what();
    }
  }
}

// kernel.compressible = auto times the engine's variant with its arrays compressible and plain
// (hashed and zero fields), compresses only where that is at least 0.98 of the plain rate, says
// both rates in the report, and reads them from the autotune cache the next time.
TEST(GpuCompressible, AutoMeasuresOnceThenReadsTheCache) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const std::string cache = ::testing::TempDir() + "seisfd_compressible_test.tsv";
  std::remove(cache.c_str());
  ::setenv("SEISFD_AUTOTUNE_CACHE", cache.c_str(), 1);
  const RunCase s = make_setup();
  CudaEngineOptions o = test::variant("acoustic/o8/smem_regqueue");
  o.compressible = Compressible::kAuto;
  auto a = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, o);
  const std::string first = detail(*a, "compressible");
  std::printf("[gpu] kernel.compressible = auto, first engine: %s\n", first.c_str());
  if (first.find("not supported") != std::string::npos) {
    EXPECT_EQ(first.rfind("off (auto: not supported by ", 0), 0u) << first;
  } else {
    EXPECT_NE(first.find("measured, cached in " + cache), std::string::npos) << first;
    double compressed = 0, plain = 0;
    const auto at = first.find("compressed ");
    ASSERT_NE(at, std::string::npos) << first;
    ASSERT_EQ(std::sscanf(first.c_str() + at, "compressed %lf, plain %lf", &compressed, &plain), 2)
        << first;
    EXPECT_GT(compressed, 0.0);
    EXPECT_GT(plain, 0.0);
    EXPECT_EQ(first.rfind("on (auto: ", 0) == 0, compressed >= 0.98 * plain) << first;
    auto b = make_cuda_engine(s.p.spec, s.p.medium(), s.p.dt, o);
    const std::string second = detail(*b, "compressible");
    EXPECT_NE(second.find("cached (" + cache + ")"), std::string::npos) << second;
    EXPECT_EQ(second.substr(0, 3), first.substr(0, 3)) << first << " / " << second;
  }
  ::unsetenv("SEISFD_AUTOTUNE_CACHE");
  std::remove(cache.c_str());
}

// The anisotropic engine: the same with VTI (p and q, E, D in compressible memory).
TEST(GpuCompressible, AnisotropicBitIdenticalToPlainMemory) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  auto p =
      test::homogeneous(test::cube_grid(40, 36, 32, 10.0), test::sponge(6, false), 8, 2000, 0.5);
  test::AnisoCase c;
  c.kind = Physics::kVti;
  c.epsilon = [](int, int, int) { return 0.2; };
  c.delta = [](int, int, int) { return 0.1; };
  const Medium m = test::make_aniso_model(p, c);
  const auto src =
      make_points(p.grid, p.spec, {{200.0, 180.0, 160.0}}, PointInterp::kSinc, PointRole::kSource);
  const auto rec = make_points(p.grid, p.spec, {{50.0, 180.0, 40.0}, {330.0, 100.0, 280.0}},
                               PointInterp::kSinc, PointRole::kReceiver);
  SourceConfig sc;
  sc.frequency = 20;
  const int nt = 150;
  const auto w = make_wavelet(sc, p.dt, nt);
  std::vector<double> t[2];
  for (int k = 0; k < 2; ++k) {
    CudaEngineOptions o = test::variant("vti/o8/naive");
    o.compressible = k ? Compressible::kAuto : Compressible::kOff;
    auto e = make_cuda_engine(p.spec, m, p.dt, o);
    Propagation prop(*e);
    prop.set_injection(src, w, nt);
    prop.set_recording(rec, nt);
    prop.steps(0, nt);
    t[k] = prop.recorded();
  }
  ASSERT_EQ(t[0].size(), t[1].size());
  EXPECT_EQ(std::memcmp(t[0].data(), t[1].data(), t[0].size() * sizeof(double)), 0);
}

}  // namespace
}  // namespace seisfd
