// Source-wavefield storage for migration (docs/migration.md §4): what keeps, or recomputes, the
// source field u[m] of the imaging steps so that the backward pass can have them in reverse
// order. One interface, one implementation per strategy; none of them knows the physics: they
// use only the engine's states, arrays and steps.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/propagation.hpp"
#include "solver/config.hpp"
#include "solver/grid.hpp"

namespace seisfd {

// The imaging steps of a shot: m = k, 2k, ... up to nt - 1 (field 0 is zero).
struct ImagingSteps {
  int nt = 0;        // time samples, fields 0 .. nt - 1
  int interval = 1;  // k
  bool is_imaging(int m) const { return m > 0 && m < nt && m % interval == 0; }
  int count() const { return interval > 0 ? (nt - 1) / interval : 0; }
};

class SourceStorage {
 public:
  virtual ~SourceStorage() = default;
  virtual StorageKind kind() const = 0;

  // Runs the forward propagation of the source (its state zeroed, `sources` injecting `traces`
  // ([points][nt]) bound to it), keeping what the strategy needs. One storage serves every shot
  // of a migration: what it allocates at the first shot it reuses for the next.
  virtual void forward(Propagation& source, const SparsePoints& sources,
                       const std::vector<double>& traces) = 0;
  // The source field u[m] of imaging step m, one array per wavefield (valid until the next
  // call); imaging steps are asked for once each, in decreasing order.
  virtual std::vector<const CellArray*> recall(int m) = 0;
  // Forward steps the source propagation took for this shot, the first pass included (up to
  // the last imaging step for store and host).
  virtual long long forward_steps() const = 0;
};

// What a strategy needs in memory for a shot, and what it costs in propagations.
struct StorageEstimate {
  StorageKind kind = StorageKind::kStore;
  double device_bytes = 0;  // beyond the engine and its two working states
  double host_bytes = 0;
  double propagations = 0;  // per shot: forward passes + the adjoint
  int checkpoints = 0;      // checkpoint: states held
  // boundary: where the edge strips of every step are kept (the device where they fit).
  ArrayKind strips = ArrayKind::kDevice;
};

// Bytes and cost of each strategy for a grid of `cells_per_level` layout cells, `fields`
// wavefields, a state of `state_bytes` bytes, the edge strips of `strip_cells` cells a level,
// given the device budget (checkpoint: as many states as fit; boundary: the strips on the
// device where they fit, else in host memory).
std::vector<StorageEstimate> estimate_storage(const ImagingSteps& steps, int fields,
                                              double cells_per_level, double state_bytes,
                                              double strip_cells, StorePrecision precision,
                                              double device_budget);
// What `auto` weighs where the run can tell (choose_storage): one propagation of a shot on this
// engine (the shot's steps over its layout at the update rate the engine measured when it chose
// its kernel), the shots the group migrates, and what pinning host memory costs a byte, paid
// once per migration (host levels and host strips are allocated at the first shot and kept).
struct StorageCosts {
  double seconds_per_propagation = 0;  // 0: unknown; the order of preference decides
  double pin_seconds_per_byte = 0;
  int shots = 1;
  double seconds(const StorageEstimate& o) const {
    return shots * o.propagations * seconds_per_propagation + o.host_bytes * pin_seconds_per_byte;
  }
};

// What auto weighs for engine e, whose shots take nt steps, `shots` of them on this group: one
// propagation at the rate the engine measured choosing its kernel (none measured: no costs, the
// order of preference decides), and where a strategy that pins host memory fits and store does
// not, the pinning rate, measured by pinning 256 MiB (the first pin of a process costs the most,
// so the estimate leans towards the strategies that pin nothing).
StorageCosts storage_costs(Engine& e, int nt, int shots,
                           const std::vector<StorageEstimate>& options, double device_budget,
                           double host_budget);

// The strategy that fits the budgets: without costs (or with an unknown propagation time) the
// first of store, host, boundary, checkpoint; with them the one of least estimated time (the
// earlier in that order on a tie). Throws std::runtime_error naming what each would need when
// none fits.
StorageEstimate choose_storage(const std::vector<StorageEstimate>& options, double device_budget,
                               double host_budget, const StorageCosts* costs = nullptr);

// How to build a strategy.
struct StorageChoice {
  StorageKind kind = StorageKind::kStore;
  StorePrecision precision = StorePrecision::kFp32;  // store and host
  int checkpoints = 0;                               // checkpoint: states held
  ArrayKind strips = ArrayKind::kDevice;             // boundary: where the strips are kept
};
inline StorageChoice choice_of(const StorageEstimate& e, StorePrecision precision) {
  return {e.kind, precision, e.checkpoints, e.strips};
}

// A decomposed run (docs/parallel.md): the rank's part of the grid and the exchange that fills
// its halo after each step.
struct StorageRanks {
  Subdomain sub;
  HaloExchange* exchange = nullptr;
};

// `region`: the box kept free of absorbing layers where the boundary strategy reconstructs the
// field (its edge strips of width `radius` are saved), in global computational indices. With
// `ranks` the engine computes one rank's part: the boundary strategy reconstructs the rank's
// cells of the region, its halo exchanged after each reverse step, and keeps the strips where
// they cross the rank's layout (its halo included, so that the cells its neighbours' strips
// hold are restored there too).
std::unique_ptr<SourceStorage> make_storage(const StorageChoice& choice, Engine& engine,
                                            const ImagingSteps& steps, const Box& region,
                                            int radius, const StorageRanks* ranks = nullptr);

// Binomial checkpointing (Griewank's revolve bound): beta(s, t) = C(s + t, s), the most steps
// that s checkpoints reverse with t forward sweeps.
double binomial_beta(int s, int t);

}  // namespace seisfd
