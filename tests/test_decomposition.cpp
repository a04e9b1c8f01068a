// Domain decomposition (solver/decomposition.hpp) and the [parallel] section: the cuts cover the
// updated region without overlap and never fall inside an absorbing layer, "auto" finds the split
// with the fewest halo cells, uneven counts split as evenly as the cells allow, neighbours agree,
// each rank's step description keeps the layers and the free surface only where it reaches them
// with the same damping at every cell, and bad decompositions are one-line config errors. That a
// decomposed run gives the files of one rank is tests/mpi/decomposed_equal.py's (mpirun).
#include <gtest/gtest.h>

#include <numeric>

#include "kernels/cuda_backend.hpp"
#include "solver/decomposition.hpp"
#include "solver/halo.hpp"
#include "tests/config_support.hpp"
#include "tests/support.hpp"

namespace seisfd {
namespace {

test::Problem problem(int nx, int ny, int nz, const BoundaryConfig& b, int order = 8) {
  return test::homogeneous(test::cube_grid(nx, ny, nz, 10.0), b, order, 2000, 0.5);
}

// Every cut list covers [begin, end) of its axis in order, and no cut lies inside a layer.
void expect_cuts_cover(const Decomposition& d, const StepSpec& s) {
  for (int a = 0; a < 3; ++a) {
    ASSERT_EQ(static_cast<int>(d.cuts[a].size()), d.dims[a] + 1);
    EXPECT_EQ(d.cuts[a].front(), s.begin[a]);
    EXPECT_EQ(d.cuts[a].back(), s.end[a]);
    for (int k = 1; k < d.dims[a]; ++k) {
      EXPECT_LT(d.cuts[a][k - 1], d.cuts[a][k]);
      EXPECT_GE(d.cuts[a][k], s.sponge.phys_lo[a]) << "cut inside the low layer of axis " << a;
      EXPECT_LE(d.cuts[a][k], s.sponge.phys_hi[a] + 1) << "cut inside the high layer of axis " << a;
    }
  }
}

TEST(Decomposition, AutoSplitsTheLongAxisAndCubesEvenly) {
  const auto longx = problem(120, 30, 30, test::sponge(10));
  Decomposition d = decompose(longx.spec, 2, {0, 0, 0}, 4);
  EXPECT_EQ(d.dims, (std::array<int, 3>{1, 1, 2}));
  expect_cuts_cover(d, longx.spec);
  const auto cube = problem(40, 40, 40, test::sponge(10));
  d = decompose(cube.spec, 8, {0, 0, 0}, 4);
  EXPECT_EQ(d.dims, (std::array<int, 3>{2, 2, 2}));
  // No other factorisation of 8 sends fewer halo cells.
  for (std::array<int, 3> other : {std::array<int, 3>{8, 1, 1},
                                   {1, 8, 1},
                                   {1, 1, 8},
                                   {2, 4, 1},
                                   {4, 2, 1},
                                   {1, 2, 4},
                                   {4, 1, 2},
                                   {2, 1, 4},
                                   {1, 4, 2}})
    EXPECT_LE(d.halo_cells(cube.spec), decompose(cube.spec, 8, other, 4).halo_cells(cube.spec));
  // Equal costs go to the slower axis (contiguous faces).
  d = decompose(cube.spec, 2, {0, 0, 0}, 4);
  EXPECT_EQ(d.dims, (std::array<int, 3>{2, 1, 1}));
}

// On GPUs whose faces go through host memory "auto" weighs x faces kHostStagedXWeight times (an
// x cut's exchange is not hidden behind the interior): a grid twice as long in x, which the
// fewest cells cut in x, is cut in z there, while a grid whose x faces are far smaller than any
// other stays cut in x; elsewhere the weight is 1.
TEST(Decomposition, HostStagedGpuRanksAvoidXCutsUnlessTheirFacesAreFarSmaller) {
  EXPECT_EQ(auto_x_weight(false, true), 1);
  EXPECT_EQ(auto_x_weight(true, false), 1);
  EXPECT_EQ(auto_x_weight(true, true), kHostStagedXWeight);
  const auto twice = problem(64, 32, 32, test::sponge(8));
  EXPECT_EQ(decompose(twice.spec, 2, {0, 0, 0}, 4).dims, (std::array<int, 3>{1, 1, 2}));
  const Decomposition z = decompose(twice.spec, 2, {0, 0, 0}, 4, {}, {}, kHostStagedXWeight);
  EXPECT_EQ(z.dims, (std::array<int, 3>{2, 1, 1}));
  expect_cuts_cover(z, twice.spec);
  // x faces a sixth of the others': still x.
  const auto longx = problem(320, 32, 32, test::sponge(8));
  EXPECT_EQ(decompose(longx.spec, 2, {0, 0, 0}, 4, {}, {}, kHostStagedXWeight).dims,
            (std::array<int, 3>{1, 1, 2}));
  // A decomposition asked for is kept whatever the weight.
  EXPECT_EQ(decompose(twice.spec, 2, {1, 1, 2}, 4, {}, {}, kHostStagedXWeight).dims,
            (std::array<int, 3>{1, 1, 2}));
}

TEST(Decomposition, UnevenSplitsDifferByAtMostOneCell) {
  const auto p = problem(31, 29, 27, test::no_boundary());
  const Decomposition d = decompose(p.spec, 3, {3, 1, 1}, 4);
  expect_cuts_cover(d, p.spec);
  int lo = 1 << 30, hi = 0;
  for (int k = 0; k < 3; ++k) {
    lo = std::min(lo, d.cuts[0][k + 1] - d.cuts[0][k]);
    hi = std::max(hi, d.cuts[0][k + 1] - d.cuts[0][k]);
  }
  EXPECT_LE(hi - lo, 1);
  EXPECT_EQ(d.text(), "3 x 1 x 1 (z x y x x)");
}

TEST(Decomposition, CutsStayOutOfTheLayers) {
  // Thick layers and many ranks: an even split would cut the layers; the cuts move to their
  // inner edges instead, where the parts stay at least as thick as the halo.
  const auto p = problem(40, 16, 16, test::sponge(30));
  const Decomposition d = decompose(p.spec, 4, {1, 1, 4}, 4);
  expect_cuts_cover(d, p.spec);
  EXPECT_EQ(d.cuts[2][1], p.spec.sponge.phys_lo[2]);
  EXPECT_EQ(d.cuts[2][3], p.spec.sponge.phys_hi[2] + 1);
}

// x tiles of tx cells the GPU's z-marching launches put over every rank's box (their rule: from
// the box's first cell rounded down to 32), summed over the ranks of one y-z column, and the
// largest rank's.
std::array<int, 2> gpu_x_tile_count(const Decomposition& d, const StepSpec& g, int tx) {
  int total = 0, most = 0;
  for (int r = 0; r < d.dims[2]; ++r) {
    const StepSpec l = local_spec(g, d.subdomain(r, g));
    const int n = (l.end[2] - l.begin[2] / 32 * 32 + tx - 1) / tx;
    total += n;
    most = std::max(most, n);
  }
  return {total, most};
}

TEST(Decomposition, GpuCutsEndOnWholeTilesWhereThatSavesTiles) {
  // 512 cells and a 20-cell sponge along x: 552 updated cells, 9 tiles of 64 on one rank.
  const auto p = problem(512, 16, 16, test::sponge(20));
  const std::vector<int> widths = gpu_x_tiles(Physics::kAcoustic);
  ASSERT_EQ(widths, (std::vector<int>{64, 128}));
  const Decomposition whole = decompose(p.spec, 1, {1, 1, 1}, 4, {}, widths);
  for (const std::array<int, 3> dims :
       {std::array<int, 3>{1, 1, 2}, {1, 1, 3}, {1, 1, 4}, {2, 1, 2}}) {
    const int ranks = dims[0] * dims[1] * dims[2];
    const Decomposition even = decompose(p.spec, ranks, dims, 4);
    const Decomposition tiled = decompose(p.spec, ranks, dims, 4, {}, widths);
    expect_cuts_cover(tiled, p.spec);
    EXPECT_EQ(tiled.cuts[0], even.cuts[0]);  // z is never moved
    for (int tx : widths) {
      const auto e = gpu_x_tile_count(even, p.spec, tx), t = gpu_x_tile_count(tiled, p.spec, tx);
      EXPECT_LE(t[1], e[1]) << "a rank got more tiles of " << tx
                            << " than the even split's largest";
      EXPECT_LE(t[0], e[0]);
    }
    // Two and four parts save tiles (three even parts of 184 cells already take 9 tiles, as one
    // rank does); two ranks along x launch the tiles of one rank.
    const auto e = gpu_x_tile_count(even, p.spec, 64), t = gpu_x_tile_count(tiled, p.spec, 64);
    if (dims[2] != 3) {
      EXPECT_LT(t[0], e[0]) << "the cuts saved no tile for " << dims[2] << " parts";
    }
    if (dims[2] == 2) {
      EXPECT_EQ(t[0], gpu_x_tile_count(whole, p.spec, 64)[0]);
    }
  }
  // 1 x 1 x 2: the even split gives 276 cells each (5 tiles each); the cut moves 24 cells down.
  const Decomposition x2 = decompose(p.spec, 2, {1, 1, 2}, 4, {}, widths);
  EXPECT_EQ(x2.cuts[2][1] - x2.cuts[2][0], 252);
  // A checkpoint of the ranks' states names the cuts: the CPU's even split of the same counts is
  // another split.
  const Decomposition x2_cpu = decompose(p.spec, 2, {1, 1, 2}, 4);
  EXPECT_EQ(x2.text(), x2_cpu.text());
  EXPECT_NE(x2.split_text(), x2_cpu.split_text());
  EXPECT_EQ(x2_cpu.split_text(), "1 x 1 x 2 (z x y x x), cuts z 4 60, y 4 60, x 4 280 556");
  // TTI's 32-cell tiles: the 276-cell halves already need 9 tiles each as one rank's 18 do,
  // and a cut on 64 would give one of them 10: the split stays even; so does one where no cut
  // saves a tile, and the CPU's (no widths).
  EXPECT_EQ(decompose(p.spec, 2, {1, 1, 2}, 4, {}, gpu_x_tiles(Physics::kTti)).cuts,
            decompose(p.spec, 2, {1, 1, 2}, 4).cuts);
  const auto narrow = problem(40, 16, 16, test::no_boundary());
  EXPECT_EQ(decompose(narrow.spec, 2, {1, 1, 2}, 4, {}, widths).cuts,
            decompose(narrow.spec, 2, {1, 1, 2}, 4).cuts);
}

TEST(Decomposition, ThinPartsAndWrongCountsAreConfigErrors) {
  const auto p = problem(20, 20, 12, test::no_boundary());
  try {
    decompose(p.spec, 4, {4, 1, 1}, 4, "run.toml");
    FAIL() << "4 parts of 12 cells with a halo of 4 were accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "parallel.decomposition");
    const std::string what = e.what();
    EXPECT_NE(what.find("thinner than the halo of 4 cells"), std::string::npos) << what;
    EXPECT_NE(what.find("fewer ranks along z"), std::string::npos) << what;
  }
  try {
    decompose(p.spec, 4, {2, 1, 1}, 4);
    FAIL() << "[2, 1, 1] was accepted for 4 ranks";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2 ranks per shot group, the launch gives 4"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(decompose(p.spec, 64, {0, 0, 0}, 8), ConfigError);  // no split thick enough
}

TEST(Decomposition, NeighboursAgreeAndOutputBoxesTileTheLayout) {
  const auto p = problem(23, 19, 17, test::sponge(5, true));
  const Decomposition d = decompose(p.spec, 12, {3, 2, 2}, 4);
  const Layout& gl = p.spec.layout;
  long long cells = 0, updated = 0;
  for (int r = 0; r < d.ranks(); ++r) {
    const Subdomain s = d.subdomain(r, p.spec);
    for (int a = 0; a < 3; ++a) {
      if (s.neighbour[2 * a + 1] >= 0) {
        const Subdomain n = d.subdomain(s.neighbour[2 * a + 1], p.spec);
        EXPECT_EQ(n.neighbour[2 * a], r);
        EXPECT_EQ(n.lo[a], s.hi[a]);
      }
      // The layout is the box plus the halo inside, to the grid's edge outside.
      EXPECT_EQ(s.layout_lo[a], s.neighbour[2 * a] < 0 ? 0 : s.lo[a] - 4);
      EXPECT_EQ(s.local_lo[a], s.lo[a] - s.layout_lo[a]);
    }
    cells += 1LL * (s.out_hi(0) - s.out_lo(0)) * (s.out_hi(1) - s.out_lo(1)) *
             (s.out_hi(2) - s.out_lo(2));
    updated += 1LL * (s.hi[0] - s.lo[0]) * (s.hi[1] - s.lo[1]) * (s.hi[2] - s.lo[2]);
  }
  EXPECT_EQ(cells, gl.cells());
  EXPECT_EQ(updated, p.spec.updated_cells());
}

TEST(Decomposition, LocalSpecDampsEveryCellAsTheWholeGrid) {
  const auto p = problem(23, 19, 17, test::sponge(6, true));
  const Decomposition d = decompose(p.spec, 8, {2, 2, 2}, 4);
  for (int r = 0; r < d.ranks(); ++r) {
    const Subdomain s = d.subdomain(r, p.spec);
    const StepSpec l = local_spec(p.spec, s);
    EXPECT_EQ(l.free_surface, s.neighbour[0] < 0);
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(l.end[a] - l.begin[a], s.hi[a] - s.lo[a]);
      EXPECT_EQ(l.sponge.width_lo[a] > 0, s.neighbour[2 * a] < 0 && p.spec.sponge.width_lo[a] > 0);
    }
    if (l.free_surface) {
      EXPECT_EQ(l.surface, p.spec.surface);
    }
    for (int z = s.lo[0]; z < s.hi[0]; ++z)
      for (int y = s.lo[1]; y < s.hi[1]; ++y)
        for (int x = s.lo[2]; x < s.hi[2]; ++x) {
          const auto c = s.to_local(z, y, x);
          ASSERT_EQ(sponge_g(l.sponge, c[0], c[1], c[2]), sponge_g(p.spec.sponge, z, y, x))
              << "rank " << r << " cell " << z << "," << y << "," << x;
        }
  }
}

TEST(Decomposition, RestrictedMediumIsTheGlobalOneOverTheLocalLayout) {
  const auto p = problem(21, 13, 11, test::sponge(4));
  std::vector<float> v(p.velocity.size());
  std::iota(v.begin(), v.end(), 0.0f);
  const Decomposition d = decompose(p.spec, 4, {1, 2, 2}, 4);
  for (int r = 0; r < d.ranks(); ++r) {
    const Subdomain s = d.subdomain(r, p.spec);
    const StepSpec l = local_spec(p.spec, s);
    const auto local = restrict_array(v, p.spec.layout, s, l.layout);
    for (int z = 0; z < l.layout.nz; ++z)
      for (int y = 0; y < l.layout.ny; ++y)
        for (int x = 0; x < l.layout.nx; ++x)
          ASSERT_EQ(
              local[l.layout.idx(z, y, x)],
              v[p.spec.layout.idx(z + s.layout_lo[0], y + s.layout_lo[1], x + s.layout_lo[2])]);
  }
}

class ParallelSection : public ::Config {};

TEST_F(ParallelSection, SectionParsesAndRejectsBadValues) {
  RunConfig c = parse(kMinimal + "[parallel]\ndecomposition = [2, 1, 3]\nshot_groups = 2\n");
  EXPECT_EQ(c.parallel.decomposition, (std::array<int, 3>{2, 1, 3}));
  EXPECT_EQ(c.parallel.shot_groups, 2);
  EXPECT_TRUE(
      parse(kMinimal + "[parallel]\ndecomposition = \"auto\"\n").parallel.auto_decomposition());
  EXPECT_TRUE(parse(kMinimal).parallel.auto_decomposition());
  expect_error(kMinimal + "[parallel]\ndecomposition = \"best\"\n", "parallel.decomposition", 15);
  expect_error(kMinimal + "[parallel]\ndecomposition = [2, 0, 1]\n", "parallel.decomposition", 15);
  expect_error(kMinimal + "[parallel]\ndecomposition = [2, 1]\n", "parallel.decomposition", 15);
  expect_error(kMinimal + "[parallel]\nshot_groups = 0\n", "parallel.shot_groups", 15);
  expect_error(kMinimal + "[parallel]\nexchange = \"carrier-pigeon\"\n", "parallel.exchange", 15);
  expect_error(kMinimal + "[parallel]\noverlap = 1\n", "parallel.overlap", 15);
  EXPECT_EQ(parse(kMinimal + "[parallel]\nexchange = \"nccl\"\n").parallel.exchange,
            Exchange::kNccl);
  EXPECT_TRUE(c.parallel.overlap);
  c.parallel.overlap = false;
  // The resolved config round-trips the section.
  const RunConfig back = parse_config(config_to_toml(c), "resolved.toml");
  EXPECT_EQ(back.parallel.decomposition, c.parallel.decomposition);
  EXPECT_EQ(back.parallel.shot_groups, 2);
  EXPECT_FALSE(back.parallel.overlap);
}

// The exchange asked for, resolved for a group of one rank (this process): nccl and peer need a
// GPU; nccl needs a build with NCCL; auto and mpi are mpi for a group of one.
TEST(Decomposition, ExchangeResolution) {
  const parallel::Comm one;
  for (Exchange gpu_only : {Exchange::kPeer, Exchange::kNccl}) try {
      resolve_exchange(gpu_only, Backend::kCpu, one, "run.toml");
      ADD_FAILURE() << to_string(gpu_only) << " on the cpu was not refused";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("parallel.exchange"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
    }
  if (nccl_built()) {
    EXPECT_EQ(resolve_exchange(Exchange::kNccl, Backend::kCuda, one), Exchange::kNccl);
  } else {
    try {
      resolve_exchange(Exchange::kNccl, Backend::kCuda, one, "run.toml");
      ADD_FAILURE() << "nccl in a build without NCCL was not refused";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("without NCCL"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(resolve_exchange(Exchange::kAuto, Backend::kCuda, one), Exchange::kMpi);
  EXPECT_EQ(resolve_exchange(Exchange::kAuto, Backend::kCpu, one), Exchange::kMpi);
  EXPECT_EQ(resolve_exchange(Exchange::kMpi, Backend::kCuda, one), Exchange::kMpi);
}

// HaloLink::sendrecv, which the GPU exchanges' set-up uses: one round of exchange() with the
// send where there is a rank to send to and the receive where there is one to receive from.
TEST(Decomposition, HaloLinkSendrecvIsOneRoundOfMessages) {
  std::vector<RankMessage> sent, received;
  int rounds = 0;
  HaloLink link;
  link.exchange = [&](const std::vector<RankMessage>& s, const std::vector<RankMessage>& r) {
    sent = s;
    received = r;
    ++rounds;
  };
  int out = 1, in = 0;
  link.sendrecv(&out, sizeof out, 3, &in, sizeof in, 5, 42);
  ASSERT_EQ(rounds, 1);
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(sent[0].data, &out);
  EXPECT_EQ(sent[0].bytes, sizeof out);
  EXPECT_EQ(sent[0].peer, 3);
  EXPECT_EQ(sent[0].tag, 42);
  EXPECT_EQ(received[0].data, &in);
  EXPECT_EQ(received[0].peer, 5);
  EXPECT_EQ(received[0].tag, 42);
  link.sendrecv(&out, sizeof out, -1, &in, sizeof in, 5, 7);  // nothing to send
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(received.size(), 1u);
  link.sendrecv(&out, sizeof out, 2, &in, 0, -1, 7);  // nothing to receive
  EXPECT_EQ(sent.size(), 1u);
  EXPECT_TRUE(received.empty());
  EXPECT_EQ(rounds, 3);
}

// What a step split around an interior updates after it (shell_boxes): every cell of the outer
// box outside the interior exactly once, nothing else; interiors that touch faces, stick out or
// are empty.
TEST(Decomposition, ShellBoxesCoverTheOuterBoxOutsideTheInteriorOnce) {
  Box outer;
  outer.lo[0] = 2, outer.lo[1] = 3, outer.lo[2] = 1;
  outer.hi[0] = 11, outer.hi[1] = 9, outer.hi[2] = 14;
  const auto box = [](std::array<int, 6> v) {
    Box b;
    for (int a = 0; a < 3; ++a) b.lo[a] = v[2 * a], b.hi[a] = v[2 * a + 1];
    return b;
  };
  for (const Box& inner : {box({4, 7, 3, 9, 5, 10}), box({2, 11, 3, 9, 5, 10}),
                           box({0, 20, 5, 6, 0, 20}), box({5, 5, 4, 8, 2, 3}), outer}) {
    std::vector<int> hits(16 * 16 * 16, 0);
    for (const Box& b : shell_boxes(outer, inner)) {
      ASSERT_GT(b.cells(), 0);
      for (int z = b.lo[0]; z < b.hi[0]; ++z)
        for (int y = b.lo[1]; y < b.hi[1]; ++y)
          for (int x = b.lo[2]; x < b.hi[2]; ++x) ++hits[(z * 16 + y) * 16 + x];
    }
    for (int z = 0; z < 16; ++z)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
          const int at[3] = {z, y, x};
          bool in_outer = true, in_inner = true;
          for (int a = 0; a < 3; ++a) {
            in_outer = in_outer && at[a] >= outer.lo[a] && at[a] < outer.hi[a];
            in_inner = in_inner && at[a] >= inner.lo[a] && at[a] < inner.hi[a];
          }
          ASSERT_EQ(hits[(z * 16 + y) * 16 + x], in_outer && !in_inner ? 1 : 0)
              << "cell " << z << "," << y << "," << x;
        }
  }
}

}  // namespace
}  // namespace seisfd
