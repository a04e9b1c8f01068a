// Where born and migrate run (docs/migration.md §6, docs/parallel.md): on one rank, or on the
// ranks of an MPI launch in shot groups, each decomposing the grid among its ranks; and what
// they do across the ranks: per-cell arrays to and from a rank's part, the groups' stacks, a
// shot's merged traces, its operator on the rank's points, the report's parallel section.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "solver/halo.hpp"
#include "solver/linearized.hpp"
#include "solver/parallel.hpp"
#include "solver/plan.hpp"
#include "solver/run.hpp"
#include "solver/run_ranks.hpp"
#include "solver/survey.hpp"

namespace seisfd {

// Rank 0 of the launch writes every file.
struct Placement {
  parallel::Comm world;
  RankLayout ranks;
  std::unique_ptr<HaloExchange> exchange;  // connect(): the group's, over the rank's engine

  bool launch() const { return world.size() > 1; }  // several ranks
  bool decomposed() const { return launch() && ranks.group_size > 1; }
  bool writer() const { return world.root(); }
  const RankDomain* domain() const { return decomposed() ? &ranks.domain : nullptr; }
  // What the engine is made for: a group of one rank computes the whole grid, on the device
  // its place on the node gives it.
  const RankDomain* engine_domain() const { return launch() ? &ranks.domain : nullptr; }
  const ShotGroup& group() const { return *ranks.group; }
  // The stop flag as every rank of the group sees it (one decision for all).
  bool stop(const RunOptions& opt) const {
    const bool mine = opt.stop && opt.stop->load();
    return launch() ? group().comm().any(mine) : mine;
  }
  // Every shot through run(k) (on the ranks of its group) and take(k, what run returned on the
  // group's rank 0) on the writer, in the order they finish.
  void shots(int n, const std::function<std::vector<double>(int)>& run,
             const std::function<void(int, std::vector<double>)>& take) {
    if (launch()) {
      run_shots(world, ranks, n, run, take);
      return;
    }
    for (int k = 0; k < n; ++k) take(k, run(k));
  }
  // The halo exchange over the rank's engine: through MPI, after each step, never overlapped
  // (born and migrate step their states between exchanges themselves, the imaging steps and the
  // reconstruction's included, so every level's halo must be filled when its step ends).
  void connect(Engine& e) {
    if (decomposed())
      exchange = make_halo_exchange(Exchange::kMpi, group().comm(), ranks.domain, e,
                                    /*overlap=*/false);
    if (launch()) poll_while_computing(e, world, ranks);
  }
};

// `groups`: the command runs several shot groups (else it refuses them). Throws ConfigError for
// what born and migrate refuse over ranks.
Placement place(const RunPlan& plan, Backend backend, const char* command, bool groups);
// A per-cell array of the global layout as the engine of `at` holds it (its rank's part).
std::vector<float> local_cells(const RunPlan& p, const Placement& at, std::vector<float> global);
// A per-cell array of the engine of `at` in the global layout, on the writer (empty elsewhere).
std::vector<double> global_cells(const Placement& at, std::vector<double> local);
// The stacks of every shot group's rank 0 (arrays of one size) summed onto the writer in double
// (a binary tree over the groups), rounded to float once; what the other ranks get back is
// not the sum.
std::vector<float> sum_groups(const Placement& at, std::vector<float> stack);
// A shot's traces ([receivers][nt], the rows of the rank's own points in a decomposed run) on
// the writer; empty on the other ranks.
std::vector<double> merged_traces(const Placement& at, const ShotOperator& op, const Shot& shot,
                                  std::vector<double> traces);
// The shot's operator on the rank's points (and its exchange).
ShotOperator shot_operator(const RunPlan& p, const Shot& s, const Placement& at);
// What a report says of the ranks (absent for one rank).
void report_ranks(nlohmann::json& rep, const Placement& at);

}  // namespace seisfd
