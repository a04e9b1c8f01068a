// Where device work runs: the device and the stream, passed to every launch so that nothing
// depends on which device happens to be current. Plain C++ (the stream is a cudaStream_t
// behind void*; nullptr is the device's default stream).
#pragma once

namespace seisfd {

struct ExecContext {
  int device = 0;
  void* stream = nullptr;
};

}  // namespace seisfd
