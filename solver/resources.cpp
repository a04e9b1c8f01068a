#include "solver/resources.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace seisfd {
namespace {

// The first number in a file ("max" and unreadable files give nothing).
bool read_number(const std::string& path, uint64_t& out) {
  std::ifstream in(path);
  unsigned long long v = 0;
  if (!(in >> v)) return false;
  out = v;
  return true;
}

bool meminfo_available(uint64_t& out) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  unsigned long long kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      out = static_cast<uint64_t>(kib) * 1024;
      return true;
    }
  }
  return false;
}

// The cgroup (v2 unified, else v1 memory controller) limit less usage.
bool cgroup_available(uint64_t& out) {
  std::ifstream in("/proc/self/cgroup");
  std::string line, v2_path, v1_path;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a != std::string::npos && b != std::string::npos) {
      const std::string ctrl = line.substr(a + 1, b - a - 1);
      if (ctrl.find("memory") != std::string::npos) v1_path = line.substr(b + 1);
    }
  }
  uint64_t limit = 0, usage = 0;
  // Inside a container the cgroup is usually mounted at its own root.
  for (const std::string& base : {"/sys/fs/cgroup" + v2_path, std::string("/sys/fs/cgroup")}) {
    if (!v2_path.empty() && read_number(base + "/memory.max", limit) &&
        read_number(base + "/memory.current", usage)) {
      out = limit > usage ? limit - usage : 0;
      return true;
    }
  }
  for (const std::string& base :
       {"/sys/fs/cgroup/memory" + v1_path, std::string("/sys/fs/cgroup/memory")}) {
    if (!v1_path.empty() && read_number(base + "/memory.limit_in_bytes", limit) &&
        read_number(base + "/memory.usage_in_bytes", usage) && limit < (uint64_t(1) << 60)) {
      out = limit > usage ? limit - usage : 0;
      return true;
    }
  }
  return false;
}

}  // namespace

uint64_t host_memory_available(std::string* what) {
  uint64_t best = 0;
  std::string name;
  auto consider = [&](uint64_t v, const char* n) {
    if (name.empty() || v < best) {
      best = v;
      name = n;
    }
  };
  uint64_t v = 0;
  if (meminfo_available(v)) consider(v, "available memory (MemAvailable)");
  if (cgroup_available(v)) consider(v, "the cgroup's memory limit less its usage");
  struct rlimit rl {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    // Less what the process has mapped already (statm: pages).
    uint64_t pages = 0;
    const uint64_t used = read_number("/proc/self/statm", pages) ? pages * 4096 : 0;
    const uint64_t limit = static_cast<uint64_t>(rl.rlim_cur);
    consider(limit > used ? limit - used : 0,
             "the address-space limit (ulimit -v) less what is mapped");
  }
  if (what) *what = name;
  return best;
}

std::string bytes_text(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

std::string HostMemoryNeed::text() const {
  std::string out;
  auto part = [&](const char* name, double b) {
    if (b <= 0) return;
    if (!out.empty()) out += ", ";
    out += std::string(name) + " " + bytes_text(b);
  };
  part("model", model);
  part("model over the grid", medium);
  part("fields", fields);
  part("traces", traces);
  part("wavelet", wavelet);
  part("snapshot buffer", snapshot);
  return out;
}

std::string DiskNeed::text() const {
  std::string out;
  auto part = [&](const char* name, double b) {
    if (b <= 0) return;
    if (!out.empty()) out += ", ";
    out += std::string(name) + " " + bytes_text(b);
  };
  part("gathers", gathers);
  part("snapshots", snapshots);
  part("checkpoint", checkpoint);
  return out.empty() ? "nothing" : out;
}

double disk_free(const std::string& dir, std::string* where) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.root_path()) p = p.parent_path();
  if (where) *where = p.string();
  struct statvfs st {};
  if (::statvfs(p.c_str(), &st) != 0) return -1;
  return double(st.f_bavail) * double(st.f_frsize);
}

void require_disk(const DiskNeed& need, const std::string& dir) {
  std::string where;
  const double free = disk_free(dir, &where);
  if (free < 0 || need.total() <= free) return;
  throw ResourceError("disk: the outputs need " + bytes_text(need.total()) + " (" + need.text() +
                      ") but '" + where + "' has " + bytes_text(free) +
                      " free; fewer or decimated snapshots (output.snapshots.interval, "
                      "decimation, box), a longer output.sample_interval or another "
                      "output.directory would fit");
}

void require_host_memory(const HostMemoryNeed& need, const std::string& hint) {
  std::string what;
  const uint64_t have = host_memory_available(&what);
  if (what.empty() || need.total() <= static_cast<double>(have)) return;
  throw ResourceError("host memory: the run needs " + bytes_text(need.total()) + " (" +
                      need.text() + ") but " + what + " is " + bytes_text(double(have)) + "; " +
                      hint);
}

}  // namespace seisfd
