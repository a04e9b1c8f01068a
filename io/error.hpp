// Errors from the io layer: HDF5 and file-system calls, with the call, file and line.
#pragma once
#include <stdexcept>
#include <string>

namespace seisfd::io {

class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace seisfd::io
