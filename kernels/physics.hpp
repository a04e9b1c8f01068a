// The physics seisfd solves, named one way everywhere (configs, the kernel registry, engines,
// benchmarks), and the traits every backend's engine is generated from: how many wavefields
// advance together, which per-cell coefficients the update reads, the minimal bytes a step
// moves, and how the CPML corrections couple into the fields. docs/physics.md §2, §4, §5.
// Plain C++.
#pragma once
#include <optional>
#include <string>

namespace seisfd {

enum class Physics { kAcoustic, kVti, kTti };

inline constexpr Physics kAllPhysics[] = {Physics::kAcoustic, Physics::kVti, Physics::kTti};

// Per-cell coefficient arrays of the update, in this order (a physics reads a prefix of it):
// (v dt)^2; E = 1 + 2 eps, D = sqrt(1 + 2 delta); the symmetry axis n (z, y, x components).
enum MediumArray : int { kVdt2 = 0, kE = 1, kD = 2, kAxisZ = 3, kAxisY = 4, kAxisX = 5 };
inline constexpr int kMaxMediumArrays = 6;
inline constexpr int kMaxFields = 2;

struct PhysicsTraits {
  Physics physics;
  const char* name;
  // Wavefields advanced together (two time levels each): p; or p and q. Sources inject into
  // every field in the forward direction and into p in the adjoint; receivers record p forward
  // and the sum of the fields in the adjoint (docs/physics.md §7).
  int fields;
  int medium_arrays;  // the prefix of MediumArray the update reads
  // Minimal DRAM bytes per cell and step in fp32 (read both levels of every field and the
  // coefficients the streaming pattern counts, write the new level): the benchmark's ceiling.
  double min_bytes_per_cell;
  // CPML on the absorbing layers (docs/physics.md §5): axis d's memory variables follow the
  // derivative of field cpml_source[d], and its correction c_d is added to field f weighted by
  // the medium array cpml_weight[f][d] (-1: weight 1). cpml_refusal: why boundary.type =
  // "cpml" is refused (empty: CPML is implemented).
  int cpml_source[3];
  int cpml_weight[kMaxFields][3];
  const char* cpml_refusal;
};

// The table (one row per physics; a new physics adds a row and its update functions).
inline const PhysicsTraits& traits(Physics p) {
  static const PhysicsTraits table[] = {
      {Physics::kAcoustic, "acoustic", 1, 1, 16, {0, 0, 0}, {{-1, -1, -1}, {-1, -1, -1}}, ""},
      // next_p += vdt2 [E (c_x + c_y) + D c_z],  next_q += vdt2 [D (c_x + c_y) + c_z]; x and y
      // driven by p, z by q (kernels/cpml.hpp).
      {Physics::kVti, "vti", 2, 3, 36, {1, 0, 0}, {{kD, kE, kE}, {-1, kD, kD}}, ""},
      // 44 B/cell counts the two tilt angles the model is given by (the axis is derived).
      {Physics::kTti,
       "tti",
       2,
       6,
       44,
       // VTI's corrections: exact only where the layers are vertical, which the CPU reference
       // accepts (kernels/medium.hpp check_medium) and nothing else does.
       {1, 0, 0},
       {{kD, kE, kE}, {-1, kD, kD}},
       "\"cpml\" is not implemented for physics.equation = \"tti\" (unstable with a tilted "
       "symmetry axis in the layers); use \"sponge\""},
  };
  return table[static_cast<int>(p)];
}

inline const char* to_string(Physics p) {
  return traits(p).name;
}

inline std::optional<Physics> parse_physics(const std::string& s) {
  for (Physics p : kAllPhysics)
    if (s == traits(p).name) return p;
  return std::nullopt;
}

inline bool anisotropic(Physics p) {
  return p != Physics::kAcoustic;
}

}  // namespace seisfd
