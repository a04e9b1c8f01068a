#include "kernels/propagation.hpp"

#include <chrono>

#include "kernels/wall_clock.hpp"

namespace seisfd {
namespace {

std::vector<double> reverse_time(const std::vector<double>& t, int npoints, int nt) {
  std::vector<double> r(t.size());
  for (int p = 0; p < npoints; ++p)
    for (int n = 0; n < nt; ++n)
      r[static_cast<size_t>(p) * nt + n] = t[static_cast<size_t>(p) * nt + (nt - 1 - n)];
  return r;
}

}  // namespace

Propagation::Propagation(Engine& engine, Direction direction)
    : engine_(engine), state_(engine.make_state()) {
  io_.direction = direction;
}

void Propagation::set_injection(const SparsePoints& points, const std::vector<double>& traces,
                                int nt) {
  sources_ = engine_.make_sources(points, traces, nt);
  io_.sources = sources_.get();
}

void Propagation::set_recording(const SparsePoints& points, int nt) {
  receivers_ = engine_.make_receivers(points, nt);
  io_.receivers = receivers_.get();
}

void Propagation::steps(int n_begin, int n_end) {
  engine_.poll();
  if (!exchange_) {
    engine_.advance(*state_, n_begin, n_end, io_);
    return;
  }
  const int fields = traits(engine_.physics()).fields;
  if (exchange_->overlaps() && exchange_->overlap) {
    Engine::SplitExchange x;
    x.start = [&] { exchange_->start(*state_); };
    x.finish = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      exchange_->finish(*state_, fields);
      exchange_->seconds += seconds_since(t0);
    };
    x.device_ordered = exchange_->device_ordered();
    x.id = exchange_;
    engine_.advance_split(*state_, n_begin, n_end, io_, exchange_->interior(engine_.spec()), x);
    return;
  }
  for (int n = n_begin; n < n_end; ++n) {
    engine_.advance(*state_, n, n + 1, io_);
    engine_.synchronize();  // the exchange's time is its own, not the step's
    const auto t0 = std::chrono::steady_clock::now();
    exchange_->exchange(*state_, fields);
    exchange_->seconds += seconds_since(t0);
  }
}

Box HaloExchange::interior(const StepSpec& spec) const {
  return updated_region(spec);
}

void Propagation::reset() {
  state_->zero();
  if (receivers_) receivers_->clear();
}

void Propagation::copy_field(const int lo[3], const int hi[3], const int dec[3],
                             std::vector<float>& out) const {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = lo[a];
    b.hi[a] = hi[a];
  }
  state_->read_box({0, Level::kCurrent}, b, dec, out);
}

std::vector<double> Propagation::recorded() const {
  return receivers_ ? receivers_->traces() : std::vector<double>{};
}

std::vector<double> apply_forward(Engine& e, const SparsePoints& src, const std::vector<double>& s,
                                  const SparsePoints& rec, int nt, HaloExchange* x) {
  Propagation p(e, Direction::kForward);
  p.set_exchange(x);
  p.set_injection(src, s, nt);
  p.set_recording(rec, nt);
  p.steps(0, nt - 1);
  return p.recorded();
}

std::vector<double> apply_adjoint(Engine& e, const SparsePoints& rec, const std::vector<double>& d,
                                  const SparsePoints& src, int nt, HaloExchange* x) {
  // With eta = C mu, C = (v dt)^2 / (1 + g), adjoint step j makes eta^(nt-1-j) from the data
  // sample d^(nt-1-j), and its recording at sample j+1 is the adjoint source sample nt-2-j:
  // both are time reversals. Engines step their transposed update (Direction::kAdjoint): the
  // acoustic update is its own transpose after the substitution; VTI/TTI are not, their
  // coupling weights sit on one side of the stencils.
  check_direction(e.spec(), Direction::kAdjoint);
  Propagation p(e, Direction::kAdjoint);
  p.set_exchange(x);
  p.set_injection(rec, reverse_time(d, rec.count(), nt), nt);
  p.set_recording(src, nt);
  p.steps(0, nt - 1);
  return reverse_time(p.recorded(), src.count(), nt);
}

}  // namespace seisfd
