// `seisfd bench`: times registry variants against the streaming ceiling (docs/benchmarks.md).
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace seisfd::app {

struct BenchArgs {
  std::vector<std::string> variants{"*"};  // names or globs; without '/', matched to technique
  std::vector<std::string> physics{"acoustic"};  // acoustic, vti, tti
  std::vector<int> orders{8};
  std::vector<int> sizes{256};  // interior cells per axis
  int sponge = 20;
  int steps = 20;
  int repeats = 7;
  int warmup = 3;
  int verify_size = 37;
  std::string fields = "hash";  // acoustic wavefields while timing: hash or zero
  std::string out = "bench/results";
  bool no_files = false;
  bool imaging = false;          // also time the migration's adjoint step with its imaging
  std::string backend = "auto";  // cuda, cpu, or auto (cuda where a device is found)
  std::string scaling;           // weak or strong: whole decomposed runs instead of kernels
  bool peer = false;             // copy bandwidth of each GPU and between each pair instead
  // kernel.model_precision values: each VTI/TTI variant that reads a compact medium is also timed
  // (and verified) with its medium in each of these, as <variant>@<precision> rows.
  std::vector<std::string> model_precisions{"fp32"};
  // physics.tti_operator of the TTI rows (narrow or nested; nested rows say "tti/nested").
  std::string tti_operator = "narrow";
};

// Results files are named <stamp>_<slug of the device>_<what>.<ext> (bench/results).
std::string slug(const std::string& s);
std::string now_stamp();

// `mpirun -np N seisfd bench --scaling weak|strong`: whole runs on 1, 2, 4, ... N ranks
// (app/bench_scaling.cpp).
int cmd_bench_scaling(const BenchArgs& a);

// `seisfd bench --peer`: each GPU's copy bandwidth and each pair's (app/bench_peer.cpp).
int cmd_bench_peer(const BenchArgs& a);

// Adds the subcommand and its options to `app`; returns it.
CLI::App* add_bench_command(CLI::App& app, BenchArgs& a);
int cmd_bench(const BenchArgs& a);

}  // namespace seisfd::app
