#include "solver/parallel.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>

#if SEISFD_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif

namespace seisfd::parallel {
bool mpi_built() {
  return SEISFD_HAVE_MPI != 0;
}

std::string cuda_aware_mpi() {
#if SEISFD_HAVE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  int started = 0;
  MPI_Initialized(&started);
  if (!started) return "built in (whether it works is known once MPI starts)";
  return MPIX_Query_cuda_support() ? "yes" : "no (built in, but off at run time)";
#elif SEISFD_HAVE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT)
  return "no (the MPI library was built without it)";
#elif SEISFD_HAVE_MPI
  return "unknown (the MPI library does not say)";
#else
  return "no (built without MPI)";
#endif
}

bool launched_by_mpi() {
  // OpenMPI's mpirun, PMI-1/2 and PMIx launchers (srun, MPICH's hydra).
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

namespace {

size_t whole_pages(size_t bytes) {
  constexpr size_t kPage = 4096;
  return (bytes + kPage - 1) / kPage * kPage;
}

// share_host of a world of one rank: its own memory.
std::shared_ptr<SharedHostSegments> own_segment(size_t bytes) {
  struct Own final : SharedHostSegments {
    std::vector<unsigned char> data;
  };
  auto s = std::make_shared<Own>();
  s->data.resize(bytes);
  s->own = s->region = s->data.data();
  s->region_bytes = bytes;
  s->of = {s->own};
  return s;
}

}  // namespace

#if SEISFD_HAVE_MPI

namespace {

bool g_started = false;  // MPI_Init ran (Session)

}  // namespace

struct Comm::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<std::vector<double>> posted;
  std::vector<MPI_Request> requests;
  MPI_Win window = MPI_WIN_NULL;
  long long* counter = nullptr;
  bool owned = false;
  ~Impl() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (window != MPI_WIN_NULL) MPI_Win_free(&window);
    if (owned && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, len));
}

// A message's size as MPI counts bytes (an int).
int message_count(size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("MPI: a message of " + std::to_string(bytes) +
                             " bytes is larger than one MPI call sends");
  return static_cast<int>(bytes);
}

}  // namespace

Session::Session(int* argc, char*** argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as codes, turned into exceptions that end the launch with a message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  g_started = true;
}

Session::~Session() {
  if (g_started) MPI_Finalize();
}

Comm::Comm() = default;
Comm::~Comm() = default;
Comm::Comm(const Comm&) = default;
Comm& Comm::operator=(const Comm&) = default;

Comm Comm::world() {
  Comm c;
  if (!g_started) return c;
  c.impl_ = std::make_shared<Impl>();
  c.impl_->comm = MPI_COMM_WORLD;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
  return c;
}

Comm Comm::split(int colour, int key) const {
  if (!impl_) return Comm();
  Comm c;
  c.impl_ = std::make_shared<Impl>();
  check(MPI_Comm_split(impl_->comm, colour, key, &c.impl_->comm), "MPI_Comm_split");
  c.impl_->owned = true;
  MPI_Comm_rank(c.impl_->comm, &c.rank_);
  MPI_Comm_size(c.impl_->comm, &c.size_);
  return c;
}

Comm Comm::node() const {
  if (!impl_) return Comm();
  Comm c;
  c.impl_ = std::make_shared<Impl>();
  check(
      MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &c.impl_->comm),
      "MPI_Comm_split_type");
  c.impl_->owned = true;
  MPI_Comm_rank(c.impl_->comm, &c.rank_);
  MPI_Comm_size(c.impl_->comm, &c.size_);
  return c;
}

void Comm::barrier() const {
  if (impl_) check(MPI_Barrier(impl_->comm), "MPI_Barrier");
}

void Comm::idle_barrier() const {
  if (!impl_) return;
  MPI_Request r;
  check(MPI_Ibarrier(impl_->comm, &r), "MPI_Ibarrier");
  for (int done = 0;;) {
    check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

namespace {

// v reduced over every rank of `comm` with `op`, in place.
template <class T>
T all_reduce(MPI_Comm comm, T v, MPI_Datatype type, MPI_Op op) {
  check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, type, op, comm), "MPI_Allreduce");
  return v;
}

}  // namespace

double Comm::sum(double v) const {
  return impl_ ? all_reduce(impl_->comm, v, MPI_DOUBLE, MPI_SUM) : v;
}
double Comm::max(double v) const {
  return impl_ ? all_reduce(impl_->comm, v, MPI_DOUBLE, MPI_MAX) : v;
}
long long Comm::sum(long long v) const {
  return impl_ ? all_reduce(impl_->comm, v, MPI_LONG_LONG, MPI_SUM) : v;
}
long long Comm::min(long long v) const {
  return impl_ ? all_reduce(impl_->comm, v, MPI_LONG_LONG, MPI_MIN) : v;
}
bool Comm::any(bool v) const {
  return impl_ ? all_reduce(impl_->comm, v ? 1 : 0, MPI_INT, MPI_MAX) != 0 : v;
}

void Comm::sum_to(std::vector<double>& v, int root) const {
  if (!impl_) return;
  const int n = static_cast<int>(v.size());
  if (rank_ == root)
    check(MPI_Reduce(MPI_IN_PLACE, v.data(), n, MPI_DOUBLE, MPI_SUM, root, impl_->comm),
          "MPI_Reduce");
  else
    check(MPI_Reduce(v.data(), nullptr, n, MPI_DOUBLE, MPI_SUM, root, impl_->comm), "MPI_Reduce");
}

void Comm::broadcast(std::vector<double>& v, int root) const {
  if (!impl_) return;
  int n = static_cast<int>(v.size());
  check(MPI_Bcast(&n, 1, MPI_INT, root, impl_->comm), "MPI_Bcast");
  v.resize(n);
  check(MPI_Bcast(v.data(), n, MPI_DOUBLE, root, impl_->comm), "MPI_Bcast");
}

void Comm::broadcast(int& v, int root) const {
  if (impl_) check(MPI_Bcast(&v, 1, MPI_INT, root, impl_->comm), "MPI_Bcast");
}

void Comm::broadcast(void* data, size_t bytes, int root) const {
  if (impl_) check(MPI_Bcast(data, message_count(bytes), MPI_BYTE, root, impl_->comm), "MPI_Bcast");
}

std::vector<float> Comm::gather(const std::vector<float>& piece, int root) const {
  if (!impl_) return piece;
  int n = static_cast<int>(piece.size());
  std::vector<int> counts(rank_ == root ? size_ : 0), offsets;
  check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, impl_->comm), "MPI_Gather");
  std::vector<float> all;
  if (rank_ == root) {
    offsets.resize(size_);
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = static_cast<int>(total);
      total += counts[r];
    }
    all.resize(total);
  }
  check(MPI_Gatherv(piece.data(), n, MPI_FLOAT, all.data(), counts.data(), offsets.data(),
                    MPI_FLOAT, root, impl_->comm),
        "MPI_Gatherv");
  return all;
}

void Comm::sendrecv(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes,
                    int from, int tag) const {
  if (!impl_) return;
  check(MPI_Sendrecv(send, message_count(send_bytes), MPI_BYTE, to < 0 ? MPI_PROC_NULL : to, tag,
                     recv, message_count(recv_bytes), MPI_BYTE, from < 0 ? MPI_PROC_NULL : from,
                     tag, impl_->comm, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

void Comm::exchange(const std::vector<Message>& sends, const std::vector<Message>& recvs) const {
  if (!impl_) return;
  std::vector<MPI_Request> r(sends.size() + recvs.size(), MPI_REQUEST_NULL);
  size_t k = 0;
  for (const Message& m : recvs)
    check(MPI_Irecv(m.data, message_count(m.bytes), MPI_BYTE, m.peer, m.tag, impl_->comm, &r[k++]),
          "MPI_Irecv");
  for (const Message& m : sends)
    check(MPI_Isend(m.data, message_count(m.bytes), MPI_BYTE, m.peer, m.tag, impl_->comm, &r[k++]),
          "MPI_Isend");
  check(MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void Comm::send(const void* data, size_t bytes, int to, int tag) const {
  if (impl_)
    check(MPI_Send(data, message_count(bytes), MPI_BYTE, to, tag, impl_->comm), "MPI_Send");
}

void Comm::recv(void* data, size_t bytes, int from, int tag) const {
  if (impl_)
    check(MPI_Recv(data, message_count(bytes), MPI_BYTE, from, tag, impl_->comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
}

void Comm::post(std::vector<double> data, int to, int tag) {
  if (!impl_) return;
  impl_->posted.push_back(std::move(data));
  const std::vector<double>& d = impl_->posted.back();
  MPI_Request r;
  check(MPI_Isend(d.data(), static_cast<int>(d.size()), MPI_DOUBLE, to, tag, impl_->comm, &r),
        "MPI_Isend");
  impl_->requests.push_back(r);
}

void Comm::finish_posts() {
  if (!impl_ || impl_->requests.empty()) return;
  check(MPI_Waitall(static_cast<int>(impl_->requests.size()), impl_->requests.data(),
                    MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  impl_->requests.clear();
  impl_->posted.clear();
}

namespace {

std::vector<double> receive_probed(MPI_Comm comm, const MPI_Status& st) {
  int n = 0;
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  std::vector<double> out(n);
  check(MPI_Recv(out.data(), n, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return out;
}

}  // namespace

bool Comm::poll(int tag, std::vector<double>& out) const {
  if (!impl_) return false;
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, tag, impl_->comm, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  out = receive_probed(impl_->comm, st);
  return true;
}

std::vector<double> Comm::receive(int tag) const {
  if (!impl_) throw std::logic_error("Comm::receive on a world of one rank");
  MPI_Status st;
  check(MPI_Probe(MPI_ANY_SOURCE, tag, impl_->comm, &st), "MPI_Probe");
  return receive_probed(impl_->comm, st);
}

void Comm::make_counter() {
  if (!impl_) return;
  const MPI_Aint bytes = rank_ == 0 ? sizeof(long long) : 0;
  check(MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, impl_->comm, &impl_->counter,
                         &impl_->window),
        "MPI_Win_allocate");
  if (rank_ == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, impl_->window);
    *impl_->counter = 0;
    MPI_Win_unlock(0, impl_->window);
  }
  barrier();
}

long long Comm::fetch_add() const {
  if (!impl_) return 0;
  const long long one = 1;
  long long before = 0;
  check(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, impl_->window), "MPI_Win_lock");
  check(MPI_Fetch_and_op(&one, &before, MPI_LONG_LONG, 0, 0, MPI_SUM, impl_->window),
        "MPI_Fetch_and_op");
  check(MPI_Win_unlock(0, impl_->window), "MPI_Win_unlock");
  return before;
}

namespace {

// An MPI shared-memory window over a node's ranks and its communicator, freed together.
struct WindowSegments final : SharedHostSegments {
  Comm node;  // freed after the window
  MPI_Win win = MPI_WIN_NULL;
  ~WindowSegments() override {
    // The release is collective: a rank unwinding from an error would wait in it for ranks that
    // never come, instead of reaching the MPI_Abort that ends them all; its memory goes with the
    // process.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized || std::uncaught_exceptions() > 0) return;
    if (win != MPI_WIN_NULL) MPI_Win_free(&win);
  }
};

}  // namespace

std::shared_ptr<SharedHostSegments> Comm::share_host(size_t bytes) const {
  bytes = whole_pages(bytes);
  if (!impl_) return own_segment(bytes);
  auto s = std::make_shared<WindowSegments>();
  s->node = node();
  const MPI_Comm on = s->node.impl_->comm;
  check(
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, on, &s->own, &s->win),
      "MPI_Win_allocate_shared");
  // This communicator's ranks as ranks of the node (MPI_UNDEFINED: elsewhere).
  MPI_Group mine, node;
  MPI_Comm_group(impl_->comm, &mine);
  MPI_Comm_group(on, &node);
  std::vector<int> ranks(size_), on_node(size_);
  for (int r = 0; r < size_; ++r) ranks[r] = r;
  MPI_Group_translate_ranks(mine, size_, ranks.data(), node, on_node.data());
  MPI_Group_free(&mine);
  MPI_Group_free(&node);
  s->of.assign(size_, nullptr);
  auto* lo = static_cast<unsigned char*>(nullptr);
  auto* hi = lo;
  for (int n = 0; n < s->node.size(); ++n) {
    MPI_Aint size = 0;
    int unit = 0;
    void* base = nullptr;
    check(MPI_Win_shared_query(s->win, n, &size, &unit, &base), "MPI_Win_shared_query");
    auto* b = static_cast<unsigned char*>(base);
    if (size > 0 && (!lo || b < lo)) lo = b;
    if (size > 0 && (!hi || b + size > hi)) hi = b + size;
    for (int r = 0; r < size_; ++r)
      if (on_node[r] == n) s->of[r] = base;
  }
  s->region = lo;
  s->region_bytes = static_cast<size_t>(hi - lo);
  return s;
}

void Comm::progress() const {
  if (!impl_) return;
  // A probe for a tag no message carries: OpenMPI answers a probe that matches a message
  // already arrived (a group's finished shot, waiting for rank 0 to take it) without driving
  // its progress engine, so a probe for any tag would starve the counter's requests.
  constexpr int kNoMessageTag = 32000;
  int flag = 0;
  check(MPI_Iprobe(MPI_ANY_SOURCE, kNoMessageTag, impl_->comm, &flag, MPI_STATUS_IGNORE),
        "MPI_Iprobe");
}

void Comm::abort(int code) const {
  if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else  // a build without MPI: one rank

struct Comm::Impl {
  long long counter = 0;
};

// Launched as one of several ranks by a build that cannot talk to them: every rank would run the
// whole job into the same files.
Session::Session(int*, char***) {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* n = std::getenv(v); n && std::atoi(n) > 1) {
      std::fprintf(stderr,
                   "seisfd: error: launched as one of %s ranks, but this seisfd was built without "
                   "MPI (SEISFD_MPI); run it without mpirun, or build it with libopenmpi-dev\n",
                   n);
      std::exit(2);
    }
}
Session::~Session() = default;
Comm::Comm() = default;
Comm::~Comm() = default;
Comm::Comm(const Comm&) = default;
Comm& Comm::operator=(const Comm&) = default;
Comm Comm::world() {
  return Comm();
}
Comm Comm::split(int, int) const {
  return Comm();
}
Comm Comm::node() const {
  return Comm();
}
void Comm::barrier() const {}
void Comm::idle_barrier() const {}
double Comm::sum(double v) const {
  return v;
}
double Comm::max(double v) const {
  return v;
}
long long Comm::sum(long long v) const {
  return v;
}
long long Comm::min(long long v) const {
  return v;
}
bool Comm::any(bool v) const {
  return v;
}
void Comm::sum_to(std::vector<double>&, int) const {}
void Comm::broadcast(std::vector<double>&, int) const {}
void Comm::broadcast(int&, int) const {}
void Comm::broadcast(void*, size_t, int) const {}
void Comm::exchange(const std::vector<Message>&, const std::vector<Message>&) const {}
std::vector<float> Comm::gather(const std::vector<float>& piece, int) const {
  return piece;
}
void Comm::sendrecv(const void*, size_t, int, void*, size_t, int, int) const {}
void Comm::send(const void*, size_t, int, int) const {}
void Comm::recv(void*, size_t, int, int) const {}
void Comm::post(std::vector<double>, int, int) {}
void Comm::finish_posts() {}
bool Comm::poll(int, std::vector<double>&) const {
  return false;
}
std::vector<double> Comm::receive(int) const {
  throw std::logic_error("Comm::receive on a world of one rank");
}
void Comm::make_counter() {
  impl_ = std::make_shared<Impl>();
}
long long Comm::fetch_add() const {
  return impl_ ? impl_->counter++ : 0;
}
void Comm::progress() const {}
void Comm::abort(int code) const {
  std::exit(code);
}
std::shared_ptr<SharedHostSegments> Comm::share_host(size_t bytes) const {
  return own_segment(whole_pages(bytes));
}

#endif

}  // namespace seisfd::parallel
