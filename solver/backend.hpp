// Choosing and making the engine for a plan: auto = CUDA when a device is present, else CPU.
#pragma once
#include <memory>
#include <string>

#include "kernels/engine.hpp"
#include "solver/decomposition.hpp"
#include "solver/plan.hpp"

namespace seisfd {

struct EngineChoice {
  Backend backend = Backend::kCpu;
  std::string device;  // "NVIDIA H100 80GB HBM3" or "cpu (N threads)"
  std::unique_ptr<Engine> engine;
};

// kernel.backend `b` with "auto" resolved as every run resolves it: cuda where a CUDA device is
// found, else the CPU. No checks (resolve_backend makes them).
Backend auto_backend(Backend b);

// The backend a run of `c` uses (`requested` as make_engine takes it), after the checks that
// need no engine: ConfigError for fp64 on the GPU and for cuda without a device or without a
// CUDA build. `seisfd check` refuses what `seisfd run` would.
Backend resolve_backend(const RunConfig& c, Backend requested);

// `requested` overrides plan.config.kernel.backend when set to other than kAuto. `graphs`:
// CUDA chunks of steps as captured graphs. Throws ConfigError for a backend that cannot run the
// plan (fp64 on the GPU, cuda without a device), or the backend's errors. With a domain, the
// engine computes that rank's part of the grid on its device.
EngineChoice make_engine(const RunPlan& plan, Backend requested, bool graphs = true,
                         const RankDomain* domain = nullptr);

}  // namespace seisfd
