#include "io/segy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "io/error.hpp"
#include "io/files.hpp"

#if SEISFD_HAVE_SEGY
#include <segyio/segy.h>
#endif

namespace seisfd::io {

int segy_interval_units(double value, double unit) {
  const double u = value / unit;
  if (!std::isfinite(u) || !(u >= 0.5) || u > 2147483647.0) return -1;
  const double r = std::round(u);
  return std::fabs(u - r) <= 1e-6 * r ? static_cast<int>(r) : -1;
}

std::string segy_cube_problem(const ImageGeometry& g) {
  std::ostringstream os;
  os.precision(10);
  const int dz_mm = segy_interval_units(g.spacing[0], 1e-3);
  if (g.nz > kSegyMaxSamples)
    os << g.nz << " depth samples; SEG-Y holds up to " << kSegyMaxSamples << " per trace";
  else if (dz_mm < 1 || dz_mm > kSegyMaxInterval)
    os << "depth step " << g.spacing[0] << " m is not a whole number of mm from 1 to "
       << kSegyMaxInterval << " (SEG-Y's sample interval, bytes 117-118)";
  else if (g.origin[0] != std::round(g.origin[0]) || std::fabs(g.origin[0]) > 32767)
    os << "origin z " << g.origin[0]
       << " m is not a whole number of metres within +-32767 (SEG-Y's delay, bytes 109-110)";
  return os.str();
}

bool is_segy_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".sgy" || ext == ".segy";
}

#if SEISFD_HAVE_SEGY

namespace {

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

struct SegyHandle {
  segy_file* f = nullptr;
  SegyHandle() = default;
  explicit SegyHandle(segy_file* p) : f(p) {}
  SegyHandle(SegyHandle&& o) noexcept : f(o.f) { o.f = nullptr; }
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

}  // namespace

bool segy_built() {
  return true;
}

// ---------------------------------------------------------------------- gathers writer

struct SegyGatherWriter::Impl {
  std::string partial;
  SegyHandle file;
  int nt = 0, dt_us = 0;
  long trace0 = 3600;
  int bsize = 0, written = 0;
  std::vector<std::pair<int, int>> shots;  // (shot, traces) in file order
  std::vector<float> buf;
  bool finished = false;

  // Checks and sets the sampling; IoError naming the file.
  void sampling(int n, double dt) {
    const std::string what = "SEG-Y '" + partial + "'";
    dt_us = segy_interval_units(dt, 1e-6);
    if (dt_us < 1 || dt_us > kSegyMaxInterval)
      throw IoError(what + ": sample interval " + num(dt) +
                    " s is not a whole number of microseconds from 1 to " +
                    std::to_string(kSegyMaxInterval));
    if (n < 1 || n > kSegyMaxSamples)
      throw IoError(what + ": " + std::to_string(n) + " samples per trace; SEG-Y holds 1 to " +
                    std::to_string(kSegyMaxSamples));
    nt = n;
    bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, nt);
  }
};

namespace {
constexpr const char* kDigestLabel = "CONFIG DIGEST (SEISFD RUN --RESUME) ";
}

SegyGatherWriter::SegyGatherWriter(std::unique_ptr<Impl> impl, std::string path)
    : impl_(std::move(impl)), path_(std::move(path)) {}

SegyGatherWriter::SegyGatherWriter(const std::string& path, int nt, double dt,
                                   const std::string& producer, const std::string& config_digest)
    : impl_(std::make_unique<Impl>()), path_(path) {
  Impl& m = *impl_;
  m.partial = path + ".partial";
  const std::string what = "SEG-Y '" + m.partial + "'";
  m.sampling(nt, dt);
  m.file = create(m.partial);
  const std::vector<std::string> lines = {
      "SEISFD SHOT GATHERS, " + producer,
      "ONE FILE PER SURVEY: TRACES BY SHOT, THEN BY RECEIVER",
      "SAMPLES: IEEE FLOAT32 (FORMAT 5), BIG-ENDIAN; PRESSURE IN PA",
      "TIME: " + std::to_string(nt) + " SAMPLES OF " + std::to_string(m.dt_us) + " US (" + num(dt) +
          " S), FIRST AT T = 0 S",
      "COORDINATES: METRES, X Y Z WITH Z POSITIVE DOWN, AS IN THE SEISFD CONFIG",
      "SOURCE X/Y (73/77), GROUP X/Y (81/85), CDP X/Y (181/185) = MIDPOINT:",
      "  SCALED BY BYTE 71 (-1000: VALUE / 1000, MM)",
      "SOURCE DEPTH (49) = SOURCE Z; RECEIVER GROUP ELEVATION (41) = -RECEIVER Z:",
      "  SCALED BY BYTE 69 (SAME SCALAR)",
      "FIELD RECORD (9) AND ENERGY SOURCE POINT (17) = SHOT INDEX, FROM 0",
      "TRACE NUMBER (13) = RECEIVER OF THE SHOT, FROM 1; TRACE SEQUENCE (1, 5) FROM 1",
      "OFFSET (37) = HORIZONTAL SOURCE-RECEIVER DISTANCE, WHOLE METRES",
      "SAMPLE COUNT (115) AND INTERVAL (117, US) IN EVERY TRACE AND THE BINARY HEADER",
      "SEG-Y REV 1",
      kDigestLabel + (config_digest.empty() ? std::string("NONE") : config_digest),
  };
  try {
    write_headers(m.file.f, lines, nt, m.dt_us, 0, 1 /* as recorded */, what);
  } catch (...) {
    m.file.close();
    std::remove(m.partial.c_str());
    throw;
  }
}

SegyGatherWriter SegyGatherWriter::resume(const std::string& path, int nt, double dt,
                                          const std::string& config_digest) {
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.partial = path + ".partial";
  const std::string what = "SEG-Y '" + m.partial + "': cannot resume: ";
  std::error_code ec;
  if (!fs::is_regular_file(m.partial, ec)) {
    std::string msg = what + "the file does not exist";
    if (fs::is_regular_file(path, ec))
      msg += " ('" + path + "' does: the run that wrote it finished)";
    throw IoError(msg);
  }
  m.sampling(nt, dt);
  const auto size = static_cast<long long>(fs::file_size(m.partial, ec));
  m.file = SegyHandle(segy_open(m.partial.c_str(), "r+b"));
  if (!m.file.f || size < 3600) throw IoError(what + "not a SEG-Y file seisfd can reopen");
  char bin[SEGY_BINARY_HEADER_SIZE];
  check(segy_binheader(m.file.f, bin), what + "reading the binary header");
  int32_t interval = 0;
  segy_get_bfield(bin, SEGY_BIN_INTERVAL, &interval);
  if (segy_format(bin) != SEGY_IEEE_FLOAT_4_BYTE || segy_samples(bin) != nt || interval != m.dt_us)
    throw IoError(what + "it holds " + std::to_string(segy_samples(bin)) + " samples of " +
                  std::to_string(interval) + " us (format " + std::to_string(segy_format(bin)) +
                  "), this run writes " + std::to_string(nt) + " of " + std::to_string(m.dt_us) +
                  " us (format 5)");
  check(segy_set_format(m.file.f, SEGY_IEEE_FLOAT_4_BYTE), what);
  char text[SEGY_TEXT_HEADER_SIZE + 1] = {};
  check(segy_read_textheader(m.file.f, text), what + "reading the textual header");
  const std::string t(text), label(kDigestLabel);
  const size_t at = t.find(label);
  std::string digest = at == std::string::npos ? "" : t.substr(at + label.size());
  digest = digest.substr(0, digest.find(' '));
  const std::string want = config_digest.empty() ? "NONE" : config_digest;
  if (digest != want)
    throw IoError(what + "was started with another config (digest " +
                  (digest.empty() ? std::string("none") : digest) + ", this config's is " + want +
                  "); rerun without --resume");
  const long long per = SEGY_TRACE_HEADER_SIZE + static_cast<long long>(m.bsize);
  const int traces = static_cast<int>((size - m.trace0) / per);  // a cut-short trace is dropped
  for (int k = 0; k < traces; ++k) {
    char h[SEGY_TRACE_HEADER_SIZE];
    check(segy_traceheader(m.file.f, k, h, m.trace0, m.bsize),
          what + "trace " + std::to_string(k + 1));
    const int shot = get(h, SEGY_TR_FIELD_RECORD);
    if (m.shots.empty() || m.shots.back().first != shot)
      m.shots.emplace_back(shot, 1);
    else
      ++m.shots.back().second;
  }
  m.written = traces;
  SegyGatherWriter w(std::move(impl), path);
  w.keep_first(w.impl_->shots.size());  // drops the bytes of a trace cut short
  return w;
}

std::vector<std::pair<int, int>> SegyGatherWriter::traces_per_shot() const {
  return impl_->shots;
}

void SegyGatherWriter::keep_first(size_t n) {
  Impl& m = *impl_;
  const std::string what = "SEG-Y '" + m.partial + "'";
  if (n > m.shots.size()) n = m.shots.size();
  m.shots.resize(n);
  m.written = 0;
  for (const auto& s : m.shots) m.written += s.second;
  check(m.file.close(), what + ": close");
  std::error_code ec;
  fs::resize_file(m.partial,
                  m.trace0 + static_cast<long long>(m.written) * (SEGY_TRACE_HEADER_SIZE + m.bsize),
                  ec);
  if (ec) throw IoError(what + ": cannot cut it to its whole shots: " + ec.message());
  m.file = SegyHandle(segy_open(m.partial.c_str(), "r+b"));
  if (!m.file.f) throw IoError(what + ": cannot reopen it: " + std::strerror(errno));
  check(segy_set_format(m.file.f, SEGY_IEEE_FLOAT_4_BYTE), what);
}

SegyGatherWriter::~SegyGatherWriter() = default;
SegyGatherWriter::SegyGatherWriter(SegyGatherWriter&&) noexcept = default;
SegyGatherWriter& SegyGatherWriter::operator=(SegyGatherWriter&&) noexcept = default;

void SegyGatherWriter::write_shot(int shot, const float* traces, int nrec, const double* receivers,
                                  const std::array<double, 3>& source) {
  Impl& m = *impl_;
  const std::string what = "SEG-Y '" + m.partial + "'";
  if (m.finished) throw IoError("SEG-Y '" + path_ + "': write_shot after finish()");
  if (shot < 0 || nrec <= 0 || !traces || !receivers)
    throw IoError(what + ": shot " + std::to_string(shot) + " with " + std::to_string(nrec) +
                  " receivers (need a shot index >= 0 and receivers with data)");
  for (const auto& s : m.shots)
    if (s.first == shot)
      throw IoError(what + ": shot " + std::to_string(shot) + " is already written");
  std::vector<double> values(source.begin(), source.end());
  values.insert(values.end(), receivers, receivers + 3 * static_cast<size_t>(nrec));
  const int s = choose_scalar(values);
  for (int r = 0; r < nrec; ++r) {
    const double* p = receivers + 3 * static_cast<size_t>(r);
    char h[SEGY_TRACE_HEADER_SIZE] = {};
    const int seq = m.written + r + 1;
    set(h, SEGY_TR_SEQ_LINE, seq, what);
    set(h, SEGY_TR_SEQ_FILE, seq, what);
    set(h, SEGY_TR_FIELD_RECORD, shot, what);
    set(h, SEGY_TR_NUMBER_ORIG_FIELD, r + 1, what);
    set(h, SEGY_TR_ENERGY_SOURCE_POINT, shot, what);
    set(h, SEGY_TR_TRACE_ID, 1, what);  // seismic data
    set(h, SEGY_TR_OFFSET, std::llround(std::hypot(p[0] - source[0], p[1] - source[1])), what);
    set(h, SEGY_TR_RECV_GROUP_ELEV, scaled(-p[2], s), what);
    set(h, SEGY_TR_SOURCE_DEPTH, scaled(source[2], s), what);
    set(h, SEGY_TR_ELEV_SCALAR, s, what);
    set(h, SEGY_TR_SOURCE_GROUP_SCALAR, s, what);
    set(h, SEGY_TR_SOURCE_X, scaled(source[0], s), what);
    set(h, SEGY_TR_SOURCE_Y, scaled(source[1], s), what);
    set(h, SEGY_TR_GROUP_X, scaled(p[0], s), what);
    set(h, SEGY_TR_GROUP_Y, scaled(p[1], s), what);
    set(h, SEGY_TR_COORD_UNITS, 1, what);  // length (metres, binary header 3255)
    set(h, SEGY_TR_SAMPLE_COUNT, m.nt, what);
    set(h, SEGY_TR_SAMPLE_INTER, m.dt_us, what);
    set(h, SEGY_TR_CDP_X, scaled(0.5 * (p[0] + source[0]), s), what);
    set(h, SEGY_TR_CDP_Y, scaled(0.5 * (p[1] + source[1]), s), what);
    write_trace(m.file.f, m.written + r, h, traces + static_cast<size_t>(r) * m.nt, m.nt, m.trace0,
                m.bsize, m.buf, what);
  }
  // A finished shot reaches the disk before the next starts.
  check(segy_flush(m.file.f, false), what + ": flush");
  m.written += nrec;
  m.shots.emplace_back(shot, nrec);
}

std::vector<int> SegyGatherWriter::shots() const {
  std::vector<int> out;
  for (const auto& s : impl_->shots) out.push_back(s.first);
  return out;
}

void SegyGatherWriter::finish() {
  Impl& m = *impl_;
  if (m.finished) return;
  check(segy_flush(m.file.f, false), "SEG-Y '" + m.partial + "': flush");
  check(m.file.close(), "SEG-Y '" + m.partial + "': close");
  m.finished = true;
  detail::rename_file(m.partial, path_);
}

// ---------------------------------------------------------------------- gathers reader

namespace {
struct TraceGeometry {
  std::array<double, 3> source{}, receiver{};
  bool missing = false;  // source and group x/y all 0
};
struct ShotIndex {
  int first = 0, count = 0;
};
}  // namespace

struct SegyGatherReader::Impl {
  Opened o;
  std::string text;
  std::vector<TraceGeometry> traces;
  std::map<int, ShotIndex> shots;
  double t0 = 0;
};

SegyGatherReader::SegyGatherReader(const std::string& path)
    : impl_(std::make_unique<Impl>()), path_(path) {
  Impl& m = *impl_;
  m.o = open_checked(path);
  const Opened& o = m.o;
  char text[SEGY_TEXT_HEADER_SIZE + 1] = {};
  if (segy_read_textheader(o.file.f, text) == SEGY_OK) m.text.assign(text, SEGY_TEXT_HEADER_SIZE);
  m.traces.resize(o.traces);
  int current = 0;
  for (int k = 0; k < o.traces; ++k) {
    const std::vector<char> hv = o.header(k);
    const char* h = hv.data();
    check_sampling(o, k, h);
    const int32_t delay = get(h, SEGY_TR_DELAY_REC_TIME);
    if (k == 0) m.t0 = delay * 1e-3;
    if (delay * 1e-3 != m.t0)
      o.fail_trace(k, "delay " + std::to_string(delay) + " ms (bytes 109-110), trace 1's is " +
                          num(m.t0 * 1e3) + " ms");
    const int s = get(h, SEGY_TR_SOURCE_GROUP_SCALAR), e = get(h, SEGY_TR_ELEV_SCALAR);
    TraceGeometry& t = m.traces[k];
    const int32_t sx = get(h, SEGY_TR_SOURCE_X), sy = get(h, SEGY_TR_SOURCE_Y),
                  gx = get(h, SEGY_TR_GROUP_X), gy = get(h, SEGY_TR_GROUP_Y);
    t.missing = sx == 0 && sy == 0 && gx == 0 && gy == 0;
    t.source = {unscaled(sx, s), unscaled(sy, s), unscaled(get(h, SEGY_TR_SOURCE_DEPTH), e)};
    t.receiver = {unscaled(gx, s), unscaled(gy, s), -unscaled(get(h, SEGY_TR_RECV_GROUP_ELEV), e)};
    const int shot = get(h, SEGY_TR_FIELD_RECORD);
    if (k > 0 && shot == current) {
      ++m.shots[shot].count;
      continue;
    }
    if (m.shots.count(shot))
      o.fail_trace(k, "field record (shot) " + std::to_string(shot) + " again after shot " +
                          std::to_string(current) +
                          "; the traces of a shot must be together (bytes 9-12)");
    m.shots[shot] = {k, 1};
    current = shot;
  }
}

SegyGatherReader::~SegyGatherReader() = default;
SegyGatherReader::SegyGatherReader(SegyGatherReader&&) noexcept = default;
SegyGatherReader& SegyGatherReader::operator=(SegyGatherReader&&) noexcept = default;

std::vector<int> SegyGatherReader::shots() const {
  std::vector<int> out;
  for (const auto& kv : impl_->shots) out.push_back(kv.first);
  return out;
}

int SegyGatherReader::first_trace(int shot) const {
  const auto it = impl_->shots.find(shot);
  if (it == impl_->shots.end())
    throw IoError("SEG-Y '" + path_ + "': no trace of shot " + std::to_string(shot) +
                  " (field record, bytes 9-12)");
  return it->second.first + 1;
}

bool SegyGatherReader::coordinates_missing(int shot, int receiver) const {
  const int k = first_trace(shot) - 1 + receiver;
  return k >= 0 && k < static_cast<int>(impl_->traces.size()) && impl_->traces[k].missing;
}

ShotData SegyGatherReader::read_shot(int shot) const {
  const Impl& m = *impl_;
  const int first = first_trace(shot) - 1;
  const ShotIndex& si = m.shots.at(shot);
  ShotData d;
  d.shot = shot;
  d.nt = m.o.samples;
  d.dt = m.o.interval * 1e-6;
  d.t0 = m.t0;
  d.units = "Pa";
  d.source = m.traces[first].source;
  d.traces.resize(static_cast<size_t>(si.count) * d.nt);
  for (int r = 0; r < si.count; ++r) {
    const TraceGeometry& t = m.traces[first + r];
    for (int a = 0; a < 3; ++a)
      if (std::fabs(t.source[a] - d.source[a]) > 1e-6 * (1 + std::fabs(d.source[a])))
        m.o.fail_trace(first + r, "source of shot " + std::to_string(shot) + " at (" +
                                      num(t.source[0]) + ", " + num(t.source[1]) + ", " +
                                      num(t.source[2]) + ") m, its first trace (" +
                                      std::to_string(first + 1) + ") has it at (" +
                                      num(d.source[0]) + ", " + num(d.source[1]) + ", " +
                                      num(d.source[2]) + ")" +
                                      (t.missing ? " (the trace has no coordinates: source and "
                                                   "group x/y, bytes 73-88, are 0)"
                                                 : ""));
    d.receivers.push_back(t.receiver);
    m.o.read(first + r, d.traces.data() + static_cast<size_t>(r) * d.nt);
  }
  return d;
}

const std::string& SegyGatherReader::text_header() const {
  return impl_->text;
}

// ----------------------------------------------------------------------------- cubes

void write_segy_cube(const std::string& path, const ImageGeometry& g, const float* data,
                     const std::string& description, const std::string& units,
                     const std::string& producer) {
  const std::string partial = path + ".partial";
  const std::string what = "SEG-Y '" + path + "'";
  if (g.nz < 1 || g.ny < 1 || g.nx < 1 || !data) throw IoError(what + ": empty cube");
  const std::string problem = segy_cube_problem(g);
  if (!problem.empty()) throw IoError(what + ": " + problem);
  const int dz_mm = segy_interval_units(g.spacing[0], 1e-3);
  const double z0 = g.origin[0];
  const double x1 = g.origin[2] + (g.nx - 1) * g.spacing[2],
               y1 = g.origin[1] + (g.ny - 1) * g.spacing[1];
  const int s = choose_scalar({g.origin[2], g.origin[1], x1, y1});
  SegyHandle file = create(partial);
  try {
    const std::vector<std::string> lines = {
        "SEISFD " + description + ", " + producer,
        "3D CUBE: INLINE (189) = Y INDEX + 1, CROSSLINE (193) = X INDEX + 1",
        "TRACES SORTED BY INLINE, THEN CROSSLINE; SAMPLES ALONG Z (DEPTH, DOWN)",
        "SAMPLES: IEEE FLOAT32 (FORMAT 5), BIG-ENDIAN; UNITS " + units,
        "GRID: NX " + std::to_string(g.nx) + " NY " + std::to_string(g.ny) + " NZ " +
            std::to_string(g.nz),
        "SPACING (X, Y, Z) " + num(g.spacing[2]) + " " + num(g.spacing[1]) + " " +
            num(g.spacing[0]) + " M",
        "ORIGIN (X, Y, Z) " + num(g.origin[2]) + " " + num(g.origin[1]) + " " + num(g.origin[0]) +
            " M",
        "DEPTH: SAMPLE INTERVAL (117, 3217) = DZ IN MM; DELAY (109) = ORIGIN Z IN M",
        "  (SAMPLES READ AS MILLISECONDS ARE DEPTHS IN METRES)",
        "CDP X/Y (181/185), SOURCE AND GROUP X/Y: CELL POSITION IN METRES,",
        "  SCALED BY BYTE 71 (-1000: VALUE / 1000, MM)",
        "SEG-Y REV 1",
    };
    const int sorting = 4;  // horizontally stacked
    write_headers(file.f, lines, g.nz, dz_mm, 1, sorting, what);
    const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, g.nz);
    std::vector<float> trace(g.nz), buf;
    const size_t plane = static_cast<size_t>(g.ny) * g.nx;
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        const int k = iy * g.nx + ix;
        const double x = g.origin[2] + ix * g.spacing[2], y = g.origin[1] + iy * g.spacing[1];
        char h[SEGY_TRACE_HEADER_SIZE] = {};
        set(h, SEGY_TR_SEQ_LINE, k + 1, what);
        set(h, SEGY_TR_SEQ_FILE, k + 1, what);
        set(h, SEGY_TR_ENSEMBLE, k + 1, what);  // CDP number
        set(h, SEGY_TR_TRACE_ID, 1, what);
        set(h, SEGY_TR_SOURCE_GROUP_SCALAR, s, what);
        set(h, SEGY_TR_ELEV_SCALAR, 1, what);
        for (int f : {SEGY_TR_SOURCE_X, SEGY_TR_GROUP_X, SEGY_TR_CDP_X})
          set(h, f, scaled(x, s), what);
        for (int f : {SEGY_TR_SOURCE_Y, SEGY_TR_GROUP_Y, SEGY_TR_CDP_Y})
          set(h, f, scaled(y, s), what);
        set(h, SEGY_TR_COORD_UNITS, 1, what);
        set(h, SEGY_TR_DELAY_REC_TIME, static_cast<int>(z0), what);
        set(h, SEGY_TR_SAMPLE_COUNT, g.nz, what);
        set(h, SEGY_TR_SAMPLE_INTER, dz_mm, what);
        set(h, SEGY_TR_INLINE, iy + 1, what);
        set(h, SEGY_TR_CROSSLINE, ix + 1, what);
        for (int z = 0; z < g.nz; ++z) trace[z] = data[z * plane + static_cast<size_t>(k)];
        write_trace(file.f, k, h, trace.data(), g.nz, 3600, bsize, buf, what);
      }
    check(segy_flush(file.f, false), what + ": flush");
    check(file.close(), what + ": close");
  } catch (...) {
    file.close();
    std::remove(partial.c_str());
    throw;
  }
  detail::rename_file(partial, path);
}

namespace {

// Checks a cube's headers (order, coordinates, sampling) and returns its geometry.
ImageGeometry scan_cube(const Opened& o) {
  const int n = o.traces;
  struct Head {
    int il, xl;
    double x, y;
    int s;
  };
  std::vector<Head> hs(n);
  int32_t delay = 0;
  for (int k = 0; k < n; ++k) {
    const std::vector<char> hv = o.header(k);
    const char* h = hv.data();
    check_sampling(o, k, h);
    const int s = get(h, SEGY_TR_SOURCE_GROUP_SCALAR);
    hs[k] = {get(h, SEGY_TR_INLINE), get(h, SEGY_TR_CROSSLINE), unscaled(get(h, SEGY_TR_CDP_X), s),
             unscaled(get(h, SEGY_TR_CDP_Y), s), s};
    if (k == 0) delay = get(h, SEGY_TR_DELAY_REC_TIME);
    if (get(h, SEGY_TR_DELAY_REC_TIME) != delay)
      o.fail_trace(k, "delay " + std::to_string(get(h, SEGY_TR_DELAY_REC_TIME)) +
                          " (bytes 109-110, the origin z in m) differs from trace 1's " +
                          std::to_string(delay));
  }
  const auto order_hint = [&](int k) {
    const bool none = hs[k].il == 0 && hs[k].xl == 0;
    return std::string(none ? " (inline and crossline numbers, bytes 189-196, missing?)" : "");
  };
  // The first inline's crosslines, ascending; every other inline has the same.
  int nx = 1;
  while (nx < n && hs[nx].il == hs[0].il) {
    if (hs[nx].xl <= hs[nx - 1].xl)
      o.fail_trace(nx, "crossline " + std::to_string(hs[nx].xl) + " after crossline " +
                           std::to_string(hs[nx - 1].xl) + " in inline " +
                           std::to_string(hs[0].il) +
                           ": the cube must be sorted by inline, then crossline, ascending" +
                           order_hint(nx));
    ++nx;
  }
  if (n % nx != 0)
    o.fail_trace(n - 1, "the file's " + std::to_string(n) + " traces are not whole inlines of " +
                            std::to_string(nx) + " crosslines (inline " + std::to_string(hs[0].il) +
                            " has " + std::to_string(nx) + ")");
  const int ny = n / nx;
  for (int k = nx; k < n; ++k) {
    const int ix = k % nx;
    // The first trace of an inline starts a higher inline; the others continue it.
    const bool il_ok = ix == 0 ? hs[k].il > hs[k - 1].il : hs[k].il == hs[k - 1].il;
    if (!il_ok || hs[k].xl != hs[ix].xl)
      o.fail_trace(
          k, "inline " + std::to_string(hs[k].il) + ", crossline " + std::to_string(hs[k].xl) +
                 " where a cube sorted by inline, then "
                 "crossline (" +
                 std::to_string(nx) + " crosslines per inline, as inline " +
                 std::to_string(hs[0].il) + ") has " + (ix == 0 ? "an inline above " : "inline ") +
                 std::to_string(hs[k - 1].il) + ", crossline " + std::to_string(hs[ix].xl) +
                 order_hint(k));
  }
  // Axis-aligned coordinates: x along the crossline, y along the inline, regular steps.
  const double x0 = hs[0].x, y0 = hs[0].y;
  const double dx = nx > 1 ? hs[1].x - hs[0].x : 0, dy = ny > 1 ? hs[nx].y - hs[0].y : 0;
  if (nx > 1 && !(dx > 0))
    o.fail_trace(1, "CDP x " + num(hs[1].x) +
                        " m (bytes 181-184) does not increase from trace 1's " + num(x0) +
                        " m along the inline: coordinates missing, or x is not along "
                        "the crossline axis");
  if (ny > 1 && !(dy > 0))
    o.fail_trace(nx, "CDP y " + num(hs[nx].y) +
                         " m (bytes 185-188) does not increase from trace "
                         "1's " +
                         num(y0) +
                         " m across inlines: coordinates missing, or y is not "
                         "along the inline axis");
  for (int k = 0; k < n; ++k) {
    const int iy = k / nx, ix = k % nx;
    const double ex = x0 + ix * dx, ey = y0 + iy * dy;
    const double unit = hs[k].s < 0 ? 1.0 / -hs[k].s : hs[k].s > 0 ? hs[k].s : 1.0;
    const double tol = unit + 1e-6 * (std::fabs(ex) + std::fabs(ey));
    if (std::fabs(hs[k].x - ex) > tol || std::fabs(hs[k].y - ey) > tol)
      o.fail_trace(k, "CDP at (" + num(hs[k].x) + ", " + num(hs[k].y) +
                          ") m, where a regular "
                          "axis-aligned grid from trace 1 has (" +
                          num(ex) + ", " + num(ey) + ") (inline " + std::to_string(hs[k].il) +
                          ", crossline " + std::to_string(hs[k].xl) + ")");
  }
  ImageGeometry g;
  g.nz = o.samples;
  g.ny = ny;
  g.nx = nx;
  g.spacing = {o.interval * 1e-3, dy, dx};
  g.origin = {static_cast<double>(delay), y0, x0};
  return g;
}

}  // namespace

ImageGeometry segy_cube_geometry(const std::string& path) {
  return scan_cube(open_checked(path));
}

SegyCube read_segy_cube(const std::string& path) {
  const Opened o = open_checked(path);
  const int n = o.traces;
  SegyCube c;
  c.geometry = scan_cube(o);
  const ImageGeometry& g = c.geometry;
  c.data.resize(static_cast<size_t>(g.nz) * n);
  std::vector<float> trace(o.samples);
  for (int k = 0; k < n; ++k) {
    o.read(k, trace.data());
    for (int z = 0; z < g.nz; ++z) c.data[static_cast<size_t>(z) * n + k] = trace[z];
  }
  return c;
}

#else  // no libsegyio: every entry point says so

namespace {
[[noreturn]] void not_built(const std::string& path) {
  throw IoError("SEG-Y '" + path +
                "': this seisfd was built without SEG-Y support (libsegyio; CMake SEISFD_SEGY)");
}
}  // namespace

bool segy_built() {
  return false;
}

struct SegyGatherWriter::Impl {};
SegyGatherWriter::SegyGatherWriter(const std::string& path, int, double, const std::string&,
                                   const std::string&) {
  not_built(path);
}
SegyGatherWriter SegyGatherWriter::resume(const std::string& path, int, double,
                                          const std::string&) {
  not_built(path);
}
std::vector<std::pair<int, int>> SegyGatherWriter::traces_per_shot() const {
  return {};
}
void SegyGatherWriter::keep_first(size_t) {}
SegyGatherWriter::~SegyGatherWriter() = default;
SegyGatherWriter::SegyGatherWriter(SegyGatherWriter&&) noexcept = default;
SegyGatherWriter& SegyGatherWriter::operator=(SegyGatherWriter&&) noexcept = default;
void SegyGatherWriter::write_shot(int, const float*, int, const double*,
                                  const std::array<double, 3>&) {
  not_built(path_);
}
std::vector<int> SegyGatherWriter::shots() const {
  return {};
}
void SegyGatherWriter::finish() {
  not_built(path_);
}

struct SegyGatherReader::Impl {
  std::string text;
};
SegyGatherReader::SegyGatherReader(const std::string& path) {
  not_built(path);
}
SegyGatherReader::~SegyGatherReader() = default;
SegyGatherReader::SegyGatherReader(SegyGatherReader&&) noexcept = default;
SegyGatherReader& SegyGatherReader::operator=(SegyGatherReader&&) noexcept = default;
std::vector<int> SegyGatherReader::shots() const {
  return {};
}
ShotData SegyGatherReader::read_shot(int) const {
  not_built(path_);
}
int SegyGatherReader::first_trace(int) const {
  not_built(path_);
}
bool SegyGatherReader::coordinates_missing(int, int) const {
  return false;
}
const std::string& SegyGatherReader::text_header() const {
  not_built(path_);
}

void write_segy_cube(const std::string& path, const ImageGeometry&, const float*,
                     const std::string&, const std::string&, const std::string&) {
  not_built(path);
}
SegyCube read_segy_cube(const std::string& path) {
  not_built(path);
}
ImageGeometry segy_cube_geometry(const std::string& path) {
  not_built(path);
}

#endif

}  // namespace seisfd::io
