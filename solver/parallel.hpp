// The ranks of an MPI launch (docs/parallel.md), behind a small interface so that nothing else
// includes mpi.h. seisfd starts MPI only when an MPI launcher started it (mpirun, srun: their
// environment says so); otherwise, and in a build without MPI, the world is one rank and every
// collective is the identity.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/rank_message.hpp"

namespace seisfd::parallel {

bool mpi_built();
// Whether the MPI library takes device pointers (CUDA-aware), as it says of itself: "yes", or
// "no (...)"/"unknown (...)" with the reason. The `mpi` exchange stages through host memory
// either way.
std::string cuda_aware_mpi();
// True when the process was started by an MPI launcher (checked before MPI is initialised).
bool launched_by_mpi();

// MPI_Init / MPI_Finalize for the process's lifetime, where launched_by_mpi().
class Session {
 public:
  Session(int* argc, char*** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

class Comm {
 public:
  Comm();  // a world of one rank
  ~Comm();
  Comm(const Comm&);
  Comm& operator=(const Comm&);

  // MPI_COMM_WORLD after a Session started MPI, else one rank.
  static Comm world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  // Ranks with the same colour, ordered by key (MPI_Comm_split).
  Comm split(int colour, int key) const;
  // The ranks of this one on the same node (MPI_Comm_split_type shared).
  Comm node() const;

  void barrier() const;
  // A barrier that sleeps while it waits (a millisecond between tests) instead of spinning: for
  // ranks that wait while others compute on the same cores.
  void idle_barrier() const;
  double sum(double v) const;
  double max(double v) const;
  long long sum(long long v) const;
  long long min(long long v) const;
  bool any(bool v) const;
  // v summed element by element onto `root` (the others' v is left as it was).
  void sum_to(std::vector<double>& v, int root) const;
  void broadcast(std::vector<double>& v, int root) const;
  void broadcast(int& v, int root) const;
  void broadcast(void* data, size_t bytes, int root) const;
  // The pieces of every rank, concatenated in rank order, on `root` (empty elsewhere).
  std::vector<float> gather(const std::vector<float>& piece, int root) const;

  // Sends `send` to `to` while receiving `recv` (its size fixed by the caller) from `from`;
  // -1 for either: nothing that way.
  void sendrecv(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes,
                int from, int tag) const;
  // Every receive and send posted at once, then all awaited (MPI_Irecv, MPI_Isend,
  // MPI_Waitall): one round of messages with several neighbours.
  using Message = RankMessage;
  void exchange(const std::vector<Message>& sends, const std::vector<Message>& recvs) const;
  // Point to point, blocking.
  void send(const void* data, size_t bytes, int to, int tag) const;
  void recv(void* data, size_t bytes, int from, int tag) const;
  // Messages of doubles that need not be awaited: post() sends without blocking (the buffer is
  // kept until sent; finish_posts() waits for all); poll() receives one with `tag` from any rank
  // if one has arrived, receive() waits for one.
  void post(std::vector<double> data, int to, int tag);
  void finish_posts();
  bool poll(int tag, std::vector<double>& out) const;
  std::vector<double> receive(int tag) const;

  // Host memory shared with the ranks of this node: a segment of `bytes` each (rounded up to
  // whole pages), every node-local rank's segment addressable here (MPI_Win_allocate_shared over
  // node()). Collective; so is the release, when the last copy of the result goes.
  std::shared_ptr<SharedHostSegments> share_host(size_t bytes) const;

  // A shared counter on rank 0 of this communicator: the value before adding 1 (MPI one-sided
  // fetch-and-add on a window made by make_counter, collectively).
  void make_counter();
  long long fetch_add() const;
  // Lets MPI make progress on what other ranks asked of this one (an MPI_Iprobe): an MPI
  // without asynchronous progress (OpenMPI's osc pt2pt, and the device machine's OpenMPI)
  // serves a fetch_add on this rank's counter only inside an MPI call here, and moves a large
  // posted message only inside MPI calls of its sender: the ranks of a launch of shot groups
  // call this while they compute a shot (Engine::set_poll).
  void progress() const;

  // Ends every rank of the launch with `code` (MPI_Abort); exit(code) without MPI.
  [[noreturn]] void abort(int code) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1;
};

}  // namespace seisfd::parallel
