// kernel.compressible: whether the CUDA engine's wavefield and model arrays live in memory with
// generic compression (kernels/cuda/compressible.hpp). Plain C++: the config reads it in
// builds without CUDA too.
#pragma once

namespace seisfd {

// kAuto: compressible where the device grants it, plain memory otherwise; kOn: the run stops
// if the device or driver cannot provide it; kOff: plain cudaMalloc.
enum class Compressible { kAuto, kOn, kOff };

inline const char* to_string(Compressible c) {
  return c == Compressible::kAuto ? "auto" : c == Compressible::kOn ? "on" : "off";
}

}  // namespace seisfd
