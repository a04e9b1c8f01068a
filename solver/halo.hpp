// The halo exchange of a decomposed run (docs/parallel.md): after each step, the current level
// of every field across each face a rank shares with a neighbour, `halo` cells deep, axis after
// axis (z, then y over the z halo, then x over both), so that the edges and corners the TTI
// cross terms read arrive too. MpiHaloExchange: through MPI point to point, staged in host
// memory through the state's box reads and writes (the cpu engine's states); the exchanges over
// a CUDA engine are in kernels/cuda_backend.hpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/propagation.hpp"
#include "solver/config.hpp"
#include "solver/decomposition.hpp"
#include "solver/parallel.hpp"

namespace seisfd {

class MpiHaloExchange : public HaloExchange {
 public:
  // `comm`: the shot group's ranks, numbered as the decomposition numbers them; `local`: the
  // rank's own step description (local_spec).
  MpiHaloExchange(parallel::Comm comm, const Subdomain& sub, const StepSpec& local, int halo);
  void exchange(WaveState& s, int fields) override;
  const char* name() const override { return "mpi (host-staged)"; }
  long long bytes_sent() const { return bytes_; }

 private:
  template <class T>
  void exchange_as(WaveState& s, int fields, std::vector<T>& out, std::vector<T>& in);

  parallel::Comm comm_;
  Subdomain sub_;
  // Per axis and side (lo, hi): the owned cells sent, the halo cells received.
  std::vector<Box> send_[3][2], recv_[3][2];
  long long bytes_ = 0;
  // The faces sent and received, kept from step to step (fp32 or fp64 states).
  std::vector<float> out32_, in32_;
  std::vector<double> out64_, in64_;
};

// The path parallel.exchange names, resolved for a group: auto is, where the engine computes on a
// GPU, peer when every rank of the group is on this node, else nccl where built with it; else mpi
// (host and mpi are the same exchange). ConfigError (key parallel.exchange) for peer or nccl
// without a GPU, and nccl in a build without it.
Exchange resolve_exchange(Exchange asked, Backend backend, const parallel::Comm& group,
                          const std::string& source = {});
// Whether a resolved exchange moves a GPU run's faces through host memory: mpi, where the MPI
// library is not CUDA-aware (the faces packed on the device, then pinned host buffers).
bool through_host(Exchange resolved);
// The exchange of a group of several ranks over `engine` (null for a group of one rank);
// `overlap`: during the steps where it can (ParallelConfig::overlap). mpi over a CUDA engine packs
// the faces on the device and sends them through pinned host buffers (on the device buffers
// where the MPI library is CUDA-aware); over the cpu engine, MpiHaloExchange.
std::unique_ptr<HaloExchange> make_halo_exchange(Exchange resolved, const parallel::Comm& group,
                                                 const RankDomain& d, Engine& engine,
                                                 bool overlap = true);

}  // namespace seisfd
