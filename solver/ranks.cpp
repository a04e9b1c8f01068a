#include "solver/ranks.hpp"

#include <algorithm>
#include <climits>

namespace seisfd {
namespace {

// The samples k of a strided axis [lo, hi) step d whose cells lie in [a, b): [k0, k1).
void samples_in(int lo, int hi, int d, int a, int b, int& k0, int& k1) {
  const int first = std::max(lo, a), last = std::min(hi, b);  // cells [first, last)
  k0 = (first - lo + d - 1) / d;
  k1 = last > first ? (last - lo + d - 1) / d : k0;
}

int count(int lo, int hi, int d) {
  return (hi - lo + d - 1) / d;
}

}  // namespace

ShotGroup::ShotGroup(parallel::Comm comm, Decomposition dec, const StepSpec& global,
                     const RankDomain& dom)
    : comm_(std::move(comm)), dec_(std::move(dec)), global_(global), dom_(dom) {}

Diagnostics ShotGroup::combine(const Diagnostics& d) const {
  Diagnostics g;
  g.sum_sq = comm_.sum(d.sum_sq);
  g.max_abs = comm_.max(d.max_abs);
  g.nonfinite = comm_.sum(static_cast<long long>(d.nonfinite));
  long long first = LLONG_MAX;
  if (d.first_nonfinite >= 0) {
    int z, y, x;
    dom_.spec.layout.coords(d.first_nonfinite, z, y, x);
    first = global_.layout.idx(z + dom_.sub.layout_lo[0], y + dom_.sub.layout_lo[1],
                               x + dom_.sub.layout_lo[2]);
  }
  first = comm_.min(first);
  g.first_nonfinite = first == LLONG_MAX ? -1 : first;
  return g;
}

void ShotGroup::attach(LoopOptions& lo) const {
  lo.diagnostics_in_flight = 0;
  lo.combine = [this](const Diagnostics& d) { return combine(d); };
  lo.agree = [this](bool stop) { return comm_.any(stop); };
}

std::vector<double> ShotGroup::merge(const std::vector<double>& local, const std::vector<int>& ids,
                                     int count_, int nt) const {
  const size_t n = static_cast<size_t>(nt);
  std::vector<double> all(static_cast<size_t>(count_) * n, 0.0);
  for (size_t p = 0; p < ids.size(); ++p)
    for (size_t t = 0; t < n; ++t) all[ids[p] * n + t] += local[p * n + t];
  comm_.sum_to(all, 0);
  if (!comm_.root()) all.clear();
  return all;
}

void ShotGroup::gather_box(const Propagation& p, const int lo[3], const int hi[3], const int dec[3],
                           std::vector<float>& out) const {
  // This rank's piece: the samples of the box in the cells it answers for.
  int k0[3], k1[3];
  for (int a = 0; a < 3; ++a)
    samples_in(lo[a], hi[a], dec[a], dom_.sub.out_lo(a), dom_.sub.out_hi(a), k0[a], k1[a]);
  std::vector<float> piece;
  if (k0[0] < k1[0] && k0[1] < k1[1] && k0[2] < k1[2]) {
    int plo[3], phi[3];
    for (int a = 0; a < 3; ++a) {
      plo[a] = lo[a] + k0[a] * dec[a] - dom_.sub.layout_lo[a];
      phi[a] = lo[a] + (k1[a] - 1) * dec[a] + 1 - dom_.sub.layout_lo[a];
    }
    p.copy_field(plo, phi, dec, piece);
  }
  std::vector<float> all = comm_.gather(piece, 0);
  out.clear();
  if (!comm_.root()) return;
  const int n[3] = {count(lo[0], hi[0], dec[0]), count(lo[1], hi[1], dec[1]),
                    count(lo[2], hi[2], dec[2])};
  out.assign(static_cast<size_t>(n[0]) * n[1] * n[2], 0.0f);
  size_t at = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    const Subdomain s = dec_.subdomain(r, global_);
    int r0[3], r1[3];
    for (int a = 0; a < 3; ++a)
      samples_in(lo[a], hi[a], dec[a], s.out_lo(a), s.out_hi(a), r0[a], r1[a]);
    if (!(r0[0] < r1[0] && r0[1] < r1[1] && r0[2] < r1[2])) continue;
    for (int z = r0[0]; z < r1[0]; ++z)
      for (int y = r0[1]; y < r1[1]; ++y) {
        const size_t len = static_cast<size_t>(r1[2] - r0[2]);
        std::copy_n(all.begin() + at, len,
                    out.begin() + (static_cast<size_t>(z) * n[1] + y) * n[2] + r0[2]);
        at += len;
      }
  }
}

std::vector<double> ShotGroup::gather_cells(const std::vector<double>& local) const {
  constexpr int kTag = 7101;
  const Layout& gl = global_.layout;
  // The rows of rank r's out box in its own layout (send) or in the global one (place).
  const auto rows = [&](const Subdomain& s, const auto& row) {
    const int len = s.out_hi(2) - s.out_lo(2);
    for (int z = s.out_lo(0); z < s.out_hi(0); ++z)
      for (int y = s.out_lo(1); y < s.out_hi(1); ++y) row(z, y, len);
  };
  const auto box_cells = [](const Subdomain& s) {
    size_t n = 1;
    for (int a = 0; a < 3; ++a) n *= static_cast<size_t>(s.out_hi(a) - s.out_lo(a));
    return n;
  };
  const Subdomain& me = dom_.sub;
  const Layout& ll = dom_.spec.layout;
  const auto local_at = [&](int z, int y) {
    return ll.idx(z - me.layout_lo[0], y - me.layout_lo[1], me.out_lo(2) - me.layout_lo[2]);
  };
  if (!comm_.root()) {
    std::vector<double> piece;
    piece.reserve(box_cells(me));
    rows(me, [&](int z, int y, int len) {
      piece.insert(piece.end(), local.begin() + local_at(z, y),
                   local.begin() + local_at(z, y) + len);
    });
    comm_.send(piece.data(), piece.size() * sizeof(double), 0, kTag);
    return {};
  }
  std::vector<double> out(static_cast<size_t>(gl.size()), 0.0);
  rows(me, [&](int z, int y, int len) {
    std::copy_n(local.begin() + local_at(z, y), len, out.begin() + gl.idx(z, y, me.out_lo(2)));
  });
  std::vector<double> piece;
  for (int r = 1; r < comm_.size(); ++r) {
    const Subdomain s = dec_.subdomain(r, global_);
    piece.resize(box_cells(s));
    comm_.recv(piece.data(), piece.size() * sizeof(double), r, kTag);
    size_t at = 0;
    rows(s, [&](int z, int y, int len) {
      std::copy_n(piece.begin() + at, len, out.begin() + gl.idx(z, y, s.out_lo(2)));
      at += len;
    });
  }
  return out;
}

}  // namespace seisfd
