// The modelling layer: it keeps the plan's model on one engine (uploaded, its variant chosen and
// tuned, its graphs captured, once) and runs shots on it, forward or adjoint, one after another
// on a reused state. `seisfd run` drives it over a survey; migration builds on it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/propagation.hpp"
#include "solver/backend.hpp"
#include "solver/plan.hpp"
#include "solver/survey.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {

struct ShotResult {
  std::vector<double> traces;  // [receivers][nt]: sample n is field n at the receiver
  LoopResult loop;
};

class Modeling {
 public:
  // `requested`, `graphs` and `domain` as make_engine takes them. With a domain the engine
  // computes one rank's part and `exchange` fills its halo (both outlive the modelling).
  Modeling(const RunPlan& plan, Backend requested, bool graphs = true,
           const RankDomain* domain = nullptr, HaloExchange* exchange = nullptr);

  Engine& engine() const { return *choice_.engine; }
  Backend backend() const { return choice_.backend; }
  const std::string& device() const { return choice_.device; }

  // Forward modelling of one shot through the time loop (diagnostics, stop flag, snapshots and
  // progress as `options` and `callbacks` say). propagation() holds the shot while it runs.
  // `start` (a checkpoint's state, options.start_step its step): the shot continues from it;
  // the traces then hold only the samples after it.
  ShotResult forward(const Shot& shot, const LoopOptions& options,
                     const LoopCallbacks& callbacks = {}, const StateImage* start = nullptr);
  // The last forward shot's propagation: its state holds the field of the last step.
  const Propagation& propagation() const { return *forward_; }

  // The exact adjoint of the shot's forward modelling (docs/physics.md §7): receiver data
  // [receivers][nt] to the source trace [1][nt] (a decomposed run: this rank's rows of each).
  std::vector<double> adjoint(const Shot& shot, const std::vector<double>& data);

  // The shot's points in the engine's layout (a decomposed run: the rank's own, SparsePoints::id
  // naming each one's row in the shot).
  SparsePoints source_points(const Shot& shot) const;
  SparsePoints receiver_points(const Shot& shot) const;
  const RankDomain* domain() const { return domain_; }
  HaloExchange* exchange() const { return exchange_; }
  // The exchange of the propagations that follow (one made for the engine, after it).
  void set_exchange(HaloExchange* x) {
    exchange_ = x;
    forward_->set_exchange(x);
  }

 private:
  const RunPlan& plan_;
  const RankDomain* domain_;
  HaloExchange* exchange_;
  EngineChoice choice_;
  std::unique_ptr<Propagation> forward_;
};

}  // namespace seisfd
