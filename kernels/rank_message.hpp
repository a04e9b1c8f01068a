// A message between two ranks of a launch: what the GPU halo exchanges (HaloLink,
// kernels/cuda_backend.hpp) hand to the solver's MPI (parallel::Comm::exchange). Plain C++.
#pragma once
#include <cstddef>
#include <vector>

namespace seisfd {

struct RankMessage {
  void* data;  // sent from, or received into
  size_t bytes;
  int peer;  // the other rank
  int tag;
};

// Host memory the ranks of one node share (parallel::Comm::share_host: an MPI shared-memory
// window): each rank's own segment, and the segments of the other ranks on its node as this
// process sees them. Released (collectively) when the last copy of the pointer goes.
struct SharedHostSegments {
  virtual ~SharedHostSegments() = default;
  void* own = nullptr;
  std::vector<void*> of;   // by rank of the communicator: its segment, null where on another node
  void* region = nullptr;  // every segment of the node, one range (to pin it once)
  size_t region_bytes = 0;
};

}  // namespace seisfd
