// Shot groups: the shots of a launch handed out to its groups and their results brought to
// rank 0 (solver/run_ranks.hpp run_shots), and the MPI progress the ranks make meanwhile.
#include <chrono>
#include <functional>
#include <vector>

#include "solver/parallel.hpp"
#include "solver/ranks.hpp"
#include "solver/report.hpp"
#include "solver/run_ranks.hpp"

namespace seisfd {
namespace {

constexpr int kShotTag = 7001;

}  // namespace

ShotTimes run_shots(parallel::Comm& world, const RankLayout& ranks, int nshots,
                    const std::function<std::vector<double>(int k)>& run,
                    const std::function<void(int k, std::vector<double> message)>& take) {
  const parallel::Comm& group = ranks.group->comm();
  const bool writer = world.root(), leader = group.root();
  parallel::Comm counter = world;
  if (ranks.group_size < world.size()) counter.make_counter();
  int taken = 0;
  ShotTimes times;
  using clock = std::chrono::steady_clock;
  // A message: the shot, then what run returned.
  const auto take_message = [&](std::vector<double> m) {
    const auto t0 = clock::now();
    const int k = static_cast<int>(m[0]);
    m.erase(m.begin());
    take(k, std::move(m));
    ++taken;
    times.taking += seconds_since(t0);
  };
  bool first = true;
  int next_serial = 0;
  for (;;) {
    int k;
    if (ranks.group_size == world.size()) {
      k = next_serial++;
    } else {
      k = first && ranks.group_index == 0 ? 0 : -1;
      if (k < 0 && leader) {
        const auto t0 = clock::now();
        k = static_cast<int>(counter.fetch_add()) + 1;
        times.waited += seconds_since(t0);
      }
      group.broadcast(k, 0);
    }
    first = false;
    if (k >= nshots) break;
    const auto t0 = clock::now();
    std::vector<double> m = run(k);
    times.running += seconds_since(t0);
    if (!leader) continue;
    m.insert(m.begin(), double(k));
    if (writer) {
      take_message(std::move(m));
      std::vector<double> in;
      while (world.poll(kShotTag, in)) take_message(std::move(in));
    } else {
      world.post(std::move(m), 0, kShotTag);
    }
  }
  if (writer)
    while (taken < nshots) {
      const auto t0 = clock::now();
      std::vector<double> m = world.receive(kShotTag);
      times.taking += seconds_since(t0);
      take_message(std::move(m));
    }
  world.finish_posts();
  return times;
}

void poll_while_computing(Engine& e, const parallel::Comm& world, const RankLayout& ranks) {
  if (ranks.group_size < world.size()) e.set_poll([world] { world.progress(); });
}

}  // namespace seisfd
