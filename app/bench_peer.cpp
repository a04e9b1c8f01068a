// `seisfd bench --peer` (docs/parallel.md §7): the copy bandwidth of each visible GPU and between
// each pair of them, the numbers a node's peer halo exchange and the scaling model stand on.
// A table on stdout; <stamp>_<device>_peer.csv and .json in --out.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "bench/harness/harness.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd::app {
namespace {

constexpr size_t kOwnBytes = size_t(1) << 30;     // each device's own copy
constexpr size_t kPeerBytes = size_t(256) << 20;  // between two devices

struct PairRow {
  int a = 0, b = 0;
  bench::PeerBandwidth bw;
};

}  // namespace

int cmd_bench_peer(const BenchArgs& a) {
  const std::vector<DeviceInfo> devices = cuda_devices();
  if (devices.empty()) {
    std::fprintf(stderr, "seisfd: error: bench --peer needs CUDA devices; %s\n",
                 cuda_built() ? "none is visible" : "this seisfd was built without CUDA");
    return 1;
  }
  try {
    const int n = static_cast<int>(devices.size());
    std::vector<double> own(n);
    std::printf("%-3s %-28s %12s\n", "gpu", "name", "copy GB/s");
    for (int d = 0; d < n; ++d) {
      own[d] = bench::copy_bandwidth_on(d, kOwnBytes, a.repeats);
      std::printf("%-3d %-28s %12.0f\n", d, devices[d].name.c_str(), own[d]);
    }
    std::vector<PairRow> pairs;
    if (n > 1)
      std::printf("\n%-7s %-6s %14s %16s   (%zu MiB copies, median of %d)\n", "pair", "peer",
                  "one way GB/s", "both ways GB/s", kPeerBytes >> 20, a.repeats);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        PairRow r{i, j, bench::peer_bandwidth(i, j, kPeerBytes, a.repeats)};
        std::printf("%d-%-5d %-6s %14.1f %16.1f\n", i, j, r.bw.peer_access ? "yes" : "no",
                    r.bw.one_way_gbps, r.bw.both_ways_gbps);
        pairs.push_back(r);
      }
    if (n == 1) std::printf("(one device: no pairs to measure)\n");
    if (a.no_files) return 0;
    namespace fs = std::filesystem;
    fs::create_directories(a.out);
    const std::string base = (fs::path(a.out) / (now_stamp() + "_" + std::to_string(n) + "x" +
                                                 slug(devices[0].name) + "_peer"))
                                 .string();
    std::ofstream csv(base + ".csv");
    csv << "# seisfd bench --peer: device-to-device copy (read + write bytes per s) of each GPU, "
           "and cudaMemcpyPeerAsync between each pair (bytes moved per s; both ways = the sum "
           "of two copies at once)\n"
        << "a,b,peer_access,one_way_gb_per_s,both_ways_gb_per_s,copy_gb_per_s_a,copy_gb_per_s_b\n";
    nlohmann::json j;
    for (int d = 0; d < n; ++d)
      j["devices"].push_back({{"id", d}, {"name", devices[d].name}, {"copy_gb_per_s", own[d]}});
    for (const auto& r : pairs) {
      csv << r.a << "," << r.b << "," << (r.bw.peer_access ? 1 : 0) << "," << r.bw.one_way_gbps
          << "," << r.bw.both_ways_gbps << "," << own[r.a] << "," << own[r.b] << "\n";
      j["pairs"].push_back({{"a", r.a},
                            {"b", r.b},
                            {"peer_access", r.bw.peer_access},
                            {"one_way_gb_per_s", r.bw.one_way_gbps},
                            {"both_ways_gb_per_s", r.bw.both_ways_gbps}});
    }
    j["settings"] = {{"peer_bytes", kPeerBytes}, {"own_bytes", kOwnBytes}, {"repeats", a.repeats}};
    std::ofstream(base + ".json") << j.dump(2) << "\n";
    std::printf("wrote %s.csv and .json\n", base.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seisfd: error: bench --peer: %s\n", e.what());
    return 1;
  }
}

}  // namespace seisfd::app
