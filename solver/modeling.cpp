#include "solver/modeling.hpp"

#include <algorithm>

#include "solver/points.hpp"

namespace seisfd {

Modeling::Modeling(const RunPlan& plan, Backend requested, bool graphs, const RankDomain* domain,
                   HaloExchange* exchange)
    : plan_(plan),
      domain_(domain),
      exchange_(exchange),
      choice_(make_engine(plan, requested, graphs, domain)) {
  forward_ = std::make_unique<Propagation>(*choice_.engine, Direction::kForward);
  forward_->set_exchange(exchange);
}

SparsePoints Modeling::source_points(const Shot& shot) const {
  if (domain_)
    return make_points(plan_.grid, plan_.spec, {shot.source}, plan_.config.source.injection,
                       PointRole::kSource, domain_->sub, domain_->spec.layout);
  return make_points(plan_.grid, plan_.spec, {shot.source}, plan_.config.source.injection,
                     PointRole::kSource);
}

SparsePoints Modeling::receiver_points(const Shot& shot) const {
  if (domain_)
    return make_points(plan_.grid, plan_.spec, shot.receivers, plan_.config.receivers.interpolation,
                       PointRole::kReceiver, domain_->sub, domain_->spec.layout);
  return make_points(plan_.grid, plan_.spec, shot.receivers, plan_.config.receivers.interpolation,
                     PointRole::kReceiver);
}

ShotResult Modeling::forward(const Shot& shot, const LoopOptions& options,
                             const LoopCallbacks& callbacks, const StateImage* start) {
  Propagation& p = *forward_;
  p.reset();
  const SparsePoints src = source_points(shot);
  // A rank without the source (a decomposed run) injects nothing.
  p.set_injection(src, src.count() > 0 ? plan_.wavelet : std::vector<double>{}, plan_.nt);
  p.set_recording(receiver_points(shot), plan_.nt);
  if (start) {
    p.state().load(*start);
    // The halo as the neighbours hold it now: a checkpoint taken with the exchange overlapped
    // holds its last level's halo unfilled (every rank resumes together, so this is collective).
    if (p.exchange()) p.exchange()->exchange(p.state(), traits(p.engine().physics()).fields);
  }
  ShotResult r;
  r.loop = run_time_loop(p, plan_.nt, options, callbacks);
  r.traces = p.recorded();
  return r;
}

std::vector<double> Modeling::adjoint(const Shot& shot, const std::vector<double>& data) {
  const SparsePoints rec = receiver_points(shot), src = source_points(shot);
  if (!domain_) return apply_adjoint(*choice_.engine, rec, data, src, plan_.nt);
  // The rank's receivers' rows of the data in, its part of the source trace out.
  const size_t nt = static_cast<size_t>(plan_.nt);
  std::vector<double> mine(rec.id.size() * nt);
  for (size_t p = 0; p < rec.id.size(); ++p)
    std::copy_n(data.begin() + rec.id[p] * nt, nt, mine.begin() + p * nt);
  std::vector<double> part = apply_adjoint(*choice_.engine, rec, mine, src, plan_.nt, exchange_);
  if (part.empty()) part.assign(nt, 0.0);
  return part;
}

}  // namespace seisfd
