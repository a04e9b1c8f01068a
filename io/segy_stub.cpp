// A build without libsegyio (CMake SEISFD_SEGY=OFF, or AUTO without it): every SEG-Y entry
// point throws an IoError saying so; segy_built() is false.
#include "io/error.hpp"
#include "io/segy.hpp"

namespace seisfd::io {

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

}  // namespace seisfd::io
