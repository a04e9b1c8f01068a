// parallel::Comm's rounds of messages and byte broadcasts over real ranks (the GPU exchanges'
// MPI path and NCCL's set-up use them): run under mpirun with 2 or more ranks.
//
//   mpirun -np N comm_ranks
//
// Each rank sends a message of its own to both ring neighbours in one round (every receive and
// send posted at once: sizes differing by direction, one tag a direction, a message to itself
// where the ring has 1 rank), and checks what arrived; then rank N-1 broadcasts 128 bytes; then
// the ranks share host segments (Comm::share_host) and each reads the others'.
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
  // Node-shared host segments (the staged GPU exchange's faces between ranks of a node): every
  // rank fills its own segment, then reads each other rank's through its own mapping; the
  // segments lie in the region (what the GPU exchange pins) and do not overlap.
  {
    const size_t count = 3000 + 10 * me;  // not whole pages: rounded up by share_host
    const auto seg = world.share_host(count * sizeof(int) * (me == 0 ? 2 : 1));
    if (static_cast<int>(seg->of.size()) != n || seg->of[me] != seg->own) {
      std::fprintf(stderr, "rank %d: share_host lists %zu ranks, its own at another address\n", me,
                   seg->of.size());
      ++failures;
    }
    int* own = static_cast<int*>(seg->own);
    for (size_t i = 0; i < count; ++i) own[i] = me * 100000 + static_cast<int>(i);
    world.barrier();
    const auto* lo = static_cast<const unsigned char*>(seg->region);
    for (int r = 0; r < n; ++r) {
      const int* theirs = static_cast<const int*>(seg->of[r]);
      if (!theirs) continue;  // another node
      const size_t c = 3000 + 10 * r;
      const auto* b = reinterpret_cast<const unsigned char*>(theirs);
      if (b < lo || b + c * sizeof(int) > lo + seg->region_bytes) {
        std::fprintf(stderr, "rank %d: rank %d's segment outside the region\n", me, r);
        ++failures;
      }
      for (size_t i = 0; i < c; ++i)
        if (theirs[i] != r * 100000 + static_cast<int>(i)) {
          std::fprintf(stderr, "rank %d: rank %d's shared element %zu is %d\n", me, r, i,
                       theirs[i]);
          ++failures;
          break;
        }
    }
    world.barrier();  // nobody frees (collectively, below) while another still reads
  }

  const long long all = world.sum(static_cast<long long>(failures));
  if (me == 0)
    std::printf(
        "comm_ranks: %d ranks, a round of ring messages, a broadcast and node-shared host "
        "segments: %lld failures\n",
        n, all);
  return failures;
}
