// A message between two ranks of a launch: what the GPU halo exchanges (HaloLink,
// kernels/cuda_backend.hpp) hand to the solver's MPI (parallel::Comm::exchange). Plain C++.
#pragma once
#include <cstddef>

namespace seisfd {

struct RankMessage {
  void* data;  // sent from, or received into
  size_t bytes;
  int peer;  // the other rank
  int tag;
};

}  // namespace seisfd
