#include "kernels/engine.hpp"

#include <algorithm>
#include <stdexcept>

namespace seisfd {

std::vector<Box> edge_strips(const Box& inner, int width) {
  std::vector<Box> out;
  Box core = inner;  // what is left once the faces of the earlier axes are taken
  for (int a = 0; a < 3; ++a) {
    const int w = std::min(width, core.hi[a] - core.lo[a]);
    if (w <= 0) break;
    Box lo = core, hi = core;
    lo.hi[a] = core.lo[a] + w;
    hi.lo[a] = std::max(core.hi[a] - w, lo.hi[a]);
    out.push_back(lo);
    if (hi.cells() > 0) out.push_back(hi);
    core.lo[a] = lo.hi[a];
    core.hi[a] = hi.lo[a];
  }
  return out;
}

void check_direction(const StepSpec& spec, Direction d) {
  // The CPML recursion is not symmetric in time, so the forward update run backwards is not
  // its transpose; refuse rather than return an inexact adjoint.
  if (d == Direction::kAdjoint && spec.cpml_on())
    throw std::invalid_argument(
        "adjoint: not implemented for boundary.type = \"cpml\" (exact for \"sponge\" and "
        "\"none\")");
}

}  // namespace seisfd
