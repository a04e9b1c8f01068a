#include "kernels/cuda/autotune.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/compressible.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/timing.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd::cuda {
namespace {

namespace fs = std::filesystem;

std::string cache_path() {
  if (const char* p = std::getenv("SEISFD_AUTOTUNE_CACHE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "seisfd" / "autotune.tsv").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "seisfd" / "autotune.tsv").string();
  return "";
}

// device, physics, order, computational shape (z y x) and the candidates' names: a new
// variant in the build, or one that stops being runnable, measures again.
std::string cache_key(const std::string& device, Physics physics, int order, const StepSpec& spec,
                      const std::vector<const KernelVariant*>& cands) {
  std::ostringstream k;
  k << "hash+zero\t" << device << '\t' << to_string(physics) << '\t' << order << '\t'
    << spec.layout.nz << 'x' << spec.layout.ny << 'x' << spec.layout.nx << '\t';
  for (size_t i = 0; i < cands.size(); ++i) k << (i ? "," : "") << cands[i]->name;
  return k.str();
}

// The cached line's measurements for `key`, in candidate order; empty when absent or stale.
std::vector<std::pair<std::string, double>> read_cache(const std::string& path,
                                                       const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
        line[key.size()] != '\t')
      continue;
    std::vector<std::pair<std::string, double>> out;
    std::istringstream rest(line.substr(key.size() + 1));
    std::string item;
    while (std::getline(rest, item, ',')) {
      const auto eq = item.rfind('=');
      if (eq == std::string::npos) return {};
      try {
        out.emplace_back(item.substr(0, eq), std::stod(item.substr(eq + 1)));
      } catch (const std::exception&) {
        return {};
      }
    }
    return out;
  }
  return {};
}

// Replaces the key's line (written to a temporary file, then renamed). Returns false where the
// cache cannot be written; the run goes on with what it measured.
bool write_cache(const std::string& path, const std::string& key,
                 const std::vector<std::pair<std::string, double>>& gcells) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::vector<std::string> keep;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
      if (line.compare(0, key.size() + 1, key + '\t') != 0) keep.push_back(line);
  }
  std::ostringstream entry;
  entry << key << '\t';
  for (size_t i = 0; i < gcells.size(); ++i) {
    char v[32];
    std::snprintf(v, sizeof v, "%.2f", gcells[i].second);
    entry << (i ? "," : "") << gcells[i].first << '=' << v;
  }
  keep.push_back(entry.str());
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    for (const auto& l : keep) out << l << '\n';
    if (!out) return false;
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

// A variant's forward update in Gcells/s as `auto` ranks it: enough steps per repeat that
// launch gaps do not decide (about 2e9 cell updates); a run from a point source goes from zero
// fields to a wavefield everywhere, and some variants run at different speeds on the two
// (bench/NOTES.md), so each is timed on both and the rate is that of the mean time. Its arrays
// in compressible memory where `compressible`. Throws what time_update throws.
double measure_gcells(const KernelVariant& v, const StepSpec& spec, bool compressible,
                      const ExecContext& ctx) {
  const double cells = static_cast<double>(spec.layout.cells());
  const int steps = static_cast<int>(std::clamp(2e9 / cells, 10.0, 200.0));
  UpdateTimingOptions o;
  o.compressible = compressible;
  double ms = 0;
  for (const bool zero : {false, true}) {
    o.zero_fields = zero;
    ms += 0.5 * time_update(v, spec, steps, 3, 2, o, ctx).median_ms;
  }
  return ms > 0 ? cells / (ms * 1e-3) / 1e9 : 0;
}

const KernelVariant* by_name(const std::vector<const KernelVariant*>& cands,
                             const std::string& name) {
  for (const KernelVariant* v : cands)
    if (v->name == name) return v;
  return nullptr;
}

// Choices made ahead by choose_variant_ahead, by cache key and device: what the engines made
// later in this process take instead of measuring again.
std::mutex ahead_mutex;
std::map<std::pair<std::string, int>, VariantChoice>& ahead() {
  static std::map<std::pair<std::string, int>, VariantChoice> m;
  return m;
}

// choose_variant; with `keep`, a choice it measures or reads from the cache also goes into
// ahead() under its key.
VariantChoice choose(const std::string& requested, Physics physics, int order, const StepSpec& spec,
                     int device, const std::string& device_name, int cc, bool keep) {
  VariantChoice c;
  if (requested != "auto") {
    c.variant = &resolve_variant(requested, physics, order, spec, cc);
    c.how = "named in the config";
    return c;
  }
  const auto cands = runnable_variants(physics, order, spec, cc);
  if (cands.empty()) {
    c.variant = &resolve_variant(requested, physics, order, spec, cc);  // throws the message
    return c;
  }
  c.variant = cands.front();
  if (cands.size() == 1) {
    c.how = "only candidate";
    return c;
  }
  if (const char* e = std::getenv("SEISFD_AUTOTUNE"); e && std::string(e) == "0") {
    c.how = "preference order (SEISFD_AUTOTUNE=0)";
    return c;
  }
  const std::string path = cache_path();
  const std::string key = cache_key(device_name, physics, order, spec, cands);
  {
    const std::lock_guard<std::mutex> lock(ahead_mutex);
    const auto it = ahead().find({key, device});
    if (it != ahead().end()) return it->second;
  }
  const auto kept = [&](const VariantChoice& v) {
    if (keep) {
      const std::lock_guard<std::mutex> lock(ahead_mutex);
      ahead()[{key, device}] = v;
    }
    return v;
  };
  if (!path.empty()) {
    auto cached = read_cache(path, key);
    if (cached.size() == cands.size()) {
      const auto best = std::max_element(cached.begin(), cached.end(),
                                         [](auto& a, auto& b) { return a.second < b.second; });
      if (const KernelVariant* v = by_name(cands, best->first)) {
        c.variant = v;
        c.how = "cached (" + path + ")";
        c.gcells = std::move(cached);
        return kept(c);
      }
    }
  }
  const DeviceGuard guard(device);
  const Stream stream;
  const ExecContext ctx{device, stream.get()};
  double best = -1;
  for (const KernelVariant* v : cands) {
    double g = 0;
    try {
      g = measure_gcells(*v, spec, false, ctx);
    } catch (const std::runtime_error&) {
      g = 0;  // a launch the device refuses (a cluster or TMA feature): not a candidate
    }
    c.gcells.emplace_back(v->name, g);
    if (g > best) {
      best = g;
      c.variant = v;
    }
  }
  if (best <= 0)
    throw std::runtime_error("kernel.variant = auto: no candidate ran for " +
                             std::string(to_string(physics)) + " order " + std::to_string(order) +
                             " on " + device_name);
  c.how = "measured";
  if (!path.empty() && write_cache(path, key, c.gcells)) c.how += ", cached in " + path;
  return kept(c);
}

// Compression choices by cache key and device (choose_compression with `keep`).
std::map<std::pair<std::string, int>, CompressionChoice>& compression_ahead() {
  static std::map<std::pair<std::string, int>, CompressionChoice> m;
  return m;
}

std::string compression_text(const std::string& how, double compressed, double plain) {
  char v[96];
  std::snprintf(v, sizeof v, ": compressed %.1f, plain %.1f Gcells/s", compressed, plain);
  return how + v;
}

}  // namespace

CompressionChoice choose_compression(const KernelVariant& variant, const StepSpec& spec, int device,
                                     const std::string& device_name, bool keep) {
  CompressionChoice c;
  if (const char* e = std::getenv("SEISFD_AUTOTUNE"); e && std::string(e) == "0") {
    c.how = "unmeasured (SEISFD_AUTOTUNE=0)";
    return c;
  }
  const std::string key =
      "compressible\t" + cache_key(device_name, variant.physics, variant.order, spec, {&variant});
  {
    const std::lock_guard<std::mutex> lock(ahead_mutex);
    const auto it = compression_ahead().find({key, device});
    if (it != compression_ahead().end()) return it->second;
  }
  const auto kept = [&]() {
    if (keep) {
      const std::lock_guard<std::mutex> lock(ahead_mutex);
      compression_ahead()[{key, device}] = c;
    }
    return c;
  };
  const auto decide = [&](const std::string& how, double compressed, double plain) {
    c.compress = compressed >= 0.98 * plain;
    c.how = compression_text(how, compressed, plain);
    return kept();
  };
  const std::string path = cache_path();
  if (!path.empty()) {
    const auto cached = read_cache(path, key);
    if (cached.size() == 2 && cached[0].first == "compressed" && cached[1].first == "plain")
      return decide("cached (" + path + ")", cached[0].second, cached[1].second);
  }
  const DeviceGuard guard(device);
  const Stream stream;
  const ExecContext ctx{device, stream.get()};
  double g[2] = {0, 0};  // compressed, plain
  try {
    g[0] = measure_gcells(variant, spec, true, ctx);
    g[1] = measure_gcells(variant, spec, false, ctx);
  } catch (const std::runtime_error& e) {
    // The compressible arrays could not be made or run: plain memory, not a failed run.
    c.compress = false;
    c.how = std::string("not measured (") + e.what() + "), plain memory";
    return kept();
  }
  std::string how = "measured";
  if (!path.empty() && write_cache(path, key, {{"compressed", g[0]}, {"plain", g[1]}}))
    how += ", cached in " + path;
  return decide(how, g[0], g[1]);
}

VariantChoice choose_variant(const std::string& requested, Physics physics, int order,
                             const StepSpec& spec, int device, const std::string& device_name,
                             int cc) {
  return choose(requested, physics, order, spec, device, device_name, cc, false);
}

VariantChoice choose_variant_ahead(const std::string& requested, Physics physics, int order,
                                   const StepSpec& spec, int device, const std::string& device_name,
                                   int cc) {
  return choose(requested, physics, order, spec, device, device_name, cc, true);
}

std::string describe(const VariantChoice& c) {
  std::ostringstream s;
  s << c.how;
  for (size_t i = 0; i < c.gcells.size(); ++i) {
    char v[32];
    std::snprintf(v, sizeof v, "%.1f", c.gcells[i].second);
    s << (i ? ", " : ": ") << c.gcells[i].first << ' ' << v;
  }
  if (!c.gcells.empty()) s << " Gcells/s";
  return s.str();
}

}  // namespace seisfd::cuda

namespace seisfd {

void cuda_choose_variant_ahead(const std::string& variant, Physics physics, const StepSpec& spec,
                               int device, Compressible compressible) {
  const DeviceInfo d = cuda_device(device);
  const cuda::VariantChoice v = cuda::choose_variant_ahead(variant, physics, 2 * spec.radius, spec,
                                                           device, d.name, d.compute_capability);
  if (compressible == Compressible::kAuto && cuda::generic_compression_supported(device))
    cuda::choose_compression(*v.variant, spec, device, d.name, true);
}

}  // namespace seisfd
