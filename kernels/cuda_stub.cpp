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
int cuda_device_count() {
  return 0;
}
DeviceInfo cuda_device(int id) {
  throw std::runtime_error("backend cuda: no CUDA device " + std::to_string(id) +
                           " (this seisfd was built without CUDA)");
}
std::unique_ptr<Engine> make_cuda_engine(const StepSpec&, const Medium&, double,
                                         const CudaEngineOptions&) {
  throw std::runtime_error("backend cuda: this seisfd was built without CUDA (SEISFD_CUDA=OFF)");
}
void cuda_choose_variant_ahead(const std::string&, Physics, const StepSpec&, int, Compressible) {}
std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine&, const HaloLink&) {
  throw std::runtime_error("parallel.exchange = \"peer\": this seisfd was built without CUDA");
}
std::unique_ptr<HaloExchange> make_cuda_transport_exchange(Engine&, const HaloLink&,
                                                           DeviceTransport) {
  throw std::runtime_error("halo exchange on a GPU: this seisfd was built without CUDA");
}
bool nccl_built() {
  return false;
}
std::string nccl_version() {
  return "";
}

}  // namespace seisfd
