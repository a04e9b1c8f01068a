// The linear modelling operator F (wavelet -> receiver traces) and its exact discrete adjoint
// F* (traces -> wavelet), on any engine. The adjoint is the same time stepping run backwards:
// with eta = C mu, C = (v dt)^2 / (1 + g), the transposed recursion is again the forward
// update, injecting the time-reversed data at the receivers (with the engine's own C factor)
// and recording at the source with the source weights. Migration relies on this. The VTI/TTI
// engines are not self-transposed (their coupling weights sit on one side of the stencils), so
// apply_adjoint switches every engine to its transposed update (WaveEngine::set_adjoint).
#pragma once
#include <vector>

#include "kernels/engine.hpp"

namespace seisfd {

// traces: [npoints][nt]. The engine must hold zero fields (freshly made).
std::vector<double> apply_forward(WaveEngine& engine, const SparsePoints& sources,
                                  const std::vector<double>& source_traces,
                                  const SparsePoints& receivers, int nt);
std::vector<double> apply_adjoint(WaveEngine& engine, const SparsePoints& receivers,
                                  const std::vector<double>& data, const SparsePoints& sources,
                                  int nt);

}  // namespace seisfd
