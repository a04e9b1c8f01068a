// Internal to the SEG-Y files of io/ built with libsegyio (segy_file.cpp, segy_gathers.cpp,
// segy_cube.cpp): segyio handles, header fields, the checked opening of a file for reading and
// the writing of headers and traces. Not installed, not included outside io/.
#pragma once
#include <segyio/segy.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/error.hpp"

namespace seisfd::io::segy_detail {

std::string num(double v);  // 10 significant digits
const char* segy_error_text(int rc);
// segyio's C calls return 0 on success; IoError "<what>: <reason>" otherwise.
void check(int rc, const std::string& what);

// Owns a segyio file (move-only); close() returns segyio's result, the destructor ignores it.
struct SegyHandle {
  segy_file* f = nullptr;
  SegyHandle() = default;
  explicit SegyHandle(segy_file* p) : f(p) {}
  SegyHandle(SegyHandle&& o) noexcept : f(o.f) { o.f = nullptr; }
  SegyHandle(const SegyHandle&) = delete;
  SegyHandle& operator=(const SegyHandle&) = delete;
  SegyHandle& operator=(SegyHandle&& o) noexcept {
    std::swap(f, o.f);
    return *this;
  }
  ~SegyHandle() {
    if (f) segy_close(f);
  }
  int close() {
    const int rc = f ? segy_close(f) : 0;
    f = nullptr;
    return rc;
  }
};

// The scalar of bytes 69/71 for a set of values: the finest of mm, cm, dm, m, 10 m, ... with
// which every value fits a 32-bit field. Negative s divides (stored = value * -s).
int choose_scalar(const std::vector<double>& values);
int32_t scaled(double v, int s);    // value -> field under scalar s
double unscaled(int32_t v, int s);  // field -> value (s = 0 means 1)
void set(char* h, int field, long long v, const std::string& what);
int32_t get(const char* h, int field);

// 40 lines of 80 characters, "C nn " each; longer lines are cut; line 40 ends the header.
std::string text_header(const std::vector<std::string>& lines);
// Textual and binary headers of a new file (IEEE float32, metres, rev 1, fixed-length traces).
void write_headers(segy_file* f, const std::vector<std::string>& lines, int nt, int interval,
                   int traces_per_ensemble, int sorting, const std::string& what);
SegyHandle create(const std::string& partial);  // a new file, "w+b"
// Header and samples (native floats, converted to big-endian IEEE through buf) of trace index.
void write_trace(segy_file* f, int index, char* header, const float* samples, int nt, long trace0,
                 int bsize, std::vector<float>& buf, const std::string& what);

// An opened file with its layout checked: sample format, sample count and interval against
// trace 1, whole traces. Errors name the file (prefix "SEG-Y '<path>': ").
struct Opened {
  SegyHandle file;
  std::string path;
  int format = 0, samples = 0, interval = 0, traces = 0;
  long trace0 = 0;
  int bsize = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw IoError("SEG-Y '" + path + "': " + what);
  }
  [[noreturn]] void fail_trace(int index, const std::string& what) const {
    fail("trace " + std::to_string(index + 1) + ": " + what);
  }
  std::vector<char> header(int index) const {
    std::vector<char> h(SEGY_TRACE_HEADER_SIZE);
    const int rc = segy_traceheader(file.f, index, h.data(), trace0, bsize);
    if (rc != SEGY_OK) fail_trace(index, std::string("reading its header: ") + segy_error_text(rc));
    return h;
  }
  void read(int index, float* out) const {
    const int rc = segy_readtrace(file.f, index, out, trace0, bsize);
    if (rc != SEGY_OK)
      fail_trace(index, std::string("reading its samples: ") + segy_error_text(rc));
    segy_to_native(format, samples, out);
  }
};

// Opens a file for reading and checks its layout (see Opened).
Opened open_checked(const std::string& path);
// Checks trace k's sample count and interval against the file's.
void check_sampling(const Opened& o, int k, const char* h);

}  // namespace seisfd::io::segy_detail
