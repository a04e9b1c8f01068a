// Source/receiver weights and wavelets: the discrete delta, on-grid points, free-surface
// folding, and band-limited resampling of sampled wavelets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "solver/points.hpp"
#include "solver/wavelet.hpp"
#include "tests/support.hpp"

namespace seisfd {
namespace {

double weight_sum(const SparsePoints& s, int p) {
  double acc = 0;
  for (int64_t k = s.offset[p]; k < s.offset[p + 1]; ++k) acc += s.weight[k];
  return acc;
}

TEST(Points, SourceIsDiscreteDeltaReceiverSumsToOne) {
  auto p = test::homogeneous(test::cube_grid(30, 30, 30, 5.0), test::sponge(10), 8, 2000, 0.9);
  const std::vector<Vec3> pos{{71.3, 33.3, 90.9}, {70.0, 35.0, 90.0}};
  for (auto interp : {PointInterp::kSinc, PointInterp::kTrilinear}) {
    const auto s = make_points(p.grid, p.spec, pos, interp, PointRole::kSource);
    const auto r = make_points(p.grid, p.spec, pos, interp, PointRole::kReceiver);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(weight_sum(s, i), 1.0 / 125.0, 1e-15);
      EXPECT_NEAR(weight_sum(r, i), 1.0, 1e-13);
    }
    // Off grid: 8^3 sinc cells or 2^3 trilinear cells; on grid: exactly one cell, weight 1.
    EXPECT_EQ(s.offset[1] - s.offset[0], interp == PointInterp::kSinc ? 512 : 8);
    ASSERT_EQ(r.offset[2] - r.offset[1], 1);
    EXPECT_EQ(r.weight[r.offset[1]], 1.0);
    const auto idx = p.grid.to_index(pos[1]);
    EXPECT_EQ(r.index[r.offset[1]], p.spec.layout.idx(int(idx[0]), int(idx[1]), int(idx[2])));
  }
}

// Points on a subdomain (a rank's part of the grid, in its own layout): split along x into two
// subdomains, each with its own layout around its box, the kept entries mapped back to the
// global grid are exactly the whole grid's, each point's id is its index, and a point that
// falls on one side only is not kept by the other.
TEST(Points, SubdomainsKeepTheirOwnEntriesInLocalIndices) {
  auto p = test::homogeneous(test::cube_grid(30, 24, 20, 5.0), test::sponge(6), 8, 2000, 0.9);
  const StepSpec& sp = p.spec;
  const Layout& gl = sp.layout;
  const std::vector<Vec3> pos{{71.3, 33.3, 50.9}, {10.0, 35.0, 40.0}, {140.2, 60.0, 30.0}};
  const auto whole = make_points(p.grid, sp, pos, PointInterp::kSinc, PointRole::kSource);
  ASSERT_EQ(whole.id, (std::vector<int>{0, 1, 2}));
  const int mid = p.grid.offset(2) + 14;  // x index 14: point 0's sinc support straddles it
  std::map<std::pair<int, int64_t>, double> merged;  // (point, global index) -> weight
  std::vector<int> kept[2];
  for (int side = 0; side < 2; ++side) {
    Subdomain d = Subdomain::whole(sp);
    d.rank = side;
    d.ranks = 2;
    if (side == 0)
      d.hi[2] = mid;
    else
      d.lo[2] = mid;
    d.local_lo = {sp.radius, sp.radius, sp.radius};
    const Layout local =
        Layout::make(d.hi[0] - d.lo[0] + 2 * sp.radius, d.hi[1] - d.lo[1] + 2 * sp.radius,
                     d.hi[2] - d.lo[2] + 2 * sp.radius);
    const auto part =
        make_points(p.grid, sp, pos, PointInterp::kSinc, PointRole::kSource, d, local);
    kept[side] = part.id;
    for (int k = 0; k < part.count(); ++k)
      for (int64_t e = part.offset[k]; e < part.offset[k + 1]; ++e) {
        int z, y, x;
        local.coords(part.index[e], z, y, x);
        const int64_t g = gl.idx(z - d.local_lo[0] + d.lo[0], y - d.local_lo[1] + d.lo[1],
                                 x - d.local_lo[2] + d.lo[2]);
        merged[{part.id[k], g}] += part.weight[e];
      }
  }
  EXPECT_EQ(kept[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(kept[1], (std::vector<int>{0, 2}));
  size_t entries = 0;
  for (int k = 0; k < whole.count(); ++k)
    for (int64_t e = whole.offset[k]; e < whole.offset[k + 1]; ++e) {
      ++entries;
      const auto it = merged.find({k, whole.index[e]});
      ASSERT_NE(it, merged.end()) << "point " << k << " cell " << whole.index[e];
      EXPECT_EQ(it->second, whole.weight[e]);
    }
  EXPECT_EQ(entries, merged.size());
}

TEST(Points, SincInterpolatesBandLimitedFieldExactly) {
  // Receiver weights applied to a smooth field give its value between the nodes.
  auto p = test::homogeneous(test::cube_grid(40, 40, 40, 1.0), test::no_boundary(), 8, 1, 0.9);
  const Vec3 x{17.37, 20.61, 13.11};
  const auto r = make_points(p.grid, p.spec, {x}, PointInterp::kSinc, PointRole::kReceiver);
  auto f = [&](double xx, double yy, double zz) {
    return std::sin(0.3 * xx) * std::cos(0.2 * yy) + 0.1 * zz;
  };
  const Layout& l = p.spec.layout;
  double acc = 0;
  for (int64_t k = 0; k < r.offset[1]; ++k) {
    const int64_t i = r.index[k];
    int z, y, xx;
    l.coords(i, z, y, xx);
    acc += r.weight[k] * f(xx - p.grid.offset(2), y - p.grid.offset(1), z - p.grid.offset(0));
  }
  EXPECT_NEAR(acc, f(x[0], x[1], x[2]), 2e-3);
}

TEST(Points, FreeSurfaceFoldsWithOppositeSign) {
  auto p =
      test::homogeneous(test::cube_grid(30, 30, 30, 5.0), test::sponge(10, true), 8, 2000, 0.9);
  // At the surface a receiver reads p = 0: the surface row carries no weight and each row
  // above folds onto its mirror below with opposite sign, so the weights cancel.
  const auto r =
      make_points(p.grid, p.spec, {{71.3, 33.3, 0.0}}, PointInterp::kSinc, PointRole::kReceiver);
  EXPECT_NEAR(weight_sum(r, 0), 0.0, 1e-15);
  for (int64_t k = 0; k < r.offset[1]; ++k)
    EXPECT_GT(r.index[k] / p.spec.layout.sz, p.spec.surface);
  // 1.24 cells below the surface, the folded weights applied to the cells below the surface
  // interpolate a field that is odd about the surface (what the mirror makes the field be).
  const double zr = 6.2;
  const auto r1 =
      make_points(p.grid, p.spec, {{71.3, 33.3, zr}}, PointInterp::kSinc, PointRole::kReceiver);
  const Layout& l = p.spec.layout;
  auto odd = [](double z) { return std::sin(0.25 * z / 5.0) + 0.3 * std::sin(0.6 * z / 5.0); };
  double acc = 0;
  for (int64_t k = 0; k < r1.offset[1]; ++k) {
    const int z = static_cast<int>(r1.index[k] / l.sz);
    EXPECT_GT(z, p.spec.surface);
    acc += r1.weight[k] * odd((z - p.spec.surface) * 5.0);
  }
  EXPECT_NEAR(acc, odd(zr), 2e-3 * std::fabs(odd(zr)));
  EXPECT_GT(std::fabs(weight_sum(r1, 0) - 1.0), 1e-3);  // folding did change the weights
}

TEST(Wavelet, FileWaveletResampledToDt) {
  // A Ricker sampled at 0.5 ms in a file, resampled to 1.3 ms and 0.2 ms, matches the
  // analytic Ricker at the new sample times.
  const auto dir = std::filesystem::temp_directory_path() / "seisfd_wavelet_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.txt").string();
  {
    std::ofstream o(path);
    o << "# 15 Hz Ricker at 0.5 ms\n";
    for (int i = 0; i < 400; ++i) o << ricker(i * 5e-4, 15.0, 0.1) << "\n";
  }
  SourceConfig s;
  s.wavelet = WaveletType::kFile;
  s.file = path;
  s.file_dt = 5e-4;
  // 1e-4 and 2.5e-4: whole factors 5 and 2 (the per-phase weight tables of observed data
  // brought onto the time step); 1.3e-3 and 2e-4: not whole.
  for (double dt : {1.3e-3, 2e-4, 1e-4, 2.5e-4}) {
    const int nt = static_cast<int>(0.19 / dt);
    const auto w = make_wavelet(s, dt, nt);
    double err = 0, ref = 0;
    for (int n = 0; n < nt; ++n) {
      const double a = ricker(n * dt, 15.0, 0.1);
      err = std::max(err, std::fabs(w[n] - a));
      ref = std::max(ref, std::fabs(a));
    }
    std::printf("[wavelet] resampled to dt %.1e: max error %.2e of peak\n", dt, err / ref);
    EXPECT_LT(err / ref, 1e-3) << "dt " << dt;
  }
  // Bad lines are errors naming file and line.
  {
    std::ofstream o(path);
    o << "0.1\n0.2 0.3\n";
  }
  try {
    read_wavelet_file(path);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seisfd
