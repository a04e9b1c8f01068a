// checkpoint.h5 in the output directory (docs/outputs.md §5): what a stopped `seisfd run`
// needs to continue its running shot bit for bit: the wave state (both time levels of every
// field and the CPML memory variables, kernels/engine.hpp StateImage), the step, the traces
// recorded so far, the shot, the snapshots written so far, and the digest of the config it
// belongs to. Written atomically: to <path>.partial, fsync'ed, renamed over <path>, and the
// directory fsync'ed, so that a machine that dies at any moment leaves either the previous
// checkpoint or the new one, never half of one.
#pragma once
#include <string>
#include <vector>

#include "kernels/engine.hpp"

namespace seisfd::io {

struct Checkpoint {
  std::string config_digest;
  int shot = 0;       // the shot index (gathers' /shot_NNNN)
  int snapshots = 0;  // snapshots of this shot already in snapshots.h5.partial
  int receivers = 0, nt = 0;
  std::vector<double> traces;  // [receivers][nt]: samples 0 .. state.step are valid
  StateImage state;            // state.step: the field the state holds
};

// Throws IoError naming the file; nothing is left under `path` but a whole checkpoint.
void write_checkpoint(const std::string& path, const Checkpoint& c);
Checkpoint read_checkpoint(const std::string& path);

}  // namespace seisfd::io
