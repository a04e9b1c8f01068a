#include "solver/halo.hpp"

#include "kernels/cuda_backend.hpp"

namespace seisfd {

MpiHaloExchange::MpiHaloExchange(parallel::Comm comm, const Subdomain& sub, const StepSpec& local,
                                 int halo)
    : comm_(std::move(comm)), sub_(sub) {
  const int n[3] = {local.layout.nz, local.layout.ny, local.layout.nx};
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      if (sub.neighbour[2 * a + side] < 0) continue;
      Box send, recv;
      for (int b = 0; b < 3; ++b) {
        send.lo[b] = recv.lo[b] = 0;
        send.hi[b] = recv.hi[b] = n[b];
      }
      if (side == 0) {
        send.lo[a] = local.begin[a];
        send.hi[a] = local.begin[a] + halo;
        recv.lo[a] = local.begin[a] - halo;
        recv.hi[a] = local.begin[a];
      } else {
        send.lo[a] = local.end[a] - halo;
        send.hi[a] = local.end[a];
        recv.lo[a] = local.end[a];
        recv.hi[a] = local.end[a] + halo;
      }
      send_[a][side] = {send};
      recv_[a][side] = {recv};
    }
}

template <class T>
void MpiHaloExchange::exchange_as(WaveState& s, int fields, std::vector<T>& out,
                                  std::vector<T>& in) {
  for (int a = 0; a < 3; ++a)
    for (int f = 0; f < fields; ++f) {
      const FieldRef ref{f, Level::kCurrent};
      // Towards lo then towards hi: each pair of calls matches along the whole row of ranks.
      for (int side = 0; side < 2; ++side) {
        const int to = sub_.neighbour[2 * a + side];
        const int from = sub_.neighbour[2 * a + (1 - side)];
        if (to < 0 && from < 0) continue;
        out.clear();
        if (to >= 0) s.read_boxes(ref, send_[a][side], out);
        in.assign(from >= 0 ? static_cast<size_t>(recv_[a][1 - side][0].cells()) : 0, T(0));
        comm_.sendrecv(out.data(), out.size() * sizeof(T), to, in.data(), in.size() * sizeof(T),
                       from, 100 + 2 * a + side);
        bytes_ += static_cast<long long>(out.size() * sizeof(T));
        if (from >= 0) s.write_boxes(ref, recv_[a][1 - side], in);
      }
    }
}

void MpiHaloExchange::exchange(WaveState& s, int fields) {
  if (s.element_bytes() == 8)
    exchange_as(s, fields, out64_, in64_);
  else
    exchange_as(s, fields, out32_, in32_);
}

Exchange resolve_exchange(Exchange asked, Backend backend, const parallel::Comm& group,
                          const std::string& source) {
  const bool gpu = backend == Backend::kCuda;
  if ((asked == Exchange::kPeer || asked == Exchange::kNccl) && !gpu)
    throw ConfigError("parallel.exchange",
                      std::string("\"") + to_string(asked) +
                          "\" moves GPU memory between ranks; this run computes on the cpu (use "
                          "\"mpi\" or \"auto\")",
                      source);
  if (asked == Exchange::kNccl && !nccl_built())
    throw ConfigError("parallel.exchange",
                      "\"nccl\": this seisfd was built without NCCL (install NCCL's development "
                      "files and rebuild, or use \"peer\" or \"mpi\")",
                      source);
  if (asked == Exchange::kPeer || asked == Exchange::kNccl) return asked;
  if (asked == Exchange::kAuto && gpu && group.size() > 1) {
    if (group.node().size() == group.size()) return Exchange::kPeer;
    if (nccl_built()) return Exchange::kNccl;
  }
  return Exchange::kMpi;
}

bool through_host(Exchange resolved) {
  return resolved == Exchange::kMpi && parallel::cuda_aware_mpi() != "yes";
}

std::unique_ptr<HaloExchange> make_halo_exchange(Exchange resolved, const parallel::Comm& group,
                                                 const RankDomain& d, Engine& engine,
                                                 bool overlap) {
  if (group.size() == 1) return nullptr;
  const bool gpu = engine.context().stream != nullptr;  // a CUDA engine
  if (!gpu && (resolved == Exchange::kPeer || resolved == Exchange::kNccl))
    throw std::logic_error(std::string("halo exchange: \"") + to_string(resolved) +
                           "\" for an engine that does not compute on a GPU");
  if (!gpu) return std::make_unique<MpiHaloExchange>(group, d.sub, d.spec, d.halo);
  HaloLink link;
  link.neighbour = d.sub.neighbour;
  link.halo = d.halo;
  link.rank = group.rank();
  link.size = group.size();
  link.exchange = [group](const std::vector<RankMessage>& sends,
                          const std::vector<RankMessage>& recvs) { group.exchange(sends, recvs); };
  link.broadcast = [group](void* data, size_t bytes, int root) {
    group.broadcast(data, bytes, root);
  };
  link.share_host = [group](size_t bytes) { return group.share_host(bytes); };
  std::unique_ptr<HaloExchange> x;
  if (resolved == Exchange::kPeer)
    x = make_cuda_peer_exchange(engine, link);
  else if (resolved == Exchange::kNccl)
    x = make_cuda_transport_exchange(engine, link, DeviceTransport::kNccl);
  else
    x = make_cuda_transport_exchange(
        engine, link,
        through_host(resolved) ? DeviceTransport::kMpiStaged : DeviceTransport::kMpiDevice);
  x->overlap = overlap;
  return x;
}

}  // namespace seisfd
