#include "solver/backend.hpp"

#include <omp.h>

#include "kernels/cuda_backend.hpp"
#include "kernels/reference/aniso_engine.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/model.hpp"

namespace seisfd {

EngineChoice make_engine(const RunPlan& plan, Backend requested) {
  const RunConfig& c = plan.config;
  Backend b = requested != Backend::kAuto ? requested : c.kernel.backend;
  const auto devices = cuda_devices();
  if (b == Backend::kAuto) b = devices.empty() ? Backend::kCpu : Backend::kCuda;
  EngineChoice out;
  out.backend = b;
  const std::vector<float> velocity = extend_to_layout(plan.grid, plan.model);
  if (b == Backend::kCuda) {
    if (c.kernel.precision == Precision::kFp64)
      throw ConfigError("kernel.precision", "fp64 runs only on the cpu backend", c.source_path);
    if (devices.empty())
      throw ConfigError("kernel.backend",
                        cuda_built() ? "cuda requested but no CUDA device was found"
                                     : "cuda requested but this build has no CUDA backend",
                        c.source_path);
    out.device = devices[0].name;
    out.engine = c.physics.equation == Equation::kAcoustic
                     ? make_cuda_engine(plan.spec, velocity, plan.dt, c.kernel.variant, 0,
                                        c.kernel.compressible)
                     : make_cuda_aniso_engine(plan.spec, aniso_layout_model(plan), plan.dt,
                                              c.kernel.variant, 0, c.kernel.compressible);
  } else {
    out.device = "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
    const bool fp64 = c.kernel.precision == Precision::kFp64;
    out.engine =
        c.physics.equation == Equation::kAcoustic
            ? reference::make_cpu_engine(plan.spec, velocity, plan.dt, fp64)
            : reference::make_aniso_cpu_engine(plan.spec, aniso_layout_model(plan), plan.dt, fp64);
  }
  return out;
}

}  // namespace seisfd
