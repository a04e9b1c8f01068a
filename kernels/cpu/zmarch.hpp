// What the register-queue CPU kernels (variants `*/oN/regqueue`) share: the traversal and the
// absorbing layer's damping as per-row tables.
//   - Tiles: each OpenMP thread takes whole y blocks (all of z) and marches them through z, a
//     few planes at a time (the kernel's register queue), so the 2R + 1 planes of a block's rows
//     the z stencil reads stay in the core's L2 cache. The y blocks are sized so that every
//     thread gets the same number of rows (2 threads and 16 blocks of 13 rows, not 13 blocks of
//     16 of which one thread gets 7).
//   - Damping: the update is written once, next = A (2 cur - B prev + C f), with per-row tables
//     A = 1 / (1 + g), B = 1 - g (g the sponge term); rows that do not damp read A = B = 1.
//     Tables are kept for the rows where only one of g_z, g_y is non-zero (and for neither);
//     the few rows where both are (the layer's edges along x) build theirs when they are
//     reached. The kernels' inner loops are then the same for every cell, branch-free.
#pragma once
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cpu/blocked.hpp"
#include "kernels/cpu/simd.hpp"

namespace seisfd::cpu {

// Rows per y block: the target, before it is evened out between the threads. Measured on 2
// cores of an AMD EPYC (Zen 5), acoustic/o8/regqueue, + sponge 20, Gcells/s (quiet-ish machine,
// load 1.3-2.6, 2026-11-26): target 16 rows: 161^3 2.84-3.10, 256^3 2.31-2.35; 32 rows: 3.14-3.37,
// 2.41-2.49; 64 rows: 3.18-3.27, 2.52-2.58. The halo rows a block re-reads cost 2R / block
// of cur's traffic; the planes of a block must stay in L2 (10 planes of 40 rows of 1.2 KB at
// 256^3).
inline constexpr int kTargetBlockY = 32;

struct Tiles {
  int yblocks = 1, block = 1;
};

inline Tiles make_tiles(int ny, int threads, int target = kTargetBlockY) {
  Tiles t;
  const int per_thread = std::max(1, (ny + threads * target / 2) / (threads * target));
  t.yblocks = std::min(ny, per_thread * threads);
  t.block = (ny + t.yblocks - 1) / t.yblocks;
  t.yblocks = (ny + t.block - 1) / t.block;
  return t;
}

// fn(y0, y1) for every y block of the updated region, blocks spread evenly on the threads.
template <class F>
void for_y_blocks(const StepSpec& s, F&& fn, int target = kTargetBlockY) {
  const int ya = s.begin[1], ny = s.end[1] - ya;
  if (ny <= 0 || s.end[0] <= s.begin[0] || s.end[2] <= s.begin[2]) return;
  const Tiles t = make_tiles(ny, omp_get_max_threads(), target);
#pragma omp parallel for schedule(static)
  for (int b = 0; b < t.yblocks; ++b)
    fn(ya + b * t.block, std::min(ya + (b + 1) * t.block, ya + ny));
}

// For kernels whose y blocks repeat work at their edges (tti/oN/simd: pass 1 computes R rows
// either side of a block), with more threads than blocks of about `target` rows: fn(y0, y1, z0,
// z1) over blocks of the updated region cut in z as well, y into the largest divisor d of the
// thread count that leaves at least 3/4 of the target a block and z into threads / d chunks
// (each chunk pays its kernel's warm-up planes instead; at least kMinZChunk planes). Where
// make_tiles' blocks keep 3/4 of the target (2 threads at 161^3: 4 blocks of 51 rows), the same
// blocks as for_y_blocks with z whole.
inline constexpr int kMinZChunk =
    16;  // planes: a chunk's warm-up (2R planes of pass 1) stays small
struct YzTiles {
  int block = 1, yblocks = 1;  // rows a y block, blocks
  int zlen = 1, zchunks = 1;   // planes a z chunk, chunks
  bool operator==(const YzTiles& o) const {
    return block == o.block && yblocks == o.yblocks && zlen == o.zlen && zchunks == o.zchunks;
  }
};

// The tiles of for_yz_blocks (ny rows and nz planes to update on `threads` threads).
inline YzTiles yz_tiles(int ny, int nz, int threads, int target) {
  const int enough = std::max(1, 3 * target / 4);
  const Tiles t = make_tiles(ny, threads, target);
  YzTiles y{t.block, t.yblocks, nz, 1};
  if (t.block < enough) {
    int d = 1;
    for (int k = 1; k <= threads; ++k)
      if (threads % k == 0 && ny / k >= enough) d = k;
    y.zchunks = std::min(threads / d, std::max(1, nz / kMinZChunk));
    y.block = (ny + d - 1) / d;
    y.yblocks = (ny + y.block - 1) / y.block;
  }
  y.zlen = (nz + y.zchunks - 1) / y.zchunks;
  y.zchunks = (nz + y.zlen - 1) / y.zlen;
  return y;
}

template <class F>
void for_yz_blocks(const StepSpec& s, F&& fn, int target) {
  const int ya = s.begin[1], ny = s.end[1] - ya, za = s.begin[0], nz = s.end[0] - za;
  if (ny <= 0 || nz <= 0 || s.end[2] <= s.begin[2]) return;
  const YzTiles t = yz_tiles(ny, nz, omp_get_max_threads(), target);
  const int tasks = t.yblocks * t.zchunks;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < tasks; ++b) {
    const int yb = b % t.yblocks, zc = b / t.yblocks;
    fn(ya + yb * t.block, std::min(ya + (yb + 1) * t.block, ya + ny), za + zc * t.zlen,
       std::min(za + (zc + 1) * t.zlen, za + nz));
  }
}

// The y-block target of a kernel whose best block depends on the machine's caches, found by
// measuring: the first calls (steps) on a region shape run each candidate whose tiles differ
// kRounds times, and the fastest is kept for that shape from then on. Only for kernels whose
// arithmetic does not depend on the blocking: the result is the same whichever is chosen.
class BlockTuner {
 public:
  static constexpr int kRounds = 2;
  explicit BlockTuner(std::vector<int> candidates) : candidates_(std::move(candidates)) {
    if (candidates_.empty()) throw std::invalid_argument("BlockTuner: no candidate targets");
  }

  // The target for a call on s's region with `threads` threads; `report` its seconds after.
  int pick(const StepSpec& s, int threads) {
    std::lock_guard<std::mutex> lock(mu_);
    Shape& sh = shape(s, threads);
    return sh.best > 0 ? sh.best : sh.tried[sh.trials % sh.tried.size()];
  }
  void report(const StepSpec& s, int threads, int target, double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    Shape& sh = shape(s, threads);
    if (sh.best > 0) return;
    const size_t c = std::find(sh.tried.begin(), sh.tried.end(), target) - sh.tried.begin();
    if (c == sh.tried.size()) return;
    sh.seconds[c] = std::min(sh.seconds[c], seconds);
    if (++sh.trials >= kRounds * static_cast<int>(sh.tried.size()))
      sh.best =
          sh.tried[std::min_element(sh.seconds.begin(), sh.seconds.end()) - sh.seconds.begin()];
  }

 private:
  struct Shape {
    std::vector<int> tried;       // the candidates whose tiles differ
    std::vector<double> seconds;  // the fastest call of each
    int trials = 0, best = 0;
  };
  Shape& shape(const StepSpec& s, int threads) {
    const std::array<int, 6> key{s.end[0] - s.begin[0],
                                 s.end[1] - s.begin[1],
                                 s.end[2] - s.begin[2],
                                 static_cast<int>(s.layout.sy),
                                 s.radius,
                                 threads};
    auto it = shapes_.find(key);
    if (it != shapes_.end()) return it->second;
    Shape sh;
    std::vector<YzTiles> seen;
    const bool empty = key[0] <= 0 || key[1] <= 0 || key[2] <= 0;  // nothing to tile
    for (int t : candidates_) {
      if (empty) {
        sh.tried.push_back(t);
        break;
      }
      const YzTiles y = yz_tiles(key[1], key[0], threads, t);
      if (std::find(seen.begin(), seen.end(), y) != seen.end()) continue;
      seen.push_back(y);
      sh.tried.push_back(t);
    }
    sh.seconds.assign(sh.tried.size(), std::numeric_limits<double>::infinity());
    if (sh.tried.size() == 1) sh.best = sh.tried[0];
    return shapes_.emplace(key, std::move(sh)).first->second;
  }
  std::vector<int> candidates_;
  std::mutex mu_;
  std::map<std::array<int, 6>, Shape> shapes_;
};

// The damping tables A = 1 / (1 + g), B = 1 - g of every row, indexed by x from the row's first
// cell, with two vectors of padding either side (the kernels read whole vectors past a row's
// ends) and placed so that a table's x has the fields' alignment within a vector: the kernels'
// loads of A and B then split no cache line where the fields' loads do not.
template <class T>
class RowDamping {
 public:
  RowDamping(const StepSpec& s, const SpongeTables* sponge)
      : s_(s), sp_(s.sponge_on() ? sponge : nullptr) {
    const Layout& l = s.layout;
    stride_ = (static_cast<int>(l.sy) + 5 * kW) / kW * kW;
    if (sp_) {
      gx_.resize(l.nx);
      for (int x = 0; x < l.nx; ++x) gx_[x] = static_cast<T>(sp_->g[2][x]);
    }
  }

  // Builds the kept tables for fields whose element x = 0 of a row sits `align` elements into
  // a vector (all the fields alike: rows are 128-byte aligned in one allocator's
  // arrays); once, or again when the alignment changes. Not thread-safe: the engine calls it
  // before the kernel's parallel region.
  void prepare(int align) {
    if (align == align_) return;
    align_ = align;
    const Layout& l = s_.layout;
    const size_t tables = sp_ ? 1 + l.nz + l.ny : 1;
    store_.assign(tables * 2 * stride_ + 4 * kW, T(1));
    const auto addr = reinterpret_cast<uintptr_t>(store_.data()) / sizeof(T);
    base_ = store_.data() + (kW - addr % kW) % kW + 2 * kW + align;
    if (!sp_) return;
    fill(table(0), 0.0);
    for (int z = 0; z < l.nz; ++z) fill(table(1 + z), sp_->g[0][z]);
    for (int y = 0; y < l.ny; ++y) fill(table(1 + l.nz + y), sp_->g[1][y]);
  }

  // Elements of a thread's buffer for row().
  int buffer_size() const { return 2 * stride_ + 4 * kW; }

  // A of row (z, y) at [x], B at [x + b_offset()]: a kept table, or one built into buf (a
  // buffer_size() array of the calling thread's) where g_z and g_y are both non-zero.
  const T* row(int z, int y, T* buf) const {
    if (!sp_) return base_;
    const double gz = sp_->g[0][z], gy = sp_->g[1][y];
    if (gz == 0.0 && gy == 0.0) return table(0);
    if (gy == 0.0) return table(1 + z);
    if (gz == 0.0) return table(1 + s_.layout.nz + y);
    const auto addr = reinterpret_cast<uintptr_t>(buf) / sizeof(T);
    T* t = buf + (kW - addr % kW) % kW + kW + align_;
    // T arithmetic (vectorised, as cheap as the rows it serves): g differs from the reference's
    // rounding of the double sum by an ulp at most.
    const T gzy = static_cast<T>(gz + gy);
    const int nx = s_.layout.nx;
    T* b = t + stride_;
#pragma omp simd
    for (int x = 0; x < nx; ++x) {
      const T g = gzy + gx_[x];
      t[x] = T(1) / (T(1) + g);
      b[x] = T(1) - g;
    }
    return t;
  }
  int b_offset() const {
    return stride_;
  }

 private:
  static constexpr int kW = Simd<T>::kLanes;
  T* table(size_t k) const {
    return base_ + k * 2 * stride_;
  }
  // g = (g_zy + g_x[x]) summed in double as the reference's sponge_g sums, then rounded.
  void fill(T* a, double gzy) const {
    T* b = a + stride_;
    for (int x = 0; x < s_.layout.nx; ++x) {
      const T g = static_cast<T>(gzy + sp_->g[2][x]);
      a[x] = T(1) / (T(1) + g);
      b[x] = T(1) - g;
    }
  }
  StepSpec s_;
  const SpongeTables* sp_;
  int stride_ = 0, align_ = -1;
  std::vector<T> store_, gx_;
  T* base_ = nullptr;
};

// The element offset of p within a vector of T (Simd<T>::kBytes).
template <class T>
int vector_offset(const T* p) {
  return static_cast<int>(reinterpret_cast<uintptr_t>(p) % Simd<T>::kBytes / sizeof(T));
}

// Elements a scratch row of a sweeping kernel needs for cells [xa, xb): from x0 >= xa - W (xa
// rounded down to the fields' vector) to the last vector's end < xb + W, a multiple of the vector.
template <class T>
int scratch_stride(int xa, int xb) {
  constexpr int W = Simd<T>::kLanes;
  return (xb - xa + 3 * W) / W * W;
}

// Scratch rows of a sweeping kernel: `rows` rows of `stride` elements (scratch_stride) in v,
// grown as needed; the first row's start, aligned to a vector.
template <class T>
T* scratch_rows(std::vector<T>& v, int rows, int stride) {
  constexpr int W = Simd<T>::kLanes;
  v.resize(static_cast<size_t>(rows) * stride + W);
  const auto addr = reinterpret_cast<uintptr_t>(v.data()) / sizeof(T);
  return v.data() + (W - addr % W) % W;
}

// The pointwise streams of a row of the anisotropic update (pointers at the row's first cell).
template <class T>
struct PqRow {
  const T *E, *D, *C;  // the medium's coefficients (kernels/reference/anisotropic.hpp)
  const T *pc, *qc;    // the current p and q
  T *pn, *qn;          // the previous p and q, overwritten by the next
};

// The anisotropic kernels' last sweep (vti_simd.hpp, tti_simd.hpp): from the row's H_0 X and
// H_z Y (h0, hz: scratch rows holding element x - x0), the forces fp = E H_0 X + D H_z Y,
// fq = D H_0 X + H_z Y (the adjoint: fp = H_0 X, fq = H_z Y) and the leapfrog
// next = A (2 cur - B prev + C f) of p and q over cells [xa, xb) (x0: xa rounded down to the
// fields' vector); the streams prefetched kAhead rows (of sy elements) ahead.
template <class T, bool kAdj, int kAhead>
SEISFD_CPU_INLINE void leapfrog_pq_row(const T* h0, const T* hz, const PqRow<T>& r, const T* A,
                                       const T* B, int x0, int xa, int xb, int64_t sy) {
  using S = Simd<T>;
  using V = typename S::V;
  h0 -= x0;
  hz -= x0;
  for (int x = x0; x < xb; x += S::kLanes) {
    for (const T* p : {r.C, r.pc, r.qc, static_cast<const T*>(r.pn), static_cast<const T*>(r.qn)})
      __builtin_prefetch(p + x + kAhead * sy);
    if constexpr (!kAdj) {
      __builtin_prefetch(r.E + x + kAhead * sy);
      __builtin_prefetch(r.D + x + kAhead * sy);
    }
    const V h = S::load(h0 + x), vz = S::load(hz + x);
    V fp, fq;
    if constexpr (kAdj) {
      fp = h;
      fq = vz;
    } else {
      const V e = S::load(r.E + x), d = S::load(r.D + x);
      fp = e * h + d * vz;
      fq = d * h + vz;
    }
    const V Ax = S::load(A + x), Bx = S::load(B + x), c = S::load(r.C + x);
    const V np = Ax * (T(2) * S::load(r.pc + x) - Bx * S::load(r.pn + x) + c * fp);
    const V nq = Ax * (T(2) * S::load(r.qc + x) - Bx * S::load(r.qn + x) + c * fq);
    S::store_range(r.pn + x, np, x, xa, xb);
    S::store_range(r.qn + x, nq, x, xa, xb);
  }
}

}  // namespace seisfd::cpu
