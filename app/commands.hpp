// The seisfd subcommands. Each returns the process exit code.
#pragma once
#include <string>
#include <vector>

#include "solver/config.hpp"

namespace seisfd::app {

struct RunArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string backend = "auto";
  bool overwrite = false;
  bool quiet = false;
  bool no_graph = false;
  bool resume = false;
};

// --backend's value: cpu, cuda, or auto (anything else; CLI11 checks the spelling).
Backend parse_backend(const std::string& s);

int cmd_run(const RunArgs& a);
int cmd_born(const RunArgs& a);
int cmd_migrate(const RunArgs& a);
int cmd_check(const RunArgs& a);
int cmd_info();
int cmd_kernels();

}  // namespace seisfd::app
