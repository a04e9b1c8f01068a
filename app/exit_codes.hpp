// The exit codes of seisfd (README's table) and the one-line error printer.
#pragma once
#include <cstdio>
#include <string>

namespace seisfd::app {

constexpr int kExitOk = 0;
constexpr int kExitOther = 1;   // anything not below (a bug, a backend failure)
constexpr int kExitConfig = 2;  // the command line or the config is wrong
constexpr int kExitFile = 3;    // an input file is missing or bad, or an output cannot be written
constexpr int kExitNumerical = 4;  // the wavefield or the recorded data became NaN or Inf
constexpr int kExitResources = 5;  // the run would not fit (host memory, disk), found before it ran
// `run` stopped by SIGTERM or SIGUSR1 after writing a checkpoint: `seisfd run --resume`
// continues it (EX_TEMPFAIL: try again).
constexpr int kExitCheckpointed = 75;
// 128 + the signal number: stopped by SIGINT (130), SIGHUP (129) or SIGTERM (143) without a
// checkpoint (SIGUSR1 without one: 143 too).

// Messages longer than this are cut (a value of a megabyte is not echoed whole).
constexpr size_t kMaxMessage = 600;

inline std::string shorten(const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() <= kMaxMessage) return s;
  return s.substr(0, kMaxMessage) + "... (" + std::to_string(s.size() - kMaxMessage) +
         " more characters)";
}

// In a launch of several ranks: what a rank other than 0 puts before its errors ("rank 3: "),
// and whether it leaves the errors every rank meets alike to rank 0.
inline std::string& error_prefix() {
  static std::string p;
  return p;
}
inline bool& quiet_common_errors() {
  static bool q = false;
  return q;
}

inline void print_error(const std::string& message) {
  std::fprintf(stderr, "seisfd: error: %s%s\n", error_prefix().c_str(), shorten(message).c_str());
}

}  // namespace seisfd::app
