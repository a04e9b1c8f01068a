// One modelling run from a config: plan, survey, the modelling layer over its shots, gathers,
// snapshots (of the first shot), report.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/config.hpp"

namespace seisfd {

struct RunOptions {
  Backend backend = Backend::kAuto;  // overrides kernel.backend unless kAuto
  bool overwrite = false;
  bool quiet = false;
  bool graphs = true;   // CUDA: launch chunks of steps as captured graphs (--no-graph: off)
  bool resume = false;  // run: continue the gathers.h5.partial in the output directory
  const std::atomic<bool>* stop = nullptr;  // set by the SIGINT/SIGTERM/SIGHUP/SIGUSR1 handler
  // Set with stop by SIGTERM and SIGUSR1 (preemption): `run` writes a checkpoint first.
  const std::atomic<bool>* checkpoint_on_stop = nullptr;
};

struct RunSummary {
  std::string backend, device, kernel;
  int shots = 0;
  int64_t steps = 0;  // over all shots
  double seconds = 0, gcells_per_s = 0;
  std::string directory;
  bool reports = true;  // this rank prints the summary (rank 0 of a launch of several)
};

// Throws ConfigError, io::IoError, NumericalError, Interrupted (files then stay *.partial with
// complete = 0), or backend errors.
RunSummary execute_run(const RunConfig& config, const RunOptions& opt);

struct RunPlan;
// output.model: writes <dir>/model.h5 and model.xmf (docs/outputs.md §7) of plan.model, the
// physical grid's model as the command propagated in it (the background of born and migrate,
// smoothed where they smooth it; delta after any lowering to epsilon; theta and phi in degrees,
// as configs give them). Returns the paths written.
std::vector<std::string> write_model_output(const std::string& dir, const RunPlan& plan);

std::string seisfd_version();

}  // namespace seisfd
