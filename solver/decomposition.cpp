#include "solver/decomposition.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "solver/config.hpp"

namespace seisfd {
namespace {

constexpr const char* kAxis[3] = {"z", "y", "x"};

int extent(const Layout& l, int a) {
  return a == 0 ? l.nz : a == 1 ? l.ny : l.nx;
}

// Cuts of [begin, end) into p parts as even as the cells allow, each cut moved out of the
// absorbing layers into [phys_lo, phys_hi + 1] where the axis has them.
std::vector<int> split_axis(const StepSpec& g, int a, int p) {
  const int begin = g.begin[a], end = g.end[a], n = end - begin;
  std::vector<int> cuts(p + 1);
  for (int k = 0; k <= p; ++k)
    cuts[k] = begin + static_cast<int>(static_cast<long long>(n) * k / p);
  const int lo = g.sponge.width_lo[a] > 0 ? g.sponge.phys_lo[a] : begin;
  const int hi = g.sponge.width_hi[a] > 0 ? g.sponge.phys_hi[a] + 1 : end;
  for (int k = 1; k < p; ++k) cuts[k] = std::clamp(cuts[k], lo, hi);
  return cuts;
}

int thinnest(const std::vector<int>& cuts) {
  int t = std::numeric_limits<int>::max();
  for (size_t k = 0; k + 1 < cuts.size(); ++k) t = std::min(t, cuts[k + 1] - cuts[k]);
  return t;
}

// Tiles of `granule` cells each part of `cuts` spans: a part's tiles start at its first cell
// less `lead` (the cells before it in the tile, which a GPU launch leaves idle: rank 0's begin,
// every other rank's halo, each modulo 32, where a launch's row segments start).
struct TileCount {
  int most = 0, total = 0;
};
TileCount tiles_of(const std::vector<int>& cuts, int granule, int lead_first, int lead_rest) {
  TileCount t;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const int cells = cuts[k + 1] - cuts[k] + (k == 0 ? lead_first : lead_rest);
    const int n = (cells + granule - 1) / granule;
    t.most = std::max(t.most, n);
    t.total += n;
  }
  return t;
}

// The even cuts moved, one at a time from the low end, to the nearest place where the part
// before them ends on a whole tile of widths[0] cells, when that keeps every part thick enough
// and out of the layers, gives no part more tiles of any of the widths than the even split's
// largest, and saves tiles of widths[0] in all: ranks sharing a GPU then launch fewer tiles, and
// ranks on GPUs of their own take the same time (the largest part's tiles).
std::vector<int> align_cuts(const StepSpec& g, int a, std::vector<int> even,
                            const std::vector<int>& widths, int lead_first, int lead_rest,
                            int halo) {
  const int p = static_cast<int>(even.size()) - 1;
  if (widths.empty() || p < 2) return even;
  const int granule = widths[0];
  const int lo = g.sponge.width_lo[a] > 0 ? g.sponge.phys_lo[a] : g.begin[a];
  const int hi = g.sponge.width_hi[a] > 0 ? g.sponge.phys_hi[a] + 1 : g.end[a];
  std::vector<int> cuts = even;
  for (int k = 1; k < p; ++k) {
    // Part k - 1 ends on a tile where (cut - cuts[k - 1] + lead) is a multiple of granule.
    const int start = cuts[k - 1] - (k == 1 ? lead_first : lead_rest);
    const int down = start + (even[k] - start) / granule * granule;
    const int up = down + granule;
    int best = even[k];
    for (int c : {down, up}) {
      if (c < lo || c > hi || c - cuts[k - 1] < std::max(halo, 1)) continue;
      if (best == even[k] || std::abs(c - even[k]) < std::abs(best - even[k])) best = c;
    }
    cuts[k] = best;
  }
  for (int k = 0; k < p; ++k)
    if (cuts[k + 1] <= cuts[k]) return even;
  if (thinnest(cuts) < std::max(halo, 1)) return even;
  for (int w : widths)
    if (tiles_of(cuts, w, lead_first, lead_rest).most >
        tiles_of(even, w, lead_first, lead_rest).most)
      return even;
  return tiles_of(cuts, granule, lead_first, lead_rest).total <
                 tiles_of(even, granule, lead_first, lead_rest).total
             ? cuts
             : even;
}

Decomposition make(const StepSpec& g, const std::array<int, 3>& dims, int halo,
                   const std::vector<int>& x_tiles) {
  Decomposition d;
  d.dims = dims;
  d.halo = halo;
  for (int a = 0; a < 3; ++a) d.cuts[a] = split_axis(g, a, dims[a]);
  // x tiles start at a multiple of 32 cells (the launches' row segments): rank 0's first
  // g.begin[2] % 32 cells of its first tile are idle, the others' halo % 32.
  d.cuts[2] = align_cuts(g, 2, d.cuts[2], x_tiles, g.begin[2] % 32, halo % 32, halo);
  return d;
}

// The first axis whose parts are thinner than the halo, or -1.
int too_thin(const Decomposition& d) {
  for (int a = 0; a < 3; ++a)
    if (d.dims[a] > 1 && thinnest(d.cuts[a]) < std::max(d.halo, 1)) return a;
  return -1;
}

}  // namespace

std::vector<int> gpu_x_tiles(Physics p) {
  // acoustic: smem_regqueue, tma_ring, cluster_dsmem 64, shfl_regqueue 128; VTI smem_regqueue
  // 64; TTI smem_ring, smem_nested 32.
  switch (p) {
    case Physics::kAcoustic:
      return {64, 128};
    case Physics::kVti:
      return {64};
    default:
      return {32};
  }
}

int halo_width(Physics, int radius) {
  return radius;
}

std::array<int, 3> Decomposition::coords(int rank) const {
  return {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
}

int Decomposition::rank_at(const std::array<int, 3>& c) const {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= dims[a]) return -1;
  return (c[0] * dims[1] + c[1]) * dims[2] + c[2];
}

Subdomain Decomposition::subdomain(int rank, const StepSpec& g) const {
  Subdomain s;
  s.rank = rank;
  s.ranks = ranks();
  const auto c = coords(rank);
  for (int a = 0; a < 3; ++a) {
    s.lo[a] = cuts[a][c[a]];
    s.hi[a] = cuts[a][c[a] + 1];
    for (int side = 0; side < 2; ++side) {
      auto n = c;
      n[a] += side == 0 ? -1 : 1;
      s.neighbour[2 * a + side] = rank_at(n);
    }
    s.layout_lo[a] = s.neighbour[2 * a] < 0 ? 0 : s.lo[a] - halo;
    s.layout_hi[a] = s.neighbour[2 * a + 1] < 0 ? extent(g.layout, a) : s.hi[a] + halo;
    s.local_lo[a] = s.lo[a] - s.layout_lo[a];
  }
  return s;
}

long long Decomposition::halo_cells(const StepSpec& g, int x_weight) const {
  const long long n[3] = {g.layout.nz, g.layout.ny, g.layout.nx};
  long long cells = 0;
  for (int a = 0; a < 3; ++a)
    cells += (a == 2 ? x_weight : 1) * 2LL * (dims[a] - 1) * halo * n[(a + 1) % 3] * n[(a + 2) % 3];
  return cells;
}

int auto_x_weight(bool gpu, bool host_staged) {
  return gpu && host_staged ? kHostStagedXWeight : 1;
}

std::string Decomposition::text() const {
  return std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
         std::to_string(dims[2]) + " (z x y x x)";
}

std::string Decomposition::split_text() const {
  std::string t = text() + ", cuts";
  for (int a = 0; a < 3; ++a) {
    t += std::string(a ? "," : "") + " " + kAxis[a];
    for (int c : cuts[a]) t += " " + std::to_string(c);
  }
  return t;
}

Decomposition decompose(const StepSpec& g, int ranks, const std::array<int, 3>& dims, int halo,
                        const std::string& source, const std::vector<int>& x_tiles, int x_weight) {
  const char* key = "parallel.decomposition";
  if (dims[0] > 0) {
    if (dims[0] * dims[1] * dims[2] != ranks)
      throw ConfigError(key,
                        "[" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
                            std::to_string(dims[2]) + "] needs " +
                            std::to_string(dims[0] * dims[1] * dims[2]) +
                            " ranks per shot group, the launch gives " + std::to_string(ranks),
                        source);
    Decomposition d = make(g, dims, halo, x_tiles);
    if (const int a = too_thin(d); a >= 0)
      throw ConfigError(
          key,
          "splits " + std::string(kAxis[a]) + " (" + std::to_string(g.end[a] - g.begin[a]) +
              " updated cells) into " + std::to_string(dims[a]) + " parts, the thinnest " +
              std::to_string(thinnest(d.cuts[a])) + " cells, thinner than the halo of " +
              std::to_string(halo) + " cells the stencil needs; use fewer ranks along " + kAxis[a],
          source);
    return d;
  }
  // "auto": every factorisation of ranks, the fewest halo cells (x faces x_weight times); ties go
  // to the split of the slower axes (contiguous faces).
  bool found = false;
  Decomposition best;
  long long best_cells = 0;
  for (int pz = ranks; pz >= 1; --pz)
    for (int py = ranks / pz; py >= 1; --py) {
      if (ranks % (pz * py)) continue;
      const int px = ranks / (pz * py);
      Decomposition d = make(g, {pz, py, px}, halo, x_tiles);
      if (too_thin(d) >= 0) continue;
      const long long cells = d.halo_cells(g, x_weight);
      if (!found || cells < best_cells) {
        found = true;
        best = d;
        best_cells = cells;
      }
    }
  if (!found)
    throw ConfigError(key,
                      "\"auto\" finds no split of the updated region (" +
                          std::to_string(g.end[0] - g.begin[0]) + " x " +
                          std::to_string(g.end[1] - g.begin[1]) + " x " +
                          std::to_string(g.end[2] - g.begin[2]) + " cells, z x y x x) into " +
                          std::to_string(ranks) + " parts at least " + std::to_string(halo) +
                          " cells thick (the halo); use fewer ranks",
                      source);
  return best;
}

StepSpec local_spec(const StepSpec& g, const Subdomain& d) {
  StepSpec s = g;
  s.layout = Layout::make(d.layout_hi[0] - d.layout_lo[0], d.layout_hi[1] - d.layout_lo[1],
                          d.layout_hi[2] - d.layout_lo[2]);
  for (int a = 0; a < 3; ++a) {
    const int shift = d.layout_lo[a];
    s.begin[a] = d.lo[a] - shift;
    s.end[a] = d.hi[a] - shift;
    s.sponge.phys_lo[a] -= shift;
    s.sponge.phys_hi[a] -= shift;
    // A layer lies wholly in the rank at its edge of the grid (decompose never cuts one).
    if (d.neighbour[2 * a] >= 0) s.sponge.width_lo[a] = 0;
    if (d.neighbour[2 * a + 1] >= 0) s.sponge.width_hi[a] = 0;
  }
  if (g.free_surface) {
    s.free_surface = d.neighbour[0] < 0;
    s.surface = g.surface - d.layout_lo[0];
  }
  return s;
}

std::vector<float> restrict_array(const std::vector<float>& global, const Layout& gl,
                                  const Subdomain& d, const Layout& local) {
  std::vector<float> out(static_cast<size_t>(local.size()), 0.0f);
  for (int z = 0; z < local.nz; ++z)
    for (int y = 0; y < local.ny; ++y) {
      const float* from =
          global.data() + gl.idx(z + d.layout_lo[0], y + d.layout_lo[1], d.layout_lo[2]);
      std::copy(from, from + local.nx, out.data() + local.idx(z, y, 0));
    }
  return out;
}

Medium restrict_medium(const Medium& global, const Layout& gl, const Subdomain& d,
                       const Layout& local) {
  Medium m;
  m.physics = global.physics;
  const auto cut = [&](const std::vector<float>& v) {
    return v.empty() ? std::vector<float>{} : restrict_array(v, gl, d, local);
  };
  m.velocity = cut(global.velocity);
  m.epsilon = cut(global.epsilon);
  m.delta = cut(global.delta);
  m.theta = cut(global.theta);
  m.phi = cut(global.phi);
  return m;
}

}  // namespace seisfd
