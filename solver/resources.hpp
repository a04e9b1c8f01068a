// Resources a run needs, predicted before anything large is allocated: host memory (the model
// as read, the model extended over the layout, the CPU engine's fields, traces, the wavelet,
// a snapshot buffer) against what this process may use, and the counts of steps and samples
// against what the time loop can index. A run that cannot fit stops with a ResourceError of
// one line: what it needs, what is available, and what would make it fit.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace seisfd {

class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The most time samples (and so steps + 1) a shot may have: step indices are int.
constexpr int64_t kMaxTimeSamples = 2147483647 - 1;

// Host memory this process may still allocate: the least of MemAvailable (/proc/meminfo), the
// cgroup's limit less its usage (v2 memory.max, v1 memory.limit_in_bytes) and RLIMIT_AS.
// `what` (optional) names the bound that decided it. 0 when nothing could be read.
uint64_t host_memory_available(std::string* what = nullptr);

// "5.8 GiB", "300 MiB", "12 KiB" (binary units, 3 significant digits).
std::string bytes_text(double bytes);

// The parts of a host-memory estimate, for messages and `seisfd check`.
struct HostMemoryNeed {
  double model = 0;     // the model as read (physical cells x parameter arrays, fp32)
  double medium = 0;    // the model over the computational grid, as the engines take it
  double fields = 0;    // CPU engine: both time levels of every field, coefficients, CPML
  double traces = 0;    // receiver positions, recorded traces (fp64) and their fp32 copy
  double wavelet = 0;   // source samples
  double snapshot = 0;  // one snapshot's buffer
  double total() const { return model + medium + fields + traces + wavelet + snapshot; }
  std::string text() const;  // "model 1.2 GiB, fields 3.4 GiB, ..." (the nonzero parts)
};

// The size of what a run writes, by file, for the check against free disk space.
struct DiskNeed {
  double gathers = 0, snapshots = 0, checkpoint = 0;
  double total() const { return gathers + snapshots + checkpoint; }
  std::string text() const;  // "gathers 1.2 GiB, snapshots 3 GiB, ..." (the nonzero parts)
};

// Free bytes (for an unprivileged user) of the file system holding `dir`, or of its nearest
// existing parent when it does not exist yet; `where` is set to the directory asked. -1 when
// it cannot be told.
double disk_free(const std::string& dir, std::string* where = nullptr);

// Throws ResourceError when `need` exceeds the free space where `dir` is.
void require_disk(const DiskNeed& need, const std::string& dir);

// Throws ResourceError when `need` exceeds the available host memory. `hint` says what would
// make the run fit.
void require_host_memory(const HostMemoryNeed& need, const std::string& hint);

}  // namespace seisfd
