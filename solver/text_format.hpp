// Numbers as text in messages and summaries (`seisfd check`, errors naming a value).
#pragma once
#include <cmath>
#include <sstream>
#include <string>

namespace seisfd {

// v with `digits` significant digits ("1500", "0.0123", "1.5e+06").
inline std::string significant(double v, int digits = 4) {
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

// v with `digits` significant digits, rounded down: a limit printed this way can be copied into
// a config and is accepted.
inline std::string significant_down(double v, int digits) {
  if (!(v > 0) || !std::isfinite(v)) return significant(v, digits);
  const double unit = std::pow(10.0, std::floor(std::log10(v)) - (digits - 1));
  double r = std::floor(v / unit) * unit;
  for (int i = 0; i < 3 && std::stod(significant(r, digits)) > v; ++i) r -= unit;
  return significant(r, digits);
}

}  // namespace seisfd
