// parallel::Comm's rounds of messages and byte broadcasts over real ranks (the GPU exchanges'
// MPI path and NCCL's set-up use them): run under mpirun with 2 or more ranks.
//
//   mpirun -np N comm_ranks
//
// Each rank sends a message of its own to both ring neighbours in one round (every receive and
// send posted at once: sizes differing by direction, one tag a direction, a message to itself
// where the ring has 1 rank), and checks what arrived; then rank N-1 broadcasts 128 bytes.
// Rank 0 prints one line; the exit status is the number of failures on this rank.
#include <cstdio>
#include <cstring>
#include <vector>

#include "solver/parallel.hpp"

namespace {

// The values rank `from` sends towards `dir` (0: to the rank below, 1: above): its number and
// direction in every element, a length that differs by direction so a mix-up shows.
std::vector<int> message(int from, int dir) {
  return std::vector<int>(1000 + 17 * dir + from, from * 10 + dir);
}

}  // namespace

int main(int argc, char** argv) {
  using seisfd::parallel::Comm;
  seisfd::parallel::Session session(&argc, &argv);
  const Comm world = Comm::world();
  const int n = world.size(), me = world.rank();
  const int below = (me + n - 1) % n, above = (me + 1) % n;
  int failures = 0;

  // To `below` what goes downwards (dir 0), to `above` upwards (dir 1); from `above` what it
  // sent downwards, from `below` what it sent upwards.
  std::vector<int> down = message(me, 0), up = message(me, 1);
  std::vector<int> from_above(message(above, 0).size(), -1);
  std::vector<int> from_below(message(below, 1).size(), -1);
  world.exchange({{down.data(), down.size() * sizeof(int), below, 10},
                  {up.data(), up.size() * sizeof(int), above, 11}},
                 {{from_above.data(), from_above.size() * sizeof(int), above, 10},
                  {from_below.data(), from_below.size() * sizeof(int), below, 11}});
  if (from_above != message(above, 0)) {
    std::fprintf(stderr, "rank %d: wrong message from rank %d above\n", me, above);
    ++failures;
  }
  if (from_below != message(below, 1)) {
    std::fprintf(stderr, "rank %d: wrong message from rank %d below\n", me, below);
    ++failures;
  }

  unsigned char bytes[128];
  for (int i = 0; i < 128; ++i) bytes[i] = static_cast<unsigned char>(me == n - 1 ? 255 - i : 0);
  world.broadcast(bytes, sizeof bytes, n - 1);
  for (int i = 0; i < 128; ++i)
    if (bytes[i] != static_cast<unsigned char>(255 - i)) {
      std::fprintf(stderr, "rank %d: broadcast byte %d is %d\n", me, i, bytes[i]);
      ++failures;
      break;
    }
  const long long all = world.sum(static_cast<long long>(failures));
  if (me == 0)
    std::printf("comm_ranks: %d ranks, a round of ring messages and a broadcast: %lld failures\n",
                n, all);
  return failures;
}
