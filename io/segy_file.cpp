// The shared SEG-Y helpers of io/segy_file.hpp (builds with libsegyio).
#include "io/segy_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "io/segy.hpp"

namespace seisfd::io {

bool segy_built() {
  return true;
}

namespace segy_detail {

namespace fs = std::filesystem;

std::string num(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

const char* segy_error_text(int rc) {
  switch (rc) {
    case SEGY_FOPEN_ERROR:
      return "cannot open";
    case SEGY_FSEEK_ERROR:
      return "seek failed (file too short?)";
    case SEGY_FREAD_ERROR:
      return "read failed (file too short?)";
    case SEGY_FWRITE_ERROR:
      return "write failed (disk full?)";
    case SEGY_INVALID_FIELD:
      return "invalid header field";
    case SEGY_INVALID_ARGS:
      return "invalid arguments";
    case SEGY_TRACE_SIZE_MISMATCH:
      return "file size does not match the trace size";
    case SEGY_READONLY:
      return "file is read-only";
    default:
      return "segyio error";
  }
}

// segyio's C calls return 0 on success.
void check(int rc, const std::string& what) {
  if (rc != SEGY_OK)
    throw IoError(what + ": " + segy_error_text(rc) + " (segyio code " + std::to_string(rc) + ")");
}

// The scalar of bytes 69/71 for a set of values: the finest of mm, cm, dm, m, 10 m, ... with
// which every value fits a 32-bit field. Negative s divides (stored = value * -s).
int choose_scalar(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::fabs(v));
  for (int s : {-1000, -100, -10, 1, 10, 100, 1000, 10000})
    if (m * (s < 0 ? -s : 1.0 / s) < 2.0e9) return s;
  return 10000;
}

int32_t scaled(double v, int s) {
  return static_cast<int32_t>(std::llround(v * (s < 0 ? -s : 1.0 / s)));
}

double unscaled(int32_t v, int s) {
  if (s < 0) return v / static_cast<double>(-s);
  if (s > 0) return v * static_cast<double>(s);
  return v;  // 0 means 1, as segyio and most readers take it
}

void set(char* h, int field, long long v, const std::string& what) {
  check(segy_set_field(h, field, static_cast<int32_t>(v)),
        what + ": header byte " + std::to_string(field) + " value " + std::to_string(v));
}

int32_t get(const char* h, int field) {
  int32_t v = 0;
  segy_get_field(h, field, &v);
  return v;
}

// 40 lines of 80 characters, "C nn " each; longer lines are cut.
std::string text_header(const std::vector<std::string>& lines) {
  std::string t(3200, ' ');
  for (int i = 0; i < 40; ++i) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "C%2d ", i + 1);
    std::string line = prefix;
    if (i < static_cast<int>(lines.size())) line += lines[i];
    if (i == 39) line = "C40 END TEXTUAL HEADER";
    line.resize(80, ' ');
    std::copy(line.begin(), line.end(), t.begin() + 80 * i);
  }
  return t;
}

void write_headers(segy_file* f, const std::vector<std::string>& lines, int nt, int interval,
                   int traces_per_ensemble, int sorting, const std::string& what) {
  const std::string text = text_header(lines);
  std::vector<char> buf(text.begin(), text.end());
  buf.push_back('\0');
  check(segy_write_textheader(f, 0, buf.data()), what + ": writing the textual header");
  char bin[SEGY_BINARY_HEADER_SIZE] = {};
  check(segy_set_bfield(bin, SEGY_BIN_TRACES, traces_per_ensemble), what);
  check(segy_set_bfield(bin, SEGY_BIN_INTERVAL, interval), what);
  check(segy_set_bfield(bin, SEGY_BIN_INTERVAL_ORIG, interval), what);
  check(segy_set_bfield(bin, SEGY_BIN_SAMPLES, nt), what);
  check(segy_set_bfield(bin, SEGY_BIN_SAMPLES_ORIG, nt), what);
  check(segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE), what);
  check(segy_set_bfield(bin, SEGY_BIN_SORTING_CODE, sorting), what);
  check(segy_set_bfield(bin, SEGY_BIN_MEASUREMENT_SYSTEM, 1), what);  // metres
  check(segy_set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100), what);  // rev 1.0
  check(segy_set_bfield(bin, SEGY_BIN_TRACE_FLAG, 1), what);          // fixed-length traces
  check(segy_write_binheader(f, bin), what + ": writing the binary header");
  check(segy_set_format(f, SEGY_IEEE_FLOAT_4_BYTE), what);
}

SegyHandle create(const std::string& partial) {
  segy_file* f = segy_open(partial.c_str(), "w+b");
  if (!f) throw IoError("SEG-Y '" + partial + "': cannot create it: " + std::strerror(errno));
  return SegyHandle(f);
}

void write_trace(segy_file* f, int index, char* header, const float* samples, int nt, long trace0,
                 int bsize, std::vector<float>& buf, const std::string& what) {
  check(segy_write_traceheader(f, index, header, trace0, bsize),
        what + ": trace " + std::to_string(index + 1) + " header");
  buf.assign(samples, samples + nt);
  segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, nt, buf.data());
  check(segy_writetrace(f, index, buf.data(), trace0, bsize),
        what + ": trace " + std::to_string(index + 1));
}

// ------------------------------------------------------------------------------ reading

Opened open_checked(const std::string& path) {
  Opened o;
  o.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) o.fail("file does not exist");
  const auto size = static_cast<long long>(fs::file_size(path, ec));
  if (size < 3600 + SEGY_TRACE_HEADER_SIZE)
    o.fail("file of " + std::to_string(size) +
           " bytes is shorter than the 3600-byte SEG-Y headers and one trace header");
  o.file = SegyHandle(segy_open(path.c_str(), "rb"));
  if (!o.file.f) o.fail(std::string("cannot open it: ") + std::strerror(errno));
  segy_mmap(o.file.f);  // faster header scans where it works; plain reads otherwise
  char bin[SEGY_BINARY_HEADER_SIZE];
  check(segy_binheader(o.file.f, bin), "SEG-Y '" + path + "': reading the binary header");
  o.format = segy_format(bin);
  if (o.format != SEGY_IBM_FLOAT_4_BYTE && o.format != SEGY_IEEE_FLOAT_4_BYTE)
    o.fail("sample format code " + std::to_string(o.format) +
           " (binary header bytes 3225-3226) is not supported; seisfd reads 1 (IBM float) and 5 "
           "(IEEE float)");
  segy_set_format(o.file.f, o.format);
  o.trace0 = segy_trace0(bin);
  if (o.trace0 < 3600) o.fail("the binary header's count of extended textual headers is invalid");
  o.samples = segy_samples(bin);
  int32_t interval = 0;
  segy_get_bfield(bin, SEGY_BIN_INTERVAL, &interval);
  // Trace 1's header, read directly: the sample count decides the trace size.
  char h1[SEGY_TRACE_HEADER_SIZE];
  {
    std::FILE* raw = std::fopen(path.c_str(), "rb");
    if (!raw) o.fail(std::string("cannot open it: ") + std::strerror(errno));
    const bool ok =
        std::fseek(raw, o.trace0, SEEK_SET) == 0 && std::fread(h1, 1, sizeof h1, raw) == sizeof h1;
    std::fclose(raw);
    if (!ok) o.fail("trace 1: its header is cut short");
  }
  const int32_t ns1 = get(h1, SEGY_TR_SAMPLE_COUNT), dt1 = get(h1, SEGY_TR_SAMPLE_INTER);
  if (o.samples <= 0) o.samples = ns1;
  if (o.samples <= 0)
    o.fail("no sample count in the binary header (bytes 3221-3222) or trace 1 (bytes 115-116)");
  if (ns1 != 0 && ns1 != o.samples)
    o.fail_trace(0, std::to_string(ns1) +
                        " samples in its header (bytes 115-116), the binary "
                        "header (bytes 3221-3222) says " +
                        std::to_string(o.samples));
  o.interval = interval > 0 ? interval : dt1;
  if (o.interval <= 0)
    o.fail("no sample interval in the binary header (bytes 3217-3218) or trace 1 (bytes 117-118)");
  o.bsize = segy_trsize(o.format, o.samples);
  const long long per = SEGY_TRACE_HEADER_SIZE + static_cast<long long>(o.bsize);
  const long long body = size - o.trace0;
  if (body % per != 0) {
    const long long whole = body / per;
    o.fail("trace " + std::to_string(whole + 1) + " is cut short: the file holds " +
           std::to_string(whole) + " whole traces of " + std::to_string(o.samples) +
           " samples and " + std::to_string(body % per) +
           " bytes more (truncated, or a sample "
           "count that is wrong)");
  }
  o.traces = static_cast<int>(body / per);
  if (o.traces < 1) o.fail("holds no trace");
  return o;
}

// Checks trace k's sample count and interval against the file's.
void check_sampling(const Opened& o, int k, const char* h) {
  const int32_t ns = get(h, SEGY_TR_SAMPLE_COUNT), dt = get(h, SEGY_TR_SAMPLE_INTER);
  if (ns != 0 && ns != o.samples)
    o.fail_trace(k, std::to_string(ns) + " samples in its header (bytes 115-116), the file has " +
                        std::to_string(o.samples) + " per trace");
  if (dt != 0 && dt != o.interval)
    o.fail_trace(k, "sample interval " + std::to_string(dt) +
                        " in its header (bytes 117-118), the file's is " +
                        std::to_string(o.interval));
}

}  // namespace segy_detail
}  // namespace seisfd::io
