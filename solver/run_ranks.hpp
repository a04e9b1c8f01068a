// `seisfd run` over several ranks (docs/parallel.md); execute_run calls it when the launch has
// more than one.
#pragma once
#include <memory>

#include "solver/decomposition.hpp"
#include "solver/parallel.hpp"
#include "solver/ranks.hpp"
#include "solver/run.hpp"

namespace seisfd {

struct RunPlan;

// How the ranks of a launch split up: groups of group_size ranks, this rank's group and its
// part of the grid. Throws ConfigError for shot groups that do not divide the ranks and for a
// decomposition that does not fit.
struct RankLayout {
  int group_size = 1, group_index = 0;
  int ranks_on_node = 1;
  RankDomain domain;
  Exchange exchange = Exchange::kMpi;  // resolved: kMpi or kPeer
  std::unique_ptr<ShotGroup> group;
};
// `backend` as make_engine takes it.
RankLayout make_rank_layout(const RunPlan& plan, const parallel::Comm& world, Backend backend);

RunSummary execute_run_ranks(const RunConfig& config, const RunOptions& opt,
                             parallel::Comm world);

}  // namespace seisfd
