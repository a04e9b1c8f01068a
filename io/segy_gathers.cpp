// gathers.sgy: SegyGatherWriter (new and resumed files) and SegyGatherReader (docs/outputs.md §8).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "io/files.hpp"
#include "io/segy.hpp"
#include "io/segy_file.hpp"

namespace seisfd::io {

using namespace segy_detail;
namespace fs = std::filesystem;

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

}  // namespace seisfd::io
