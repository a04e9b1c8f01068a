// The time loop's batching and diagnostics, on an engine that only counts: which chunks of steps
// it asks for, which fields get reduced (the engine queues every K-th one inside its chunks,
// the loop the last one), in what order the results come back, and how a non-finite field stops
// the run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "solver/time_loop.hpp"

namespace seisfd {
namespace {

// A state with nothing in it: the engine below keeps the count.
class EmptyState final : public WaveState {
 public:
  void zero() override {}
  void copy_from(const WaveState&) override {}
  StateImage save() const override { return {}; }
  void load(const StateImage&) override {}
  void read_box(FieldRef, const Box&, const int*, std::vector<float>&) const override {}
  void read_boxes(FieldRef, const std::vector<Box>&, std::vector<float>&) const override {}
  void write_boxes(FieldRef, const std::vector<Box>&, const std::vector<float>&) override {}
  void read_boxes(FieldRef, const std::vector<Box>&, std::vector<double>&) const override {}
  void write_boxes(FieldRef, const std::vector<Box>&, const std::vector<double>&) override {}
  void read_boxes(FieldRef, const std::vector<Box>&, CellArray&, int64_t) const override {}
  void write_boxes(FieldRef, const std::vector<Box>&, const CellArray&, int64_t) override {}
  int element_bytes() const override { return 4; }
};

class CountingEngine final : public Engine {
 public:
  std::string name() const override { return "counting"; }
  Physics physics() const override { return Physics::kAcoustic; }
  const StepSpec& spec() const override { return spec_; }
  std::unique_ptr<WaveState> make_state() override { return std::make_unique<EmptyState>(); }
  std::unique_ptr<Sources> make_sources(const SparsePoints&, const std::vector<double>&,
                                        int) override {
    return nullptr;
  }
  std::unique_ptr<Receivers> make_receivers(const SparsePoints&, int) override { return nullptr; }
  // Steps one at a time, queueing the due diagnostics before each, as a backend without
  // batching does.
  void advance(WaveState&, int n_begin, int n_end, const StepIo&) override {
    chunks.push_back({n_begin, n_end});
    for (int n = n_begin; n < n_end; ++n) {
      if (diagnostics_due(n)) queue_diagnostics(state_, n);
      if (n != field_)
        throw std::logic_error("step " + std::to_string(n) + " at field " + std::to_string(field_));
      ++field_;
    }
  }
  // Not used by the time loop.
  std::unique_ptr<CellArray> make_array(ArrayKind, int64_t) override { return nullptr; }
  void copy(const WaveState&, FieldRef, CellArray&) override {}
  void copy(const CellArray&, WaveState&, FieldRef) override {}
  void second_difference(const WaveState&, int, const CellArray&, const CellArray*, double,
                         CellArray&) override {}
  void correlate_second_difference(CellArray&, const CellArray&, const WaveState&, int,
                                   const CellArray&, double) override {}
  void correlate(CellArray&, const CellArray&, const CellArray&, double) override {}
  void correlate(CellArray&, const CellArray&, const WaveState&, FieldRef, double) override {}
  // sum_sq is the field's number; fields from bad_from on have a non-finite cell at 1000 + n.
  Diagnostics diagnostics(const WaveState&) override {
    reduced.push_back(field_);
    Diagnostics d;
    d.sum_sq = field_;
    if (bad_from > 0 && field_ >= bad_from) {
      d.nonfinite = 3;
      d.first_nonfinite = 1000 + field_;
    }
    return d;
  }

  StepSpec spec_;
  EmptyState state_;
  int field_ = 0;
  int bad_from = 0;
  std::vector<std::pair<int, int>> chunks;
  std::vector<int> reduced;
};

LoopResult run_time_loop(CountingEngine& e, int nt, const LoopOptions& o,
                         const LoopCallbacks& cb = {}) {
  Propagation p(e);
  return seisfd::run_time_loop(p, nt, o, cb);
}

std::vector<int> multiples(int every, int upto, int last) {
  std::vector<int> v;
  for (int m = every; m < upto; m += every) v.push_back(m);
  v.push_back(last);
  return v;
}

// Chunks follow progress and snapshots only; the diagnostics of every K-th field are taken
// inside them and the last field's at the end, each once, in order.
TEST(TimeLoop, DiagnosticsInsideChunksAndAtTheEnd) {
  for (const int every : {10, 7, 1, 300}) {
    SCOPED_TRACE("every " + std::to_string(every));
    CountingEngine e;
    LoopOptions o;
    o.diagnostics_interval = every;
    o.progress_every = 20;
    const LoopResult r = run_time_loop(e, 301, o);
    EXPECT_EQ(r.steps, 300);
    EXPECT_EQ(e.field_, 300);
    for (const auto& [b, en] : e.chunks) {
      EXPECT_EQ(b % 20, 0);
      EXPECT_EQ(en - b, 20) << "chunk [" << b << ", " << en << ")";
    }
    EXPECT_EQ(e.reduced, multiples(every, 300, 300));
    EXPECT_EQ(r.diagnostics_runs, static_cast<int>(e.reduced.size()));
    EXPECT_EQ(r.last.sum_sq, 300.0);
    EXPECT_EQ(e.diagnostics_every(), 0) << "the loop leaves the engine's interval as it was";
  }
}

// Snapshots split chunks too; the last field is reduced once even when K divides it.
TEST(TimeLoop, SnapshotsSplitChunksAndTheLastFieldIsReducedOnce) {
  CountingEngine e;
  LoopOptions o;
  o.diagnostics_interval = 25;
  o.progress_every = 40;
  o.snapshot_every = 30;
  std::vector<int> snaps;
  LoopCallbacks cb;
  cb.on_snapshot = [&](int n) {
    snaps.push_back(n);
    EXPECT_EQ(e.field_, n);
  };
  run_time_loop(e, 101, o, cb);
  EXPECT_EQ(snaps, (std::vector<int>{30, 60, 90}));
  const std::vector<std::pair<int, int>> want{{0, 30},  {30, 40}, {40, 60},
                                              {60, 80}, {80, 90}, {90, 100}};
  EXPECT_EQ(e.chunks, want);
  EXPECT_EQ(e.reduced, (std::vector<int>{25, 50, 75, 100}));
}

// Without progress or snapshots the loop still stops every K steps to look at the results.
TEST(TimeLoop, WithoutProgressChunksAreTheDiagnosticsInterval) {
  CountingEngine e;
  LoopOptions o;
  o.diagnostics_interval = 16;
  run_time_loop(e, 51, o);
  const std::vector<std::pair<int, int>> want{{0, 16}, {16, 32}, {32, 48}, {48, 50}};
  EXPECT_EQ(e.chunks, want);
  EXPECT_EQ(e.reduced, (std::vector<int>{16, 32, 48, 50}));
}

TEST(TimeLoop, NoDiagnosticsAtIntervalZero) {
  CountingEngine e;
  LoopOptions o;
  o.diagnostics_interval = 0;
  o.progress_every = 30;
  const LoopResult r = run_time_loop(e, 101, o);
  EXPECT_TRUE(e.reduced.empty());
  EXPECT_EQ(r.diagnostics_runs, 0);
  EXPECT_EQ(e.chunks.size(), 4u);
}

// The first reduced field that is not finite stops the run, naming its step and cell; the
// engine's interval is reset on the way out.
TEST(TimeLoop, NonFiniteFieldStopsTheRunWithItsStepAndCell) {
  CountingEngine e;
  e.bad_from = 23;
  LoopOptions o;
  o.diagnostics_interval = 5;
  o.progress_every = 20;
  o.describe_cell = [](int64_t i) { return "cell #" + std::to_string(i); };
  try {
    run_time_loop(e, 1001, o);
    ADD_FAILURE() << "no NumericalError";
  } catch (const NumericalError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("at step 25: 3 cells, first at cell #1025"), std::string::npos) << what;
  }
  EXPECT_LT(e.field_, 200) << "ran on long after the bad field";
  EXPECT_EQ(e.diagnostics_every(), 0);
}

// The stop flag ends the loop at a chunk boundary.
TEST(TimeLoop, StopFlagInterruptsAtAChunkBoundary) {
  CountingEngine e;
  std::atomic<bool> stop{false};
  LoopOptions o;
  o.progress_every = 10;
  o.stop = &stop;
  LoopCallbacks cb;
  cb.on_progress = [&](int done, int) {
    if (done == 40) stop = true;
  };
  try {
    run_time_loop(e, 101, o, cb);
    ADD_FAILURE() << "no Interrupted";
  } catch (const Interrupted& i) {
    EXPECT_EQ(i.step(), 40);
  }
  EXPECT_EQ(e.field_, 40);
}

}  // namespace
}  // namespace seisfd
