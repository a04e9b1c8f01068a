#include "solver/linearized.hpp"

#include <chrono>

#include "kernels/wall_clock.hpp"

namespace seisfd {
namespace {

std::vector<std::unique_ptr<CellArray>> arrays(Engine& e, int n) {
  std::vector<std::unique_ptr<CellArray>> out;
  for (int i = 0; i < n; ++i) out.push_back(e.make_array(ArrayKind::kDevice));
  return out;
}

}  // namespace

std::vector<double> born(Engine& e, const ShotOperator& shot, const CellArray& dm) {
  const int nf = traits(e.physics()).fields;
  Propagation u(e), du(e);
  u.set_exchange(shot.exchange);
  du.set_exchange(shot.exchange);
  u.set_injection(shot.sources, shot.wavelet, shot.nt);
  du.set_recording(shot.receivers, shot.nt);
  auto older = arrays(e, nf), source = arrays(e, nf);
  du.set_volume(source[0].get(), nf > 1 ? source[1].get() : nullptr);
  // Step n of du injects -dm D2u[n], the second difference of the step that makes u[n+1].
  const double scale = -1.0 / (shot.dt * shot.dt);
  for (int n = 0; n + 1 < shot.nt; ++n) {
    for (int f = 0; f < nf; ++f) e.copy(u.state(), {f, Level::kPrevious}, *older[f]);
    u.steps(n, n + 1);
    for (int f = 0; f < nf; ++f)
      e.second_difference(u.state(), f, *older[f], &dm, scale, *source[f]);
    du.steps(n, n + 1);
  }
  return du.recorded();
}

void migrate(Engine& e, const ShotOperator& shot, const std::vector<double>& data,
             SourceStorage& storage, const ImagingSteps& steps, const ShotImages& images,
             MigrationTimes* times) {
  check_direction(e.spec(), Direction::kAdjoint);
  const int nf = traits(e.physics()).fields, nt = shot.nt, nr = shot.receivers.count();
  const auto t0 = std::chrono::steady_clock::now();
  Propagation src(e);
  src.set_exchange(shot.exchange);
  src.set_injection(shot.sources, shot.wavelet, nt);
  storage.forward(src, shot.sources, shot.wavelet);
  if (times) {
    e.synchronize();
    times->forward = seconds_since(t0);
  }
  const auto t1 = std::chrono::steady_clock::now();
  // The adjoint propagation of the data, time-reversed, injected at the receivers: adjoint
  // step j makes psi[j + 1] and pairs with forward field m = nt - 1 - j.
  std::vector<double> reversed(data.size());
  for (int r = 0; r < nr; ++r)
    for (int n = 0; n < nt; ++n)
      reversed[static_cast<size_t>(r) * nt + n] = data[static_cast<size_t>(r) * nt + nt - 1 - n];
  Propagation adj(e, Direction::kAdjoint);
  adj.set_exchange(shot.exchange);
  adj.set_injection(shot.receivers, reversed, nt);
  Engine::Imaging im;
  im.crosscorrelation = images.crosscorrelation;
  im.illumination = images.illumination;
  im.zero_lag = images.zero_lag;
  im.k = steps.interval;
  // B^T d += -(k / dt^2) u[m] ((1+g) psi[j+1] - 2 psi[j] + (1-g) psi[j-1]), every field.
  im.cc_scale = -steps.interval / (shot.dt * shot.dt);
  const bool imaging = im.crosscorrelation || im.illumination || im.zero_lag;
  int j = 0;
  for (int m = nt - 1; m >= 1 && imaging; --m) {
    if (!steps.is_imaging(m)) continue;
    const int jm = nt - 1 - m;  // the adjoint step of forward field m
    adj.steps(j, jm);           // the steps between imaging steps, as one batch
    const std::vector<const CellArray*> u = storage.recall(m);
    for (int f = 0; f < nf; ++f) im.u[f] = u[f];
    e.advance_imaging(adj.state(), jm, adj.io(), im);
    if (shot.exchange) shot.exchange->exchange(adj.state(), nf);
    j = jm + 1;
  }
  if (times) {
    e.synchronize();
    times->backward = seconds_since(t1);
  }
}

}  // namespace seisfd
