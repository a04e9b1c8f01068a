// The CUDA backend's entry points in a build without CUDA: nothing found, nothing to make.
#include <stdexcept>

#include "kernels/cuda_backend.hpp"

namespace seisfd {

bool cuda_built() {
  return false;
}
std::string cuda_runtime_version() {
  return "";
}
std::vector<DeviceInfo> cuda_devices() {
  return {};
}
std::unique_ptr<Engine> make_cuda_engine(const StepSpec&, const Medium&, double,
                                         const CudaEngineOptions&) {
  throw std::runtime_error("backend cuda: this seisfd was built without CUDA (SEISFD_CUDA=OFF)");
}
std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine&, const PeerLink&) {
  throw std::runtime_error("parallel.exchange = \"peer\": this seisfd was built without CUDA");
}

}  // namespace seisfd
