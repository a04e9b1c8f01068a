#include "kernels/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/huge_pages.hpp"

namespace seisfd {

std::vector<double> widen(const std::vector<float>& values) {
  std::vector<double> out = huge_vector<double>(values.size());
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return out;
}

std::vector<Box> shell_boxes(const Box& outer, const Box& inner) {
  std::vector<Box> out;
  Box core = outer;  // what is left once the faces of the earlier axes are taken
  for (int a = 0; a < 3; ++a) {
    const int lo_end = std::clamp(inner.lo[a], core.lo[a], core.hi[a]);
    const int hi_begin = std::clamp(inner.hi[a], lo_end, core.hi[a]);
    Box lo = core, hi = core;
    lo.hi[a] = lo_end;
    hi.lo[a] = hi_begin;
    if (lo.cells() > 0) out.push_back(lo);
    if (hi.cells() > 0) out.push_back(hi);
    core.lo[a] = lo_end;
    core.hi[a] = hi_begin;
  }
  return out;
}

Box updated_region(const StepSpec& spec) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = spec.begin[a];
    b.hi[a] = spec.end[a];
  }
  return b;
}

StepSpec narrowed(const StepSpec& spec, const Box& b) {
  StepSpec r = spec;
  for (int a = 0; a < 3; ++a) {
    r.begin[a] = b.lo[a];
    r.end[a] = b.hi[a];
  }
  return r;
}

std::vector<Box> edge_strips(const Box& inner, int width) {
  Box core = inner;
  for (int a = 0; a < 3; ++a) {
    core.lo[a] = std::min(inner.lo[a] + width, inner.hi[a]);
    core.hi[a] = std::max(inner.hi[a] - width, core.lo[a]);
  }
  return shell_boxes(inner, core);
}

void check_direction(const StepSpec& spec, Direction d) {
  // The CPML recursion is not symmetric in time, so the forward update run backwards is not
  // its transpose; refuse rather than return an inexact adjoint.
  if (d == Direction::kAdjoint && spec.cpml_on())
    throw std::invalid_argument(
        "adjoint: not implemented for boundary.type = \"cpml\" (exact for \"sponge\" and "
        "\"none\")");
}

long long Engine::copy_async(const CellArray&, CellArray&) {
  throw std::invalid_argument(name() + ": no transfers between arrays");
}

void Engine::advance_imaging(WaveState& s, int n, const StepIo& io, const Imaging& im) {
  const int nf = traits(physics()).fields;
  for (int f = 0; f < nf; ++f)
    if (!im.u[f])
      throw std::invalid_argument("advance_imaging: no source field " + std::to_string(f));
  if (im.crosscorrelation) {
    // psi[n - 1] is overwritten by the step: keep it for the second difference.
    while (static_cast<int>(older_.size()) < nf) older_.push_back(make_array(ArrayKind::kDevice));
    for (int f = 0; f < nf; ++f) copy(s, {f, Level::kPrevious}, *older_[f]);
  }
  advance(s, n, n + 1, io);  // previous: psi[n], current: psi[n + 1]
  if (im.crosscorrelation)
    for (int f = 0; f < nf; ++f)
      correlate_second_difference(*im.crosscorrelation, *im.u[f], s, f, *older_[f], im.cc_scale);
  if (im.illumination) correlate(*im.illumination, *im.u[0], *im.u[0], im.k);
  if (im.zero_lag) correlate(*im.zero_lag, *im.u[0], s, {0, Level::kPrevious}, im.k);
}

}  // namespace seisfd
