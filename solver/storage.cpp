#include "solver/storage.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "kernels/wall_clock.hpp"

namespace seisfd {
namespace {

int fields_of(const Engine& e) {
  return traits(e.physics()).fields;
}

// store and host: u[m] of every imaging step kept in arrays, allocated once for every shot. store:
// device arrays (fp32 or fp16). host: pinned host arrays, each level staged through one of two
// device slots, its transfer overlapped with the steps that follow (forward: the copy out of the
// slot runs while the next imaging interval computes; backward: the level of the next imaging step
// comes in while this interval computes).
class KeepLevels final : public SourceStorage {
 public:
  KeepLevels(Engine& e, const ImagingSteps& steps, ArrayKind where, StorageKind kind)
      : e_(e), steps_(steps), where_(where), kind_(kind) {
    const int nf = fields_of(e_);
    for (int j = 0; j < steps_.count() * nf; ++j) levels_.push_back(e_.make_array(where_));
    if (staged())
      for (int k = 0; k < 2 * nf; ++k) stage_.push_back(e_.make_array(ArrayKind::kDevice));
  }
  StorageKind kind() const override { return kind_; }

  void forward(Propagation& src, const SparsePoints&, const std::vector<double>&) override {
    const int nf = fields_of(e_);
    // Chunks of steps between imaging steps (a backend runs each as one batch).
    int n = 0;
    for (int j = 0; j < steps_.count(); ++j) {
      const int m = (j + 1) * steps_.interval;
      src.steps(n, m);
      n = m;
      for (int f = 0; f < nf; ++f) {
        if (!staged()) {
          e_.copy(src.state(), {f, Level::kCurrent}, level(j, f));
          continue;
        }
        CellArray& slot = stage(j, f);
        wait_slot(j % 2);  // its previous level is out
        e_.copy(src.state(), {f, Level::kCurrent}, slot);
        pending_[j % 2].push_back(e_.copy_async(slot, level(j, f)));
      }
    }
    fetched_ = -1;
  }

  std::vector<const CellArray*> recall(int m) override {
    if (!steps_.is_imaging(m))
      throw std::logic_error("storage: field " + std::to_string(m) + " was not kept");
    const int nf = fields_of(e_);
    const int j = m / steps_.interval - 1;
    std::vector<const CellArray*> out;
    if (!staged()) {
      for (int f = 0; f < nf; ++f) out.push_back(&level(j, f));
      return out;
    }
    if (fetched_ != j) fetch(j);
    wait_slot(j % 2);
    if (j > 0) fetch(j - 1);  // comes in while the steps up to it compute
    for (int f = 0; f < nf; ++f) out.push_back(&stage(j, f));
    return out;
  }
  long long forward_steps() const override {
    return static_cast<long long>(steps_.count()) * steps_.interval;
  }

 private:
  bool staged() const { return where_ == ArrayKind::kHost; }
  CellArray& level(int j, int f) { return *levels_[static_cast<size_t>(j) * fields_of(e_) + f]; }
  CellArray& stage(int j, int f) { return *stage_[static_cast<size_t>(j % 2) * fields_of(e_) + f]; }
  void wait_slot(int slot) {
    for (long long t : pending_[slot]) e_.wait(t);
    pending_[slot].clear();
  }
  // Level j into its slot, behind what the engine has enqueued (the last use of the slot).
  void fetch(int j) {
    for (int f = 0; f < fields_of(e_); ++f)
      pending_[j % 2].push_back(e_.copy_async(level(j, f), stage(j, f)));
    fetched_ = j;
  }

  Engine& e_;
  ImagingSteps steps_;
  ArrayKind where_;
  StorageKind kind_;
  std::vector<std::unique_ptr<CellArray>> levels_;  // [imaging step j * fields + f]
  std::vector<std::unique_ptr<CellArray>> stage_;   // host: [slot * fields + f] on the device
  std::vector<long long> pending_[2];               // host: transfers of each slot
  int fetched_ = -1;                                // host: the level last asked into its slot
};

// boundary: the edge strips of the region at every step and the last two levels; the backward
// pass runs the update backward in time inside the region (time-reversible where nothing
// damps) and writes the strips back after each step. The strips of all steps are one array of
// the engine's (on the device, or in pinned host memory where they do not fit there), written
// and read where the engine computes: no step waits for a copy.
class Boundary final : public SourceStorage {
 public:
  Boundary(Engine& e, const ImagingSteps& steps, const Box& region, int radius, ArrayKind where,
           const StorageRanks* ranks)
      : e_(e), steps_(steps), strips_(edge_strips(region, radius)), inner_(region) {
    for (int a = 0; a < 3; ++a) {
      inner_.lo[a] += radius;
      inner_.hi[a] -= radius;
      if (inner_.hi[a] <= inner_.lo[a])
        throw std::invalid_argument(
            "migration.storage = \"boundary\": the region free of "
            "absorbing layers is thinner than two halos");
    }
    if (ranks) localize(ranks->sub);
    for (const Box& b : strips_) strip_cells_ += b.cells();
    const int nf = fields_of(e);
    saved_ = e.make_array(where, strip_cells_ * nf * steps.nt);
    reverse_ = std::make_unique<Propagation>(e, Direction::kForward);
    reverse_->set_region(&inner_);
    if (ranks) reverse_->set_exchange(ranks->exchange);
    for (int f = 0; f < nf; ++f) out_.push_back(e.make_array(ArrayKind::kDevice));
    swap_ = e.make_array(ArrayKind::kDevice);
  }
  StorageKind kind() const override { return StorageKind::kBoundary; }

  void forward(Propagation& src, const SparsePoints& sources,
               const std::vector<double>& traces) override {
    const int nf = fields_of(e_), nt = steps_.nt;
    // Reverse step j makes u[nt - 3 - j] and injects s[nt - 2 - j].
    std::vector<double> rev(traces.size(), 0.0);
    for (int p = 0; p < sources.count(); ++p)
      for (int j = 0; j + 2 <= nt; ++j)
        rev[static_cast<size_t>(p) * nt + j] = traces[static_cast<size_t>(p) * nt + nt - 2 - j];
    reverse_->set_injection(sources, rev, nt);
    for (int n = 0; n + 1 < nt; ++n) {
      src.steps(n, n + 1);
      for (int f = 0; f < nf; ++f)
        src.state().read_boxes({f, Level::kCurrent}, strips_, *saved_, at(n + 1, f));
    }
    // The last two levels, swapped: the reverse run's previous level is u[nt-1], its current
    // u[nt-2].
    auto& st = reverse_->state();
    st.copy_from(src.state());
    for (int f = 0; f < nf; ++f) {
      e_.copy(st, {f, Level::kCurrent}, *out_[f]);
      e_.copy(st, {f, Level::kPrevious}, *swap_);
      e_.copy(*swap_, st, {f, Level::kCurrent});
      e_.copy(*out_[f], st, {f, Level::kPrevious});
    }
    at_ = nt - 2;  // the field the reverse state's current level holds
    next_step_ = 0;
  }

  std::vector<const CellArray*> recall(int m) override {
    if (m == steps_.nt - 1) return level_of(Level::kPrevious);  // the reverse state's previous

    if (m > at_) throw std::logic_error("storage: fields are recalled in decreasing order");
    const int nf = fields_of(e_);
    while (at_ > m) {
      reverse_->steps(next_step_, next_step_ + 1);
      ++next_step_;
      --at_;
      for (int f = 0; f < nf; ++f)
        reverse_->state().write_boxes({f, Level::kCurrent}, strips_, *saved_, at(at_, f));
    }
    return level_of(Level::kCurrent);
  }
  long long forward_steps() const override { return 2LL * (steps_.nt - 1) - 1; }

 private:
  int64_t at(int n, int f) const {
    return (static_cast<int64_t>(n) * fields_of(e_) + f) * strip_cells_;
  }
  // The global inner box and strips to a rank's layout: the inner cells it updates, the strips'
  // cells anywhere in its layout (empty pieces dropped).
  void localize(const Subdomain& d) {
    const auto clip = [&](Box b, const std::array<int, 3>& lo, const std::array<int, 3>& hi) {
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = std::max(b.lo[a], lo[a]) - d.layout_lo[a];
        b.hi[a] = std::min(b.hi[a], hi[a]) - d.layout_lo[a];
        if (b.hi[a] < b.lo[a]) b.hi[a] = b.lo[a];
      }
      return b;
    };
    inner_ = clip(inner_, d.lo, d.hi);
    std::vector<Box> mine;
    for (const Box& b : strips_) {
      const Box c = clip(b, d.layout_lo, d.layout_hi);
      if (c.cells() > 0) mine.push_back(c);
    }
    strips_ = std::move(mine);
  }
  // A level of the reverse state: a view of it where the engine gives one (valid until the
  // next recall steps the state), else a copy.
  std::vector<const CellArray*> level_of(Level level) {
    std::vector<const CellArray*> v;
    for (int f = 0; f < fields_of(e_); ++f) {
      views_[f] = e_.view(reverse_->state(), {f, level});
      if (!views_[f]) e_.copy(reverse_->state(), {f, level}, *out_[f]);
      v.push_back(views_[f] ? views_[f].get() : out_[f].get());
    }
    return v;
  }

  Engine& e_;
  ImagingSteps steps_;
  std::vector<Box> strips_;
  Box inner_;
  int64_t strip_cells_ = 0;
  std::unique_ptr<CellArray>
      saved_;  // [field n][f]: the strips of u_f[n], in the state's precision
  std::unique_ptr<Propagation> reverse_;
  std::vector<std::unique_ptr<CellArray>> out_;  // copies, where the engine gives no views
  std::unique_ptr<const CellArray> views_[kMaxFields];
  std::unique_ptr<CellArray> swap_;
  int at_ = 0, next_step_ = 0;
};

// checkpoint: whole states at checkpoints of the binomial schedule, placed as the backward pass
// asks for fields; each segment recomputed forward from the nearest checkpoint below it. The
// states are kept for the next shot.
class Checkpoints final : public SourceStorage {
 public:
  Checkpoints(Engine& e, const ImagingSteps& steps, int slots)
      : e_(e), steps_(steps), slots_(std::max(1, slots)) {
    for (int f = 0; f < fields_of(e); ++f) out_.push_back(e.make_array(ArrayKind::kDevice));
  }
  StorageKind kind() const override { return StorageKind::kCheckpoint; }

  void forward(Propagation& src, const SparsePoints&, const std::vector<double>&) override {
    src_ = &src;  // its sources drive every recomputation
    while (!stack_.empty()) release();
    stack_.push_back({0, take()});  // field 0: the zero state
    stack_.back().state->zero();
    steps_taken_ = 0;
  }

  std::vector<const CellArray*> recall(int m) override {
    while (stack_.size() > 1 && stack_.back().step > m) release();
    WaveState& work = src_->state();
    work.copy_from(*stack_.back().state);
    int c = stack_.back().step;
    while (c < m) {
      const int free = slots_ - static_cast<int>(stack_.size());
      int target = m;
      if (free > 0 && m - c > 1) {
        int t = 1;
        while (binomial_beta(free, t) < m - c) ++t;
        target = std::max(c + 1, m - static_cast<int>(binomial_beta(free - 1, t)));
      }
      src_->steps(c, target);
      steps_taken_ += target - c;
      c = target;
      if (c < m) {
        stack_.push_back({c, take()});
        stack_.back().state->copy_from(work);
      }
    }
    // A view of the work state where the engine gives one (it is not stepped before the next
    // recall), else a copy.
    std::vector<const CellArray*> v;
    for (int f = 0; f < fields_of(e_); ++f) {
      views_[f] = e_.view(work, {f, Level::kCurrent});
      if (!views_[f]) e_.copy(work, {f, Level::kCurrent}, *out_[f]);
      v.push_back(views_[f] ? views_[f].get() : out_[f].get());
    }
    return v;
  }
  long long forward_steps() const override { return steps_taken_; }

 private:
  struct Checkpoint {
    int step;
    std::unique_ptr<WaveState> state;
  };
  std::unique_ptr<WaveState> take() {
    if (pool_.empty()) return e_.make_state();
    auto s = std::move(pool_.back());
    pool_.pop_back();
    return s;
  }
  void release() {
    pool_.push_back(std::move(stack_.back().state));
    stack_.pop_back();
  }

  Engine& e_;
  ImagingSteps steps_;
  int slots_;
  Propagation* src_ = nullptr;
  std::vector<Checkpoint> stack_;
  std::vector<std::unique_ptr<WaveState>> pool_;  // states no checkpoint holds, for reuse
  std::vector<std::unique_ptr<CellArray>> out_;   // copies, where the engine gives no views
  std::unique_ptr<const CellArray> views_[kMaxFields];
  long long steps_taken_ = 0;
};

}  // namespace

double binomial_beta(int s, int t) {
  double b = 1;
  for (int i = 1; i <= s; ++i) b = b * (t + i) / i;  // C(s + t, s)
  return b;
}

std::vector<StorageEstimate> estimate_storage(const ImagingSteps& steps, int fields,
                                              double cells_per_level, double state_bytes,
                                              double strip_cells, StorePrecision precision,
                                              double device_budget) {
  const double level = cells_per_level * fields * (precision == StorePrecision::kFp16 ? 2 : 4);
  std::vector<StorageEstimate> out;
  out.push_back({StorageKind::kStore, steps.count() * level, 0, 2, 0});
  // fp32 in host memory, two fp32 slots of every field on the device.
  const double level32 = cells_per_level * fields * 4;
  out.push_back({StorageKind::kHost, 2 * level32, steps.count() * level32, 2, 0});
  // The strips of every step, on the device where they fit beside one more state, the fields
  // handed to the imaging and a spare level; in pinned host memory otherwise.
  const double strips = strip_cells * fields * 4.0 * steps.nt;
  const double working = state_bytes + cells_per_level * (fields + 1) * 4;
  if (working + strips <= device_budget)
    out.push_back({StorageKind::kBoundary, working + strips, 0, 3, 0, ArrayKind::kDevice});
  else
    out.push_back({StorageKind::kBoundary, working, strips, 3, 0, ArrayKind::kHost});
  // As many states as fit; the forward steps of the binomial schedule for nt - 1 steps.
  StorageEstimate cp{StorageKind::kCheckpoint, 0, 0, 0, 0};
  cp.checkpoints = static_cast<int>(
      std::clamp(std::floor(device_budget / state_bytes), 1.0, static_cast<double>(steps.nt)));
  cp.device_bytes = cp.checkpoints * state_bytes;
  int t = 1;
  while (binomial_beta(cp.checkpoints, t) < steps.nt - 1) ++t;
  cp.propagations = 1 + t;  // at most t forward sweeps, and the adjoint
  out.push_back(cp);
  return out;
}

StorageCosts storage_costs(Engine& e, int nt, int shots,
                           const std::vector<StorageEstimate>& options, double device_budget,
                           double host_budget) {
  StorageCosts c;
  const double g = e.measured_gcells();
  if (g <= 0) return c;
  c.seconds_per_propagation = static_cast<double>(e.spec().layout.cells()) * nt / (g * 1e9);
  c.shots = shots;
  bool store_fits = false, pins = false;
  for (const auto& o : options) {
    const bool fits = o.device_bytes <= device_budget && o.host_bytes <= host_budget;
    store_fits = store_fits || (fits && o.kind == StorageKind::kStore);
    pins = pins || (fits && o.host_bytes > 0);
  }
  if (pins && !store_fits) {
    constexpr int64_t kCells = int64_t{64} << 20;  // 256 MiB of floats
    const auto t0 = std::chrono::steady_clock::now();
    {
      auto a = e.make_array(ArrayKind::kHost, kCells);
      e.synchronize();
    }
    const double s = seconds_since(t0);
    c.pin_seconds_per_byte = s / (static_cast<double>(kCells) * sizeof(float));
  }
  return c;
}

StorageEstimate choose_storage(const std::vector<StorageEstimate>& options, double device_budget,
                               double host_budget, const StorageCosts* costs) {
  const bool weigh = costs && costs->seconds_per_propagation > 0;
  std::string need;
  const StorageEstimate* best = nullptr;
  for (const StorageKind k :
       {StorageKind::kStore, StorageKind::kHost, StorageKind::kBoundary, StorageKind::kCheckpoint})
    for (const auto& o : options)
      if (o.kind == k) {
        if (o.device_bytes <= device_budget && o.host_bytes <= host_budget) {
          if (!best || (weigh && costs->seconds(o) < costs->seconds(*best))) best = &o;
          if (!weigh) return *best;
          continue;
        }
        need += std::string(need.empty() ? "" : "; ") + to_string(k) + " " +
                std::to_string(static_cast<long long>(o.device_bytes / 1048576)) + " MiB device, " +
                std::to_string(static_cast<long long>(o.host_bytes / 1048576)) + " MiB host";
      }
  if (best) return *best;
  throw std::runtime_error(
      "migration.storage: no strategy fits the memory budget (" +
      std::to_string(static_cast<long long>(device_budget / 1048576)) + " MiB device, " +
      std::to_string(static_cast<long long>(host_budget / 1048576)) + " MiB host): " + need);
}

std::unique_ptr<SourceStorage> make_storage(const StorageChoice& c, Engine& engine,
                                            const ImagingSteps& steps, const Box& region,
                                            int radius, const StorageRanks* ranks) {
  switch (c.kind) {
    case StorageKind::kStore:
      return std::make_unique<KeepLevels>(
          engine, steps,
          c.precision == StorePrecision::kFp16 ? ArrayKind::kDeviceHalf : ArrayKind::kDevice,
          StorageKind::kStore);
    case StorageKind::kHost:
      return std::make_unique<KeepLevels>(engine, steps, ArrayKind::kHost, StorageKind::kHost);
    case StorageKind::kBoundary:
      return std::make_unique<Boundary>(engine, steps, region, radius, c.strips, ranks);
    case StorageKind::kCheckpoint:
      return std::make_unique<Checkpoints>(engine, steps, c.checkpoints);
    case StorageKind::kAuto:
      break;
  }
  throw std::invalid_argument(
      "make_storage: choose a strategy first (auto is resolved by "
      "choose_storage)");
}

}  // namespace seisfd
