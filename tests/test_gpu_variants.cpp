// Every registered variant on shapes that stress tiling: extents that are not multiples of any
// tile, a region one cell thick in y (and in z and x), regions that start and end off the
// 32-float row alignment, many z chunks, sponge on and off. Each is compared with the CPU
// reference (reference::acoustic_step, fp32) after a few steps, and the first step must write
// every region cell and nothing else (bench::verify_variant). A variant may refuse a shape only
// with a reason, and must run the general odd-sized cube.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "bench/harness/harness.hpp"
#include "kernels/registry.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"

namespace seisfd {
namespace {

// Few steps from random fields: the fp32 difference of two summation orders stays ~1e-7.
constexpr double kTol = 1e-5;
constexpr int kSteps = 4;

// A grid of nz x ny x nx cells plus a halo of R on each face; sponge of width w inside it.
StepSpec odd_spec(int R, int nz, int ny, int nx, int w, bool sponge) {
  StepSpec s;
  s.layout = Layout::make(nz + 2 * R, ny + 2 * R, nx + 2 * R);
  s.radius = R;
  const int n[3] = {nz, ny, nx};
  const double h[3] = {7.0, 9.0, 11.0};  // anisotropic spacing: the axes are not interchangeable
  for (int a = 0; a < 3; ++a) {
    s.h[a] = h[a];
    s.begin[a] = R;
    s.end[a] = R + n[a];
    s.sponge.phys_lo[a] = R + w;
    s.sponge.phys_hi[a] = R + n[a] - 1 - w;
    s.sponge.width_lo[a] = s.sponge.width_hi[a] = w;
    s.sponge.damp[a] = sponge ? 0.04 + 0.01 * a : 0.0;
  }
  return s;
}

struct Shape {
  const char* name;
  bool must_run;  // the variant may not refuse it
  StepSpec (*make)(int R);
};

const Shape kShapes[] = {
    {"odd_cube_sponge", true, [](int R) { return odd_spec(R, 29, 23, 45, 5, true); }},
    {"odd_cube_no_sponge", true, [](int R) { return odd_spec(R, 19, 37, 71, 0, false); }},
    // Several x and y tiles and many z chunks (small planes make many chunks per plane).
    {"wide_multi_tile", true, [](int R) { return odd_spec(R, 67, 41, 141, 6, true); }},
    {"thin_y", false,
     [](int R) {
       StepSpec s = odd_spec(R, 21, 17, 53, 4, true);
       s.begin[1] = R + 8;
       s.end[1] = R + 9;  // one row of cells in y
       return s;
     }},
    {"thin_z_thin_x", false,
     [](int R) {
       StepSpec s = odd_spec(R, 13, 19, 39, 3, true);
       s.begin[0] = R + 6;
       s.end[0] = R + 7;
       s.begin[2] = R + 17;
       s.end[2] = R + 18;
       return s;
     }},
    // Region starting and ending off the 4- and 32-float alignment, inside a larger grid.
    {"offset_region", false,
     [](int R) {
       StepSpec s = odd_spec(R, 25, 30, 100, 4, true);
       s.begin[0] = R + 3;
       s.end[0] = R + 22;
       s.begin[1] = R + 5;
       s.end[1] = R + 26;
       s.begin[2] = R + 33;
       s.end[2] = R + 98;
       return s;
     }},
};

std::vector<std::string> fast_variant_names() {
  std::vector<std::string> n;
  for (const auto& v : kernel_registry())
    // The fast anisotropic variants too (bench::verify_variant runs a point source through the
    // CUDA engine against the CPU engine for them); naive vti/tti: test_gpu_anisotropic.cpp.
    if (v.physics == Physics::kAcoustic || v.technique != "naive") n.push_back(v.name);
  return n;
}

class GpuVariantShapes : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuVariantShapes);

TEST_P(GpuVariantShapes, MatchesReferenceOnOddShapes) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  const int cc = bench::current_device().compute_capability;
  if (cc < v->min_compute_capability)
    GTEST_SKIP() << v->name << " needs compute capability " << v->min_compute_capability;
  const int R = v->order / 2;
  uint32_t seed = 11;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(std::string(v->name) + " on " + shape.name);
    StepSpec spec = shape.make(R);
    test::operator_of(v->technique, spec);
    const std::string why = v->can_implement(spec, cc);
    if (!why.empty()) {
      EXPECT_FALSE(shape.must_run) << "refused: " << why;
      std::printf("[variants] %-28s %-20s refused: %s\n", v->name.c_str(), shape.name, why.c_str());
      continue;
    }
    const bench::VerifyResult r = bench::verify_variant(*v, spec, kSteps, ++seed, kTol);
    std::printf("[variants] %-28s %-20s relative L2 %.2e %s\n", v->name.c_str(), shape.name,
                r.rel_l2, r.ok ? "ok" : r.message.c_str());
    EXPECT_TRUE(r.ok) << r.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuVariantShapes, ::testing::ValuesIn(fast_variant_names()),
                         test::VariantTestName());

// Host-only: every variant refuses, with a reason, a region that leaves no halo for the
// stencil, and an empty region. Runs without a GPU.
TEST(VariantRefusals, NoHaloAndEmptyRegionAreRefusedWithAReason) {
  for (const auto& v : kernel_registry()) {
    SCOPED_TRACE(v.name);
    StepSpec s = odd_spec(v.order / 2, 20, 20, 40, 0, false);
    s.begin[2] = 0;
    EXPECT_FALSE(v.can_implement(s, 90).empty());
    if (v.technique != "naive") {  // the baseline launches an empty grid instead
      StepSpec e = odd_spec(v.order / 2, 20, 20, 40, 0, false);
      e.end[1] = e.begin[1];
      EXPECT_FALSE(v.can_implement(e, 90).empty());
    }
  }
}

// Host-only: the 16-byte variants refuse rows that are not padded to 32 floats.
TEST(VariantRefusals, UnpaddedRowsAreRefusedByVectorVariants) {
  for (const auto& v : kernel_registry()) {
    // smem_tile and smem_nested: scalar loads, any row length.
    if (v.technique == "naive" || v.technique == "smem_tile" || v.technique == "smem_nested")
      continue;
    SCOPED_TRACE(v.name);
    StepSpec s = odd_spec(v.order / 2, 20, 20, 40, 0, false);
    s.layout.sy = s.layout.nx;  // 40 + 2R: not a multiple of 32
    s.layout.sz = s.layout.sy * s.layout.ny;
    EXPECT_NE(v.can_implement(s, 90).find("32 floats"), std::string::npos);
  }
}

}  // namespace
}  // namespace seisfd
