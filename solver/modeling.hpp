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
  // `requested` and `graphs` as make_engine takes them.
  Modeling(const RunPlan& plan, Backend requested, bool graphs = true);

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
  // [receivers][nt] to the source trace [1][nt].
  std::vector<double> adjoint(const Shot& shot, const std::vector<double>& data);

  SparsePoints source_points(const Shot& shot) const;
  SparsePoints receiver_points(const Shot& shot) const;

 private:
  const RunPlan& plan_;
  EngineChoice choice_;
  std::unique_ptr<Propagation> forward_;
};

}  // namespace seisfd
