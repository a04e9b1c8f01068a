// The imaging fused into the adjoint update kernels (Engine::advance_imaging on the CUDA engine)
// against the separate passes after each step (the same engine with fused_imaging off), for
// every registered variant that fuses, at order 8: the cross-correlation, illumination and
// zero-lag images of one shot, the source field kept in fp32 and in fp16, with a sponge and
// with the free surface. The two differ only in how the second difference is rounded: the
// kernel takes it from its own (v dt)^2 f, the separate pass from the three stored levels
// ((1+g) psi[n+1] - 2 psi[n] + (1-g) psi[n-1], a difference of nearly equal numbers).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/linearized_support.hpp"

namespace seisfd {
namespace {

// Measured on an H100: see the printed lines. The illumination is the same arithmetic in both
// (1e-7: contraction into fused multiply-adds may differ); the cross-correlation carries the
// fp32 cancellation of the separate pass's second difference.
constexpr double kCrossTol = 1e-5;
constexpr double kSameTol = 1e-6;

std::vector<std::string> fusing_variants() {
  std::vector<std::string> out;
  for (const KernelVariant& v : kernel_registry())
    if (v.fuses_imaging && v.order == 8) out.push_back(v.name);
  return out;
}

class GpuFusedImaging : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuFusedImaging, EqualsTheSeparatePasses) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  int cases = 0;
  for (const test::Case& c : test::kCases) {
    if (c.physics != v->physics || c.boundary.type == BoundaryType::kNone) continue;
    ++cases;
    SCOPED_TRACE(c.name);
    test::ShotProblem s = test::problem(c, 101);
    CudaEngineOptions fused = test::variant(v->name), separate = fused;
    separate.fused_imaging = false;
    auto ef = make_cuda_engine(s.p.spec, s.medium, s.p.dt, fused);
    auto es = make_cuda_engine(s.p.spec, s.medium, s.p.dt, separate);
    std::mt19937 rng(4);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<double> d(static_cast<size_t>(s.shot.receivers.count()) * s.shot.nt);
    for (auto& x : d) x = g(rng) * 1e-6;
    const ImagingSteps steps{s.shot.nt, 2};
    for (StorePrecision precision : {StorePrecision::kFp32, StorePrecision::kFp16}) {
      std::vector<double> out[2][3];
      int k = 0;
      for (Engine* e : {ef.get(), es.get()}) {
        auto storage = make_storage({StorageKind::kStore, precision}, *e, steps, Box{}, 0);
        auto cc = e->make_array(), il = e->make_array(), zl = e->make_array();
        migrate(*e, s.shot, d, *storage, steps, ShotImages{cc.get(), il.get(), zl.get()});
        out[k][0] = cc->download();
        out[k][1] = il->download();
        out[k][2] = zl->download();
        ++k;
      }
      const char* names[3] = {"crosscorrelation", "illumination", "zero_lag"};
      for (int i = 0; i < 3; ++i) {
        const double err = test::rel_l2(out[0][i], out[1][i]);
        std::printf("[fused imaging] %-22s %-18s u %s %-16s fused vs separate %.2e\n",
                    v->name.c_str(), c.name, to_string(precision), names[i], err);
        EXPECT_LE(err, i == 0 ? kCrossTol : kSameTol) << names[i] << " " << to_string(precision);
      }
    }
  }
  EXPECT_GT(cases, 0) << "no test case for the variant's physics";
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuFusedImaging, ::testing::ValuesIn(fusing_variants()),
                         test::VariantTestName());
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuFusedImaging);

// The variants "auto" picks among at order 8 fuse the imaging: an entry that lost its flag would
// fall back to the separate passes without a word.
TEST(GpuFusedImagingRegistry, TheFastVariantsFuse) {
  if (!cuda_built()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : {"acoustic/o8/naive", "acoustic/o8/smem_regqueue",
                           "acoustic/o8/shfl_regqueue", "vti/o8/naive", "tti/o8/naive"}) {
    const KernelVariant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_TRUE(v->fuses_imaging) << name;
  }
}

}  // namespace
}  // namespace seisfd
