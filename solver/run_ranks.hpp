// `seisfd run` over several ranks (docs/parallel.md); execute_run calls it when the launch has
// more than one.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

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

// The shots of a launch over its shot groups: shot 0 to group 0, then one at a time to whichever
// group asks first (in order where the launch is one group). Every rank of a group calls
// run(k) for each of its shots; what run returns on the group's rank 0 reaches take(k, ...) on
// the launch's rank 0, the only rank take is called on, once a shot, in the order they finish.
// Returns when every shot is taken (rank 0) or handed out (the others), with where this rank's
// time went.
struct ShotTimes {
  double waited = 0;   // to be handed its shots (the counter's answers: on a group's rank 0)
  double running = 0;  // inside run(k), set-up and traces included
  double taking = 0;   // inside take (rank 0: receiving and writing the shots)
};
ShotTimes run_shots(parallel::Comm& world, const RankLayout& ranks, int nshots,
                    const std::function<std::vector<double>(int k)>& run,
                    const std::function<void(int k, std::vector<double> message)>& take);

// A launch of several shot groups draws shots from a counter on rank 0 and sends each finished
// shot to it: every rank lets MPI progress between its batches of steps on `e` (an MPI without
// asynchronous progress would serve those requests only when rank 0's shot ended, and run the
// groups' shots one after another). Nothing for a launch of one group.
void poll_while_computing(Engine& e, const parallel::Comm& world, const RankLayout& ranks);

// report.json's "parallel" section of a launch: ranks, groups, the decomposition, the exchange
// and its exposed seconds on rank 0.
nlohmann::json parallel_report(const parallel::Comm& world, const RankLayout& ranks,
                               const HaloExchange* exchange);

RunSummary execute_run_ranks(const RunConfig& config, const RunOptions& opt, parallel::Comm world);

}  // namespace seisfd
