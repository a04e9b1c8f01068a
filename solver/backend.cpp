#include "solver/backend.hpp"

#include <omp.h>

#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"

namespace seisfd {

Backend auto_backend(Backend b) {
  if (b != Backend::kAuto) return b;
  return cuda_device_count() == 0 ? Backend::kCpu : Backend::kCuda;
}

Backend resolve_backend(const RunConfig& c, Backend requested) {
  const Backend b = auto_backend(requested != Backend::kAuto ? requested : c.kernel.backend);
  const int devices = cuda_device_count();
  if (b == Backend::kCuda) {
    if (c.kernel.precision == Precision::kFp64)
      throw ConfigError("kernel.precision", "fp64 runs only on the cpu backend", c.source_path);
    if (devices == 0)
      throw ConfigError("kernel.backend",
                        cuda_built() ? "cuda requested but no CUDA device was found"
                                     : "cuda requested but this build has no CUDA backend",
                        c.source_path);
  }
  return b;
}

EngineChoice make_engine(const RunPlan& plan, Backend requested, bool graphs,
                         const RankDomain* domain) {
  const RunConfig& c = plan.config;
  const Backend b = resolve_backend(c, requested);
  EngineChoice out;
  out.backend = b;
  const StepSpec& spec = domain ? domain->spec : plan.spec;
  Medium medium =
      domain ? layout_medium(plan, spec.layout, domain->sub.layout_lo) : layout_medium(plan);
  if (domain) medium.coefficient_range = domain->coefficient_range;
  if (b == Backend::kCuda) {
    const int device = domain ? domain->device % cuda_device_count() : 0;
    out.device = cuda_device(device).name;
    CudaEngineOptions o;
    o.device = device;
    o.variant = c.kernel.variant;
    o.compressible = c.kernel.compressible;
    o.graphs = graphs;
    out.engine = make_cuda_engine(spec, medium, plan.dt, o);
  } else {
    out.device = "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
    try {
      cpu::resolve_cpu_variant(c.kernel.variant, medium.physics, 2 * plan.spec.radius,
                               plan.spec.tti_operator);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("kernel.variant", e.what(), c.source_path);
    }
    out.engine = reference::make_cpu_engine(
        spec, medium, plan.dt, c.kernel.precision == Precision::kFp64, c.kernel.variant);
  }
  return out;
}

}  // namespace seisfd
