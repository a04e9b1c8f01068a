#include "kernels/cuda/engine_setup.hpp"

#include <stdexcept>

#include "kernels/cuda/compressible.hpp"

namespace seisfd::cuda {

EngineSetup prepare_engine(const StepSpec& spec, size_t bytes, const std::string& variant,
                           Physics physics, int device, Compressible compressible) {
  EngineSetup s;
  s.device = cuda_device(device);  // throws where there is none
  if (bytes > s.device.free_bytes)
    throw std::runtime_error("backend cuda: the run needs " + std::to_string(bytes >> 20) +
                             " MiB of device memory, " + s.device.name + " has " +
                             std::to_string(s.device.free_bytes >> 20) +
                             " MiB free; more ranks (mpirun: each computes its part of the grid) "
                             "or a smaller grid would fit (seisfd check prints the estimate)");
  s.choice = choose_variant(variant, physics, 2 * spec.radius, spec, device, s.device.name,
                            s.device.compute_capability);
  s.compressible = compressible;
  s.compress = want_compression(compressible, device, s.device.name);
  if (s.compress && compressible == Compressible::kAuto) {
    const CompressionChoice c =
        choose_compression(*s.choice.variant, spec, device, s.device.name, false);
    s.compress = c.compress;
    s.compression_how = c.how;
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> engine_details(const EngineSetup& s,
                                                                bool granted) {
  return {{"variant_choice", describe(s.choice)},
          {"compressible", compression_outcome(s.compressible, s.compress, granted, s.device.name,
                                               s.compression_how)}};
}

}  // namespace seisfd::cuda
