// The CPU engine's sources and receivers (kernels/engine.hpp Sources, Receivers): the
// samples kept step by step, so that a step reads or writes one row whatever the number of
// points, and the sources' entries grouped by the cell they add into, so that threads inject a
// large spread (a migration's receivers) without sharing a cell. Internal to cpu_engine.cpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/engine.hpp"
#include "kernels/huge_pages.hpp"

namespace seisfd::reference {

// dst[c][r] = src[r][c] for a rows x cols src (traces by point <-> samples by step), converted
// to D, in 64 x 64 tiles on the host's threads (both sides' cache lines used).
template <class D, class S>
std::vector<D> transposed(const std::vector<S>& src, size_t rows, size_t cols) {
  std::vector<D> dst = huge_vector<D>(rows * cols);
  constexpr size_t kTile = 64;
#pragma omp parallel for collapse(2) schedule(static)
  for (size_t r0 = 0; r0 < rows; r0 += kTile)
    for (size_t c0 = 0; c0 < cols; c0 += kTile)
      for (size_t r = r0; r < std::min(rows, r0 + kTile); ++r)
        for (size_t c = c0; c < std::min(cols, c0 + kTile); ++c)
          dst[c * rows + r] = static_cast<D>(src[r * cols + c]);
  return dst;
}

template <class T>
class CpuSources final : public Sources {
 public:
  CpuSources(const SparsePoints& pts, const std::vector<double>& traces, int nt,
             std::vector<T> coef)
      : Sources(pts.count(), nt),
        points(pts),
        // The samples step by step: a step reads one row, not one sample a point a trace's
        // length apart (with thousands of points, a page each).
        by_step(transposed<T>(traces, static_cast<size_t>(pts.count()), static_cast<size_t>(nt))),
        coef(std::move(coef)) {
    // The entries grouped by the cell they add into, each cell's in the points' order: a
    // thread a cell adds them in the order one thread adding point after point would (the
    // same sums, bit for bit), and the points of a large spread (a migration's receivers)
    // share no cell between threads.
    const int64_t entries = points.offset.back();
    std::vector<int> point_of(static_cast<size_t>(entries));
    for (int p = 0; p < points.count(); ++p)
      for (int64_t k = points.offset[p]; k < points.offset[p + 1]; ++k) point_of[k] = p;
    std::vector<int64_t> order(static_cast<size_t>(entries));
    for (int64_t k = 0; k < entries; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return points.index[a] < points.index[b]; });
    for (int64_t j = 0; j < entries; ++j) {
      const int64_t k = order[j];
      if (j == 0 || points.index[k] != cell.back()) {
        cell.push_back(points.index[k]);
        cell_start.push_back(j);
      }
      cell_coef.push_back(this->coef[k]);
      cell_point.push_back(point_of[k]);
    }
    cell_start.push_back(entries);
  }
  SparsePoints points;
  std::vector<T> by_step;  // [nt][points]
  std::vector<T> coef;     // per CSR entry: weight (v dt)^2 / (1 + g)
  // By cell: the cells added into, where each one's entries start (and the end), and each
  // entry's coefficient and point.
  std::vector<int64_t> cell, cell_start;
  std::vector<T> cell_coef;
  std::vector<int> cell_point;
};

template <class T>
class CpuReceivers final : public Receivers {
 public:
  CpuReceivers(const SparsePoints& pts, int nt)
      : Receivers(pts.count(), nt),
        points(pts),
        by_step(huge_vector<double>(static_cast<size_t>(pts.count()) * nt)) {}
  // [points][nt] from the rows the steps wrote.
  std::vector<double> traces() const override {
    return transposed<double>(by_step, static_cast<size_t>(nt()), static_cast<size_t>(count()));
  }
  void clear() override { std::fill(by_step.begin(), by_step.end(), 0.0); }
  SparsePoints points;
  std::vector<double> by_step;  // [nt][points]: a step writes one row
};

}  // namespace seisfd::reference
