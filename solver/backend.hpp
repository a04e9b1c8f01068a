// Choosing and making the engine for a plan: auto = CUDA when a device is present, else CPU.
#pragma once
#include <memory>
#include <string>

#include "kernels/engine.hpp"
#include "solver/plan.hpp"

namespace seisfd {

struct EngineChoice {
  Backend backend = Backend::kCpu;
  std::string device;  // "NVIDIA H100 80GB HBM3" or "cpu (N threads)"
  std::unique_ptr<WaveEngine> engine;
};

// `requested` overrides plan.config.kernel.backend when set to other than kAuto.
EngineChoice make_engine(const RunPlan& plan, Backend requested);

}  // namespace seisfd
