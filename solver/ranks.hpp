// What the ranks of one shot group do together around a decomposed propagation
// (docs/parallel.md): the whole grid's diagnostics from every rank's part, one stop decision,
// a shot's traces merged from the ranks that hold its receivers, and boxes of the wavefield
// assembled from every rank's piece. Every rank of the group calls these at the same points.
#pragma once
#include <vector>

#include "kernels/propagation.hpp"
#include "solver/decomposition.hpp"
#include "solver/parallel.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {

class ShotGroup {
 public:
  ShotGroup(parallel::Comm comm, Decomposition dec, const StepSpec& global, const RankDomain& dom);

  const parallel::Comm& comm() const { return comm_; }
  const Decomposition& decomposition() const { return dec_; }

  // The loop's combine and agree hooks over this group (and no diagnostics left in flight).
  void attach(LoopOptions& lo) const;
  Diagnostics combine(const Diagnostics& local) const;

  // A shot's traces on the group's rank 0, [count][nt]: the rank's rows `local` ([ids.size()][nt],
  // row p belonging to point ids[p]) summed over the ranks. Empty on the other ranks.
  std::vector<double> merge(const std::vector<double>& local, const std::vector<int>& ids,
                            int count, int nt) const;

  // Field p of the current level on the strided box [lo, hi) (stride dec) of the global layout,
  // assembled on the group's rank 0 (C order, as Propagation::copy_field gives it); the other
  // ranks' `out` is left empty.
  void gather_box(const Propagation& p, const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) const;

  // A per-cell array of this rank's layout (as CellArray::download gives it: an image, a
  // stack) assembled into the global layout on the group's rank 0, each rank's `out` box of it
  // (cells outside every box, the grid's padding, zero); empty on the other ranks.
  std::vector<double> gather_cells(const std::vector<double>& local) const;

 private:
  parallel::Comm comm_;
  Decomposition dec_;
  StepSpec global_;
  RankDomain dom_;
};

}  // namespace seisfd
