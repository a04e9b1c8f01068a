// What the command-line tests share: a child seisfd process (SEISFD_BINARY) in its own
// temporary directory with stdout, stderr and the exit code captured, a test fixture that makes
// that directory, the tiny base config, and HDF5 read-back helpers (tests/h5_read.hpp and more).
#pragma once
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "tests/h5_read.hpp"

namespace seisfd::test::cli {

namespace fs = std::filesystem;
namespace h5 = seisfd::io::h5;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << p;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

inline bool contains(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// A child seisfd process with stdout and stderr redirected to files (so neither is a
// terminal and no pipe can fill up), running in a given directory.
class Process {
 public:
  Process(const std::vector<std::string>& args, const fs::path& cwd) : cwd_(cwd) {
    static int counter = 0;
    const std::string tag = std::to_string(++counter);
    out_path_ = cwd / (".stdout_" + tag);
    err_path_ = cwd / (".stderr_" + tag);
    std::vector<std::string> argv_s{SEISFD_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      // Child: only async-signal-safe calls until exec.
      const int o = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int n = open("/dev/null", O_RDONLY);
      if (o < 0 || e < 0 || n < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(n, 0) < 0 ||
          chdir(cwd_.c_str()) != 0)
        _exit(127);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Process() {
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // Exit code, or 128 + signal number when the child was killed by a signal.
  int wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    waited_ = true;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
  }
  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }
  void remove_logs() const {
    fs::remove(out_path_);
    fs::remove(err_path_);
  }

 private:
  fs::path cwd_, out_path_, err_path_;
  pid_t pid_ = -1;
  bool waited_ = false;
};

struct Result {
  int rc = -1;
  std::string out, err;
};

// Tiny problem used by most tests: 24^3 cells, constant 2000 m/s, order 4, 200 steps of 1 ms,
// no sampling warning (5.3 points per minimum wavelength), so a good run prints nothing but
// progress and the summary on stderr.
constexpr const char* kBaseConfig = R"([grid]
nx = 24
ny = 24
nz = 24
spacing = 10.0

[model]
type = "constant"
vp = 2000.0

[physics]
order = 4

[time]
duration = 0.2
dt = 0.001

[source]
position = [120.0, 110.0, 60.0]
frequency = 15.0

[receivers]
layout = "line"
start = [20.0, 100.0, 30.0]
end = [220.0, 140.0, 50.0]
count = 5

[boundary]
type = "sponge"
width = 8

[output]
directory = "out"
sample_interval = 0.002

[output.snapshots]
interval = 0.04
decimation = [2, 1, 3]
box = { min = [40.0, 40.0, 40.0], max = [200.0, 160.0, 120.0] }
)";

// Replaces the one line equal to `line` in text (failing the test when absent).
inline std::string replace_line(std::string text, const std::string& line, const std::string& by) {
  const auto lines = lines_of(text);
  std::string out;
  bool found = false;
  for (const auto& l : lines) {
    if (l == line && !found) {
      out += by + "\n";
      found = true;
    } else {
      out += l + "\n";
    }
  }
  EXPECT_TRUE(found) << "line '" << line << "' not in config";
  return out;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("seisfd_cli_" + std::string(info->name()) + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  Result run(const std::vector<std::string>& args) {
    Process p(args, dir_);
    Result r;
    r.rc = p.wait();
    r.out = p.out();
    r.err = p.err();
    p.remove_logs();
    return r;
  }
  fs::path write_config(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    write_file(p, text);
    return p;
  }

  fs::path dir_;
};

inline std::string describe(const Result& r) {
  return "exit " + std::to_string(r.rc) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

// ---------------------------------------------------------------------------------------
// HDF5 read-back helpers: tests/h5_read.hpp's, and more.

using seisfd::test::dataset_is_float;
using seisfd::test::dataset_shape;
using seisfd::test::open_h5;
using seisfd::test::read_attr;
using seisfd::test::read_dataset;
using seisfd::test::read_string_attr;

// The root attribute complete, or -1 when the file has none.
inline int complete_flag(const fs::path& p) {
  const h5::File f = open_h5(p);
  if (H5Aexists(f.get(), "complete") <= 0) return -1;
  return read_attr<int>(f.get(), "complete", H5T_NATIVE_INT).at(0);
}

inline std::vector<std::string> list_dir(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(d))
    names.push_back(fs::relative(e.path(), d).string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace seisfd::test::cli
