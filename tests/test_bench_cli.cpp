// `seisfd bench` from the outside: its help, its option checks, and either its one-line error
// on a machine without a CUDA device or, with a device, a tiny run whose CSV and JSON are read
// back.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/gpu_skip.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

fs::path temp_dir(const std::string& tag) {
  const fs::path d =
      fs::temp_directory_path() / ("seisfd_bench_cli_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs the binary through the shell with stdout and stderr in files.
Result run(const std::string& args, const fs::path& dir) {
  const fs::path o = dir / "stdout", e = dir / "stderr";
  const std::string cmd = std::string("'") + SEISFD_BINARY + "' " + args + " >'" + o.string() +
                          "' 2>'" + e.string() + "'";
  const int st = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

// The JSON file a run wrote into `dir`, parsed (null when there is none).
nlohmann::json results_json(const fs::path& dir) {
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".json") return nlohmann::json::parse(slurp(f.path()));
  return nullptr;
}

TEST(BenchCli, HelpListsTheOptions) {
  const fs::path d = temp_dir("help");
  const Result r = run("bench --help", d);
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* opt : {"--variants", "--physics", "--orders", "--sizes", "--sponge", "--steps",
                          "--repeats", "--out"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt << " missing from:\n" << r.out;
}

TEST(BenchCli, FewerThanFiveRepeatsIsRejected) {
  const fs::path d = temp_dir("repeats");
  const Result r = run("bench --repeats 3", d);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("repeats"), std::string::npos) << r.err;
}

// Without a device: non-zero exit and one line on stderr naming the missing device (or the
// missing CUDA backend). With one: a tiny run writes a table, a CSV and a JSON.
TEST(BenchCli, NoDeviceErrorOrTinyRun) {
  const fs::path d = temp_dir("run");
  const std::string args =
      "bench --backend cuda --variants naive,smem_regqueue --orders 4 --sizes 24 --sponge 4 "
      "--steps 2 --repeats 5 --verify-size 17 --out '" +
      (d / "results").string() + "'";
  const Result r = run(args, d);
  if (!seisfd::test::have_gpu()) {
    if (seisfd::test::gpu_required()) FAIL() << "SEISFD_REQUIRE_GPU=1 but no CUDA device";
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("seisfd: error: bench needs"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Gcells/s"), std::string::npos) << r.out;
  fs::path json;
  int csv = 0;
  for (const auto& f : fs::directory_iterator(d / "results")) {
    if (f.path().extension() == ".json") json = f.path();
    if (f.path().extension() == ".csv") ++csv;
  }
  EXPECT_EQ(csv, 1);
  ASSERT_FALSE(json.empty());
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["status"], "ok") << row.dump();
    EXPECT_GT(row["gcells_per_s"].get<double>(), 0.0);
    EXPECT_GT(row["ceiling_gcells_per_s"].get<double>(), 0.0);
    EXPECT_LE(row["verify_rel_l2"].get<double>(), 1e-5);
  }
}

// `bench --peer`: without a device one line naming what is missing; with devices each one's copy
// bandwidth (a GPU moves well over 100 GB/s within itself) and, with several, every pair once,
// in the table and in the CSV and JSON.
TEST(BenchCli, PeerBandwidthOrNoDeviceError) {
  const fs::path d = temp_dir("peer");
  const Result r = run("bench --peer --repeats 5 --out '" + (d / "results").string() + "'", d);
  if (!seisfd::test::have_gpu()) {
    if (seisfd::test::gpu_required()) FAIL() << "SEISFD_REQUIRE_GPU=1 but no CUDA device";
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("seisfd: error: bench --peer needs CUDA devices"), std::string::npos)
        << r.err;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = results_json(d / "results");
  ASSERT_FALSE(j.is_null()) << "no JSON in " << (d / "results");
  const size_t n = j["devices"].size();
  ASSERT_GE(n, 1u);
  for (const auto& dev : j["devices"]) EXPECT_GT(dev["copy_gb_per_s"].get<double>(), 100.0);
  if (n == 1) {
    EXPECT_FALSE(j.contains("pairs"));
    return;
  }
  ASSERT_EQ(j["pairs"].size(), n * (n - 1) / 2);
  for (const auto& p : j["pairs"]) {
    EXPECT_LT(p["a"].get<int>(), p["b"].get<int>());
    EXPECT_GT(p["one_way_gb_per_s"].get<double>(), 0.0);
    EXPECT_GT(p["both_ways_gb_per_s"].get<double>(), 0.0);
  }
}

// VTI and TTI variants are verified against the CPU engine and measured against the streaming
// ceiling of their own access pattern (36 and 44 B/cell), which a GPU run reports per row.
TEST(BenchCli, GpuAnisotropicVariantsAgainstTheirOwnCeiling) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const fs::path d = temp_dir("aniso");
  const Result r =
      run("bench --physics acoustic,vti,tti --variants naive --orders 4 --sizes 24 --sponge 4 "
          "--steps 2 --repeats 5 --verify-size 17 --out '" +
              (d / "results").string() + "'",
          d);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = results_json(d / "results");
  ASSERT_FALSE(j.is_null()) << "no JSON in " << (d / "results");
  ASSERT_EQ(j["results"].size(), 3u) << j.dump(1);
  std::map<std::string, double> ceiling, gbps_per_gcell;
  for (const auto& row : j["results"]) {
    ASSERT_EQ(row["status"], "ok") << row.dump();
    EXPECT_LE(row["verify_rel_l2"].get<double>(), 1e-5) << row.dump();
    const std::string ph = row["physics"];
    ceiling[ph] = row["ceiling_gcells_per_s"].get<double>();
    gbps_per_gcell[ph] = row["gb_per_s"].get<double>() / row["gcells_per_s"].get<double>();
  }
  EXPECT_NEAR(gbps_per_gcell["acoustic"], 16.0, 1e-6);
  EXPECT_NEAR(gbps_per_gcell["vti"], 36.0, 1e-6);
  EXPECT_NEAR(gbps_per_gcell["tti"], 44.0, 1e-6);
  for (const char* ph : {"acoustic", "vti", "tti"}) EXPECT_GT(ceiling[ph], 0.0) << ph;
}

// The CPU backend's variants: verified against the reference, timed against the CPU streaming
// ceiling of their pattern measured in the same run, on any machine.
TEST(BenchCli, CpuVariantsAgainstTheCpuCeiling) {
  const fs::path d = temp_dir("cpu");
  const Result r =
      run("bench --backend cpu --physics acoustic,vti,tti --orders 4 --sizes 16 --sponge 4 "
          "--steps 2 --repeats 5 --verify-size 13 --out '" +
              (d / "results").string() + "'",
          d);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Gcells/s"), std::string::npos) << r.out;
  const auto j = results_json(d / "results");
  ASSERT_FALSE(j.is_null()) << "no JSON in " << (d / "results");
  std::map<std::string, int> rows;
  for (const auto& row : j["results"]) {
    ASSERT_EQ(row["status"], "ok") << row.dump();
    rows[row["variant"].get<std::string>()]++;
    EXPECT_GT(row["gcells_per_s"].get<double>(), 0.0);
    EXPECT_GT(row["ceiling_gcells_per_s"].get<double>(), 0.0);
    EXPECT_LE(row["verify_rel_l2"].get<double>(), 1e-5) << row.dump();
    const double per = row["gb_per_s"].get<double>() / row["gcells_per_s"].get<double>();
    const std::string ph = row["physics"];
    EXPECT_NEAR(per, ph == "acoustic" ? 16.0 : ph == "vti" ? 36.0 : 44.0, 1e-6) << ph;
  }
  for (const char* v : {"acoustic/o4/regqueue", "acoustic/o4/blocked", "acoustic/o4/reference",
                        "vti/o4/blocked", "vti/o4/reference", "tti/o4/blocked", "tti/o4/reference"})
    EXPECT_EQ(rows[v], 1) << v;
}

}  // namespace
