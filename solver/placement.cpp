#include "solver/placement.hpp"

#include "kernels/huge_pages.hpp"
#include "solver/halo.hpp"
#include "solver/points.hpp"

namespace seisfd {

// `groups`: the command runs several shot groups (else it refuses them).
Placement place(const RunPlan& plan, Backend backend, const char* command, bool groups) {
  Placement p;
  p.world = parallel::Comm::world();
  if (!p.launch()) return p;
  const RunConfig& c = plan.config;
  if (c.parallel.shot_groups != 1 && !groups)
    throw ConfigError("parallel.shot_groups",
                      std::string("seisfd ") + command +
                          " runs over ranks as one shot group decomposing the grid: set it to 1",
                      c.source_path);
  if (c.parallel.exchange == Exchange::kPeer || c.parallel.exchange == Exchange::kNccl)
    throw ConfigError(
        "parallel.exchange",
        std::string("seisfd ") + command + " exchanges halos through MPI: use \"mpi\" or \"auto\"",
        c.source_path);
  p.ranks = make_rank_layout(plan, p.world, backend);
  return p;
}

// A per-cell array of the global layout as the engine of `at` holds it (its rank's part).
std::vector<float> local_cells(const RunPlan& p, const Placement& at, std::vector<float> global) {
  if (!at.decomposed()) return global;
  const RankDomain& d = *at.domain();
  return restrict_array(global, p.spec.layout, d.sub, d.spec.layout);
}

// A per-cell array of the engine of `at` in the global layout, on the writer (empty elsewhere).
std::vector<double> global_cells(const Placement& at, std::vector<double> local) {
  if (!at.decomposed()) return local;  // moved (a conditional expression would copy it)
  return at.group().gather_cells(local);
}

// The stacks of every shot group's rank 0 summed onto the writer as a binary tree (log2 of the
// groups rounds, pairs at once: group g + step's into group g's). A group that has not yet
// received holds its own float stack and sends that (half the bytes); a partial sum is double.
// The sums are those of the stacks widened to double first, in the same order, bit for bit.
std::vector<float> sum_groups(const Placement& at, std::vector<float> stack) {
  constexpr int kTag = 7102;
  const int size = at.ranks.group_size, groups = at.world.size() / size;
  if (!at.group().comm().root()) return stack;
  const int g = at.ranks.group_index;
  const size_t n = stack.size();
  std::vector<double> sum;  // empty until this group has received
  std::vector<float> in_f;
  std::vector<double> in_d;
  for (int step = 1; step < groups; step *= 2) {
    if (g % (2 * step) == step) {
      if (sum.empty())
        at.world.send(stack.data(), n * sizeof(float), (g - step) * size, kTag);
      else
        at.world.send(sum.data(), n * sizeof(double), (g - step) * size, kTag);
      return stack;
    }
    if (g % (2 * step) == 0 && g + step < groups) {
      // The partner (an odd multiple of step) received at every earlier step s, if it had a
      // partner then: it holds a partial sum when step > 1 and group g + step + 1 exists.
      const bool partner_summed = step > 1 && g + step + 1 < groups;
      if (partner_summed) {
        if (in_d.size() != n) in_d = huge_vector<double>(n);
        at.world.recv(in_d.data(), n * sizeof(double), (g + step) * size, kTag);
      } else {
        if (in_f.size() != n) in_f = huge_vector<float>(n);
        at.world.recv(in_f.data(), n * sizeof(float), (g + step) * size, kTag);
      }
      const bool first = sum.empty();
      if (first) sum = huge_vector<double>(n);
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < n; ++i) {
        const double mine = first ? double(stack[i]) : sum[i];
        sum[i] = mine + (partner_summed ? in_d[i] : double(in_f[i]));
      }
    }
  }
  if (sum.empty()) return stack;  // one group
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) stack[i] = static_cast<float>(sum[i]);
  return stack;
}

// A shot's traces ([receivers][nt], the rows of the rank's own points in a decomposed run) on
// the writer; empty on the other ranks.
std::vector<double> merged_traces(const Placement& at, const ShotOperator& op, const Shot& shot,
                                  std::vector<double> traces) {
  if (!at.decomposed()) return traces;
  return at.group().merge(traces, op.receivers.id, static_cast<int>(shot.receivers.size()), op.nt);
}

ShotOperator shot_operator(const RunPlan& p, const Shot& s, const Placement& at) {
  ShotOperator op;
  if (const RankDomain* d = at.domain()) {
    op.sources = make_points(p.grid, p.spec, {s.source}, p.config.source.injection,
                             PointRole::kSource, d->sub, d->spec.layout);
    op.receivers = make_points(p.grid, p.spec, s.receivers, p.config.receivers.interpolation,
                               PointRole::kReceiver, d->sub, d->spec.layout);
    op.exchange = at.exchange.get();
  } else {
    op.sources =
        make_points(p.grid, p.spec, {s.source}, p.config.source.injection, PointRole::kSource);
    op.receivers = make_points(p.grid, p.spec, s.receivers, p.config.receivers.interpolation,
                               PointRole::kReceiver);
  }
  // A rank without the source injects nothing.
  if (op.sources.count() > 0) op.wavelet = p.wavelet;
  op.nt = p.nt;
  op.dt = p.dt;
  return op;
}

// What a report says of the ranks (absent for one rank).
void report_ranks(nlohmann::json& rep, const Placement& at) {
  if (at.launch()) rep["parallel"] = parallel_report(at.world, at.ranks, at.exchange.get());
}

}  // namespace seisfd
