// `seisfd born` and `seisfd migrate` (docs/migration.md §2-§5): Born modelling of a survey
// into gathers.h5, and the migration of observed gathers into image.h5, on one engine that
// runs shot after shot.
#pragma once
#include <string>

#include "solver/run.hpp"

namespace seisfd {

struct RunPlan;

// Throws ConfigError, io::IoError, std::runtime_error (memory), or backend errors; outputs as
// execute_run writes them (`.partial` until complete).
RunSummary execute_born(const RunConfig& config, const RunOptions& options);
RunSummary execute_migrate(const RunConfig& config, const RunOptions& options);

// The migration's plan for `seisfd check`: the imaging interval, and the memory and cost of
// each source-wavefield strategy with the one `auto` would take on this machine.
std::string describe_migration(const RunPlan& plan, Backend backend);

}  // namespace seisfd
