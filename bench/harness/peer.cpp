// Copy bandwidth between two GPUs of the node (`seisfd bench --peer`): what the peer halo
// exchange can move per second between neighbouring ranks' devices.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/harness/harness.hpp"
#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/wall_clock.hpp"

namespace seisfd::bench {
namespace {

// Lets `from` address `to`'s memory directly where the hardware allows; false where it does not.
bool enable_peer(int from, int to) {
  int can = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return false;
  const cuda::DeviceGuard on(from);
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // the call leaves this (harmless) error behind: clear it
    return true;
  }
  CUDA_CHECK(e);
  return true;
}

// Median seconds of `repeats` rounds of `round` (which issues copies), synchronising `streams`
// after each; two untimed rounds first.
template <class Round>
double median_seconds(int repeats, const std::vector<cudaStream_t>& streams, Round&& round) {
  auto sync = [&] {
    for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  };
  for (int i = 0; i < 2; ++i) round();
  sync();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    round();
    sync();
    t.push_back(seconds_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

PeerBandwidth peer_bandwidth(int a, int b, size_t bytes, int repeats) {
  PeerBandwidth r;
  r.peer_access = enable_peer(a, b) && enable_peer(b, a);
  cuda::DeviceBuffer<char> on_a, on_a2, on_b, on_b2;
  {
    const cuda::DeviceGuard on(a);
    on_a = cuda::DeviceBuffer<char>(bytes);
    on_a2 = cuda::DeviceBuffer<char>(bytes);
    CUDA_CHECK(cudaMemset(on_a.get(), 1, bytes));
  }
  {
    const cuda::DeviceGuard on(b);
    on_b = cuda::DeviceBuffer<char>(bytes);
    on_b2 = cuda::DeviceBuffer<char>(bytes);
    CUDA_CHECK(cudaMemset(on_b.get(), 2, bytes));
  }
  cuda::Stream sa(a), sb(b);
  const std::vector<cudaStream_t> both{sa.get(), sb.get()};
  const double one_way = median_seconds(repeats, both, [&] {
    CUDA_CHECK(cudaMemcpyPeerAsync(on_b2.get(), b, on_a.get(), a, bytes, sa.get()));
  });
  const double two_way = median_seconds(repeats, both, [&] {
    CUDA_CHECK(cudaMemcpyPeerAsync(on_b2.get(), b, on_a.get(), a, bytes, sa.get()));
    CUDA_CHECK(cudaMemcpyPeerAsync(on_a2.get(), a, on_b.get(), b, bytes, sb.get()));
  });
  r.one_way_gbps = bytes / one_way / 1e9;
  r.both_ways_gbps = 2.0 * bytes / two_way / 1e9;
  return r;
}

double copy_bandwidth_on(int device, size_t bytes, int repeats) {
  const cuda::DeviceGuard on(device);
  return copy_bandwidth_gbps(bytes, repeats);
}

}  // namespace seisfd::bench
