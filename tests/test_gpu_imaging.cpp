// The imaging fused into the adjoint update kernels (Engine::advance_imaging on the CUDA engine)
// against the separate passes after each step (the same engine with fused_imaging off), for
// every registered variant that fuses, at order 8: the cross-correlation, illumination and
// zero-lag images of one shot, the source field kept in fp32 and in fp16, with a sponge and
// with the free surface. The two differ only in how the second difference is rounded: the
// kernel takes it from its own (v dt)^2 f, the separate pass from the three stored levels
// ((1+g) psi[n+1] - 2 psi[n] + (1-g) psi[n-1], a difference of nearly equal numbers).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
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

// One shot's images by the fused kernels of `variant` and by the separate passes, for each
// image in `use` (crosscorrelation, illumination, zero lag), the source field in fp32 and fp16.
void expect_fused_equals_separate(const std::string& variant, const test::Case& c, int order,
                                  const std::array<bool, 3>& use) {
  SCOPED_TRACE(c.name);
  test::ShotProblem s = test::problem(c, 101, order);
  CudaEngineOptions fused = test::variant(variant), separate = fused;
  separate.fused_imaging = false;
  auto ef = make_cuda_engine(s.p.spec, s.medium, s.p.dt, fused);
  auto es = make_cuda_engine(s.p.spec, s.medium, s.p.dt, separate);
  std::mt19937 rng(4);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> d(static_cast<size_t>(s.shot.receivers.count()) * s.shot.nt);
  for (auto& x : d) x = g(rng) * 1e-6;
  const ImagingSteps steps{s.shot.nt, 2};
  const char* names[3] = {"crosscorrelation", "illumination", "zero_lag"};
  for (StorePrecision precision : {StorePrecision::kFp32, StorePrecision::kFp16}) {
    std::vector<double> out[2][3];
    int k = 0;
    for (Engine* e : {ef.get(), es.get()}) {
      auto storage = make_storage({StorageKind::kStore, precision}, *e, steps, Box{}, 0);
      std::unique_ptr<CellArray> img[3];
      for (int i = 0; i < 3; ++i)
        if (use[i]) img[i] = e->make_array();
      migrate(*e, s.shot, d, *storage, steps, ShotImages{img[0].get(), img[1].get(), img[2].get()});
      for (int i = 0; i < 3; ++i)
        if (use[i]) out[k][i] = img[i]->download();
      ++k;
    }
    for (int i = 0; i < 3; ++i) {
      if (!use[i]) continue;
      const double err = test::rel_l2(out[0][i], out[1][i]);
      std::printf("[fused imaging] %-22s %-18s u %s %-16s of %d%d%d fused vs separate %.2e\n",
                  variant.c_str(), c.name, to_string(precision), names[i], use[0], use[1], use[2],
                  err);
      EXPECT_LE(err, i == 0 ? kCrossTol : kSameTol) << names[i] << " " << to_string(precision);
      double norm = 0;
      for (double x : out[1][i]) norm += x * x;
      EXPECT_GT(norm, 0.0) << names[i] << ": an image of zeros proves nothing";
    }
  }
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
    expect_fused_equals_separate(v->name, c, 8, {true, true, true});
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

// acoustic smem_regqueue copies the epilogue's reads into shared memory with the plane, at
// offsets that depend on which images a step accumulates; at order 16 with all three images
// the copies would leave one block a multiprocessor and the reads stay at the epilogue. Each
// subset of the images (cc and il: a migration asked for crosscorrelation alone), at orders 2,
// 8 and 16, against the separate passes.
TEST(GpuFusedImagingStaged, EverySubsetOfImagesAtOrders2To16) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const test::Case& c = test::kCases[0];  // acoustic_sponge
  ASSERT_EQ(c.physics, Physics::kAcoustic);
  for (int order : {2, 8, 16}) {
    const std::string name = "acoustic/o" + std::to_string(order) + "/smem_regqueue";
    ASSERT_NE(find_variant(name), nullptr) << name;
    for (const std::array<bool, 3>& use :
         {std::array<bool, 3>{true, false, false}, std::array<bool, 3>{false, true, false},
          std::array<bool, 3>{false, false, true}, std::array<bool, 3>{true, true, false},
          std::array<bool, 3>{true, false, true}, std::array<bool, 3>{false, true, true},
          std::array<bool, 3>{true, true, true}})
      expect_fused_equals_separate(name, c, order, use);
  }
}

}  // namespace
}  // namespace seisfd
