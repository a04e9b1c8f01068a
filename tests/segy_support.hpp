// Raw access to SEG-Y bytes for the tests: header fields read and patched at their 1-based
// SEG-Y byte positions (big-endian), without segyio, so that a test can break a file on purpose.
#pragma once
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace seisfd::test::segy {

inline std::string read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void write_bytes(const std::string& p, const std::string& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

// Big-endian signed field of `size` bytes at 1-based SEG-Y byte `pos` from `base`.
inline int32_t field(const std::string& b, size_t base, int pos, int size) {
  uint32_t v = 0;
  for (int i = 0; i < size; ++i) v = (v << 8) | static_cast<unsigned char>(b[base + pos - 1 + i]);
  if (size == 2) return static_cast<int16_t>(v);
  return static_cast<int32_t>(v);
}

inline void set_field(std::string& b, size_t base, int pos, int size, int32_t value) {
  const uint32_t v = static_cast<uint32_t>(value);
  for (int i = 0; i < size; ++i)
    b[base + pos - 1 + i] = static_cast<char>((v >> (8 * (size - 1 - i))) & 0xff);
}

// Start of trace k's header (from 0) in a file of nt IEEE samples per trace.
inline size_t trace_at(int k, int nt) {
  return 3600 + static_cast<size_t>(k) * (240 + 4 * static_cast<size_t>(nt));
}

}  // namespace seisfd::test::segy
