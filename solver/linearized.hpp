// Born modelling and migration of one shot about an engine's medium (docs/migration.md §2-§3):
// the linearised modelling operator B (a perturbation dm of m = 1/v^2 to scattered data) and
// its exact transpose B^T (data to an image), on any engine and physics.
#pragma once
#include <vector>

#include "kernels/propagation.hpp"
#include "solver/storage.hpp"

namespace seisfd {

// One shot on an engine's grid.
struct ShotOperator {
  SparsePoints sources, receivers;
  std::vector<double> wavelet;  // [sources][nt]
  int nt = 0;
  double dt = 0;
  // A decomposed run (docs/parallel.md): the engine computes one rank's part, the points are
  // the rank's own (rows of the data and traces in their order) and this fills the halo of
  // every propagation the operators step.
  HaloExchange* exchange = nullptr;
};

// B dm: the scattered data [receivers][nt]. dm: an array of the engine (s^2/m^2 per cell).
std::vector<double> born(Engine& e, const ShotOperator& shot, const CellArray& dm);

// What one shot's migration adds to (+=), arrays of the engine; null: not wanted.
struct ShotImages {
  CellArray* crosscorrelation = nullptr;  // B^T d (exact with imaging interval 1)
  CellArray* illumination = nullptr;      // sum over imaging steps of u_p^2
  CellArray* zero_lag = nullptr;          // sum of u_p psi_p at equal times
};

// Wall seconds of a shot's two passes (the engine synchronised after each).
struct MigrationTimes {
  double forward = 0;   // the source propagation and what the storage keeps
  double backward = 0;  // the adjoint propagation, the recomputation of u, the imaging
};

// Migrates data [receivers][nt] (sampled every step) into `images`, the source field kept or
// recomputed by `storage`, the correlations taken at the imaging steps (scaled by the interval).
// Throws std::invalid_argument where the engine has no adjoint (CPML).
void migrate(Engine& e, const ShotOperator& shot, const std::vector<double>& data,
             SourceStorage& storage, const ImagingSteps& steps, const ShotImages& images,
             MigrationTimes* times = nullptr);

}  // namespace seisfd
