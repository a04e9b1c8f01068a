#include "solver/modeling.hpp"

#include "solver/points.hpp"

namespace seisfd {

Modeling::Modeling(const RunPlan& plan, Backend requested, bool graphs)
    : plan_(plan), choice_(make_engine(plan, requested, graphs)) {
  forward_ = std::make_unique<Propagation>(*choice_.engine, Direction::kForward);
}

SparsePoints Modeling::source_points(const Shot& shot) const {
  return make_points(plan_.grid, plan_.spec, {shot.source}, plan_.config.source.injection,
                     PointRole::kSource);
}

SparsePoints Modeling::receiver_points(const Shot& shot) const {
  return make_points(plan_.grid, plan_.spec, shot.receivers, plan_.config.receivers.interpolation,
                     PointRole::kReceiver);
}

ShotResult Modeling::forward(const Shot& shot, const LoopOptions& options,
                             const LoopCallbacks& callbacks, const StateImage* start) {
  Propagation& p = *forward_;
  p.reset();
  p.set_injection(source_points(shot), plan_.wavelet, plan_.nt);
  p.set_recording(receiver_points(shot), plan_.nt);
  if (start) p.state().load(*start);
  ShotResult r;
  r.loop = run_time_loop(p, plan_.nt, options, callbacks);
  r.traces = p.recorded();
  return r;
}

std::vector<double> Modeling::adjoint(const Shot& shot, const std::vector<double>& data) {
  return apply_adjoint(*choice_.engine, receiver_points(shot), data, source_points(shot), plan_.nt);
}

}  // namespace seisfd
