// The shell fixture of the tests that run the real binary from the outside (tests/test_robust.cpp:
// bad input and limits; tests/test_preempt.cpp: signals, checkpoints and restart): each test
// in its own temporary directory (CliTest), bash scripts for ulimit and pipes, one-line error
// checks, and the wait for a run's first progress line.
#pragma once
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_support.hpp"

namespace seisfd::test::shell {

using namespace seisfd::test::cli;

// A bash script in the test's directory (for ulimit and pipes), stdout and stderr captured.
class ShellTest : public CliTest {
 protected:
  Result shell(const std::string& script) {
    const fs::path out = dir_ / ".sh_out", err = dir_ / ".sh_err";
    const std::string full = "cd '" + dir_.string() + "' && " + script;
    const pid_t pid = fork();
    if (pid == 0) {
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
      execl("/bin/bash", "bash", "-c", full.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }
  static std::string bin() { return SEISFD_BINARY; }
  void preempt_and_resume(const std::string& backend, const std::string& duration,
                          const std::string& tti_duration, const std::string& snapshot_interval);

  // Expects exactly one line on stderr, an error naming every piece of must_have.
  static void expect_one_error_line(const Result& r, int rc,
                                    const std::vector<std::string>& must_have) {
    EXPECT_EQ(r.rc, rc) << describe(r);
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << describe(r);
    EXPECT_EQ(lines[0].rfind("seisfd: error: ", 0), 0u) << lines[0];
    for (const auto& s : must_have)
      EXPECT_TRUE(contains(lines[0], s)) << "'" << s << "' not in: " << lines[0];
  }
};

// Waits until the child's stderr has a progress line (the time loop runs); false if it ended.
inline bool wait_for_progress(Process& p) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    if (contains(p.err(), "Mcells/s")) return true;
    int status = 0;
    if (waitpid(p.pid(), &status, WNOHANG) != 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// The base config run for a long time (20 s of model time: tens of thousands of steps), to be
// stopped part-way.
inline std::string long_config() {
  return replace_line(kBaseConfig, "duration = 0.2", "duration = 20.0");
}

}  // namespace seisfd::test::shell
