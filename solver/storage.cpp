#include "solver/storage.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace seisfd {
namespace {

int fields_of(const Engine& e) {
  return traits(e.physics()).fields;
}

// store and host: u[m] of every imaging step kept in arrays (device fp32/fp16, or pinned host).
class KeepLevels final : public SourceStorage {
 public:
  KeepLevels(Engine& e, const ImagingSteps& steps, ArrayKind where, StorageKind kind)
      : e_(e), steps_(steps), where_(where), kind_(kind) {}
  StorageKind kind() const override { return kind_; }

  void forward(Propagation& src) override {
    const int nf = fields_of(e_);
    for (int n = 0; n + 1 < steps_.nt; ++n) {
      src.steps(n, n + 1);
      if (!steps_.is_imaging(n + 1)) continue;
      auto& slot = levels_[n + 1];
      for (int f = 0; f < nf; ++f) {
        slot.push_back(e_.make_array(where_));
        e_.copy(src.state(), {f, Level::kCurrent}, *slot.back());
      }
    }
  }

  std::vector<const CellArray*> recall(int m) override {
    auto it = levels_.find(m);
    if (it == levels_.end())
      throw std::logic_error("storage: field " + std::to_string(m) + " was not kept");
    std::vector<const CellArray*> out;
    for (const auto& a : it->second) out.push_back(a.get());
    // The level above m is no longer needed: free it as the backward pass goes.
    levels_.erase(levels_.upper_bound(m), levels_.end());
    return out;
  }
  long long forward_steps() const override { return steps_.nt - 1; }

 private:
  Engine& e_;
  ImagingSteps steps_;
  ArrayKind where_;
  StorageKind kind_;
  std::map<int, std::vector<std::unique_ptr<CellArray>>> levels_;
};

// boundary: the edge strips of the region at every step and the last two levels; the backward
// pass runs the update backward in time inside the region (time-reversible where nothing
// damps) and writes the strips back after each step.
class Boundary final : public SourceStorage {
 public:
  Boundary(Engine& e, const ImagingSteps& steps, const Box& region, int radius,
           const SparsePoints& sources, const std::vector<double>& traces)
      : e_(e), steps_(steps), strips_(edge_strips(region, radius)), inner_(region) {
    for (int a = 0; a < 3; ++a) {
      inner_.lo[a] += radius;
      inner_.hi[a] -= radius;
      if (inner_.hi[a] <= inner_.lo[a])
        throw std::invalid_argument(
            "migration.storage = \"boundary\": the region free of "
            "absorbing layers is thinner than two halos");
    }
    // Reverse step j makes u[nt - 3 - j] and injects s[nt - 2 - j].
    const int np = sources.count(), nt = steps.nt;
    std::vector<double> rev(traces.size(), 0.0);
    for (int p = 0; p < np; ++p)
      for (int j = 0; j + 2 <= nt; ++j)
        rev[static_cast<size_t>(p) * nt + j] = traces[static_cast<size_t>(p) * nt + nt - 2 - j];
    reverse_ = std::make_unique<Propagation>(e, Direction::kForward);
    reverse_->set_injection(sources, rev, nt);
    reverse_->set_region(&inner_);
    for (int f = 0; f < fields_of(e); ++f) out_.push_back(e.make_array(ArrayKind::kDevice));
  }
  StorageKind kind() const override { return StorageKind::kBoundary; }

  void forward(Propagation& src) override {
    const int nf = fields_of(e_);
    // Strips kept at the state's precision: the reconstruction then retraces the forward
    // run's values exactly (rounding the strips of an fp64 run to float would not).
    wide_ = src.state().element_bytes() == 8;
    saved_.assign(wide_ ? 0 : static_cast<size_t>(steps_.nt) * nf, {});
    saved_wide_.assign(wide_ ? static_cast<size_t>(steps_.nt) * nf : 0, {});
    for (int n = 0; n + 1 < steps_.nt; ++n) {
      src.steps(n, n + 1);
      for (int f = 0; f < nf; ++f) {
        const size_t at = static_cast<size_t>(n + 1) * nf + f;
        if (wide_)
          src.state().read_boxes({f, Level::kCurrent}, strips_, saved_wide_[at]);
        else
          src.state().read_boxes({f, Level::kCurrent}, strips_, saved_[at]);
      }
    }
    // The last two levels, swapped: the reverse run's previous level is u[nt-1], its current
    // u[nt-2].
    auto& st = reverse_->state();
    st.copy_from(src.state());
    auto last = e_.make_array(ArrayKind::kDevice), before = e_.make_array(ArrayKind::kDevice);
    for (int f = 0; f < nf; ++f) {
      e_.copy(st, {f, Level::kCurrent}, *last);
      e_.copy(st, {f, Level::kPrevious}, *before);
      e_.copy(*before, st, {f, Level::kCurrent});
      e_.copy(*last, st, {f, Level::kPrevious});
    }
    at_ = steps_.nt - 2;  // the field the reverse state's current level holds
    next_step_ = 0;
  }

  std::vector<const CellArray*> recall(int m) override {
    const int nf = fields_of(e_);
    if (m == steps_.nt - 1) {  // the reverse state's previous level
      for (int f = 0; f < nf; ++f) e_.copy(reverse_->state(), {f, Level::kPrevious}, *out_[f]);
      return view();
    }
    if (m > at_) throw std::logic_error("storage: fields are recalled in decreasing order");
    while (at_ > m) {
      reverse_->steps(next_step_, next_step_ + 1);
      ++next_step_;
      --at_;
      for (int f = 0; f < nf; ++f) {
        const size_t at = static_cast<size_t>(at_) * nf + f;
        if (wide_)
          reverse_->state().write_boxes({f, Level::kCurrent}, strips_, saved_wide_[at]);
        else
          reverse_->state().write_boxes({f, Level::kCurrent}, strips_, saved_[at]);
      }
    }
    for (int f = 0; f < nf; ++f) e_.copy(reverse_->state(), {f, Level::kCurrent}, *out_[f]);
    return view();
  }
  long long forward_steps() const override { return 2LL * (steps_.nt - 1) - 1; }

 private:
  std::vector<const CellArray*> view() const {
    std::vector<const CellArray*> v;
    for (const auto& a : out_) v.push_back(a.get());
    return v;
  }

  Engine& e_;
  ImagingSteps steps_;
  std::vector<Box> strips_;
  Box inner_;
  std::unique_ptr<Propagation> reverse_;
  bool wide_ = false;                      // the state is fp64: saved_wide_ holds the strips
  std::vector<std::vector<float>> saved_;  // [field n * fields + f]: the strips of u[n]
  std::vector<std::vector<double>> saved_wide_;
  std::vector<std::unique_ptr<CellArray>> out_;
  int at_ = 0, next_step_ = 0;
};

// checkpoint: whole states at checkpoints of the binomial schedule, placed as the backward pass
// asks for fields; each segment recomputed forward from the nearest checkpoint below it.
class Checkpoints final : public SourceStorage {
 public:
  Checkpoints(Engine& e, const ImagingSteps& steps, int slots)
      : e_(e), steps_(steps), slots_(std::max(1, slots)) {
    for (int f = 0; f < fields_of(e); ++f) out_.push_back(e.make_array(ArrayKind::kDevice));
  }
  StorageKind kind() const override { return StorageKind::kCheckpoint; }

  void forward(Propagation& src) override {
    src_ = &src;  // its sources drive every recomputation
    stack_.clear();
    stack_.push_back({0, e_.make_state()});  // field 0: the zero state
    steps_taken_ = 0;
  }

  std::vector<const CellArray*> recall(int m) override {
    while (stack_.size() > 1 && stack_.back().step > m) stack_.pop_back();
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
        stack_.push_back({c, e_.make_state()});
        stack_.back().state->copy_from(work);
      }
    }
    for (int f = 0; f < fields_of(e_); ++f) e_.copy(work, {f, Level::kCurrent}, *out_[f]);
    std::vector<const CellArray*> v;
    for (const auto& a : out_) v.push_back(a.get());
    return v;
  }
  long long forward_steps() const override { return steps_taken_; }

 private:
  struct Checkpoint {
    int step;
    std::unique_ptr<WaveState> state;
  };
  Engine& e_;
  ImagingSteps steps_;
  int slots_;
  Propagation* src_ = nullptr;
  std::vector<Checkpoint> stack_;
  std::vector<std::unique_ptr<CellArray>> out_;
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
  const double kept = steps.count() * level;
  std::vector<StorageEstimate> out;
  out.push_back({StorageKind::kStore, kept, 0, 2, 0});
  out.push_back({StorageKind::kHost, 0, kept, 2, 0});
  // Strips of every level on the host; one more state and a level on the device.
  out.push_back({StorageKind::kBoundary, state_bytes + cells_per_level * fields * 4,
                 strip_cells * fields * 4.0 * steps.nt, 3, 0});
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

StorageEstimate choose_storage(const std::vector<StorageEstimate>& options, double device_budget,
                               double host_budget) {
  std::string need;
  for (const StorageKind k :
       {StorageKind::kStore, StorageKind::kHost, StorageKind::kBoundary, StorageKind::kCheckpoint})
    for (const auto& o : options)
      if (o.kind == k) {
        if (o.device_bytes <= device_budget && o.host_bytes <= host_budget) return o;
        need += std::string(need.empty() ? "" : "; ") + to_string(k) + " " +
                std::to_string(static_cast<long long>(o.device_bytes / 1048576)) + " MiB device, " +
                std::to_string(static_cast<long long>(o.host_bytes / 1048576)) + " MiB host";
      }
  throw std::runtime_error(
      "migration.storage: no strategy fits the memory budget (" +
      std::to_string(static_cast<long long>(device_budget / 1048576)) + " MiB device, " +
      std::to_string(static_cast<long long>(host_budget / 1048576)) + " MiB host): " + need);
}

std::unique_ptr<SourceStorage> make_storage(StorageKind kind, Engine& engine,
                                            const ImagingSteps& steps, StorePrecision precision,
                                            const Box& region, int radius, int checkpoints,
                                            const SparsePoints& sources,
                                            const std::vector<double>& traces) {
  switch (kind) {
    case StorageKind::kStore:
      return std::make_unique<KeepLevels>(
          engine, steps,
          precision == StorePrecision::kFp16 ? ArrayKind::kDeviceHalf : ArrayKind::kDevice,
          StorageKind::kStore);
    case StorageKind::kHost:
      return std::make_unique<KeepLevels>(engine, steps, ArrayKind::kHost, StorageKind::kHost);
    case StorageKind::kBoundary:
      return std::make_unique<Boundary>(engine, steps, region, radius, sources, traces);
    case StorageKind::kCheckpoint:
      return std::make_unique<Checkpoints>(engine, steps, checkpoints);
    case StorageKind::kAuto:
      break;
  }
  throw std::invalid_argument(
      "make_storage: choose a strategy first (auto is resolved by "
      "choose_storage)");
}

}  // namespace seisfd
