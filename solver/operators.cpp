#include "solver/operators.hpp"

#include <stdexcept>

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

std::vector<double> apply_forward(WaveEngine& e, const SparsePoints& src,
                                  const std::vector<double>& s, const SparsePoints& rec, int nt) {
  e.set_injection(src, s, nt);
  e.set_recording(rec, nt);
  e.steps(0, nt - 1);
  return e.recorded();
}

std::vector<double> apply_adjoint(WaveEngine& e, const SparsePoints& rec,
                                  const std::vector<double>& d, const SparsePoints& src, int nt) {
  // The CPML recursion is not symmetric in time, so the forward update run backwards is not
  // its transpose; refuse rather than return an inexact adjoint.
  if (e.spec().cpml_on())
    throw std::invalid_argument(
        "adjoint: not implemented for boundary.type = \"cpml\" (exact for \"sponge\" and "
        "\"none\")");
  // Adjoint step j makes eta^(nt-1-j) from the data sample d^(nt-1-j), and its recording at
  // sample j+1 is the adjoint source sample nt-2-j: both are time reversals.
  // Engines whose update is not its own transpose (VTI/TTI: eps and delta vary in space)
  // switch to their transposed update; the acoustic engines ignore this.
  e.set_adjoint(true);
  e.set_injection(rec, reverse_time(d, rec.count(), nt), nt);
  e.set_recording(src, nt);
  e.steps(0, nt - 1);
  return reverse_time(e.recorded(), src.count(), nt);
}

}  // namespace seisfd
