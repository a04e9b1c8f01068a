// Compile-time tuning of the GPU variants (CUB's habit: each default beside the measurement that
// chose it). A policy is the set of template parameters a technique's kernels are compiled with;
// `<Technique>Default<R>` is the one the library compiles and registers for radius R. The other
// policies here are compiled only by bench/sweep (seisfd-sweep), which times them side by side;
// a new measurement that changes a default changes one line here. Plain C++.
// Numbers: 512^3 interior + 20-cell sponge, fp32, Gcells/s of the whole grid, device events,
// median of 7 x 20 launches; details and the runs in bench/NOTES.md.
#pragma once
#include <type_traits>

namespace seisfd::cuda::tuning {

// ---- Registry preference (KernelVariant::preference; "auto" without measurements) ----------
// H100 512^3 + sponge 20, order 8: shfl_regqueue 181, smem_regqueue 180, cluster_dsmem 174,
// tma_ring 173, naive 90, smem_tile 75 Gcells/s; at order 16 tma_ring leads (170 vs 151-163).
inline constexpr int kPreferenceShflRegqueue = 10;
inline constexpr int kPreferenceSmemRegqueue = 20;
inline constexpr int kPreferenceClusterDsmem = 30;
inline constexpr int kPreferenceTmaRing = 40;
inline constexpr int kPreferenceNaive = 50;
inline constexpr int kPreferenceSmemTile = 60;
// vti/tti: naive (H100, order 8: VTI 51.5, TTI 9.8 Gcells/s); the VTI z-marching kernel ahead
// of it until measured (bench/NOTES.md).
inline constexpr int kPreferenceAnisoNaive = 50;
inline constexpr int kPreferenceVtiSmemRegqueue = 20;
// tti: the z-marching ring kernel ahead of naive until measured (bench/NOTES.md).
inline constexpr int kPreferenceTtiSmemRing = 20;
// tti smem_ring_y2 (orders 2-6) ahead of smem_ring: measured faster at order 4 (bench/NOTES.md).
inline constexpr int kPreferenceTtiSmemRingY2 = 19;
// tti smem_nested (the nested operator only, where naive is the other choice): ahead of naive.
inline constexpr int kPreferenceTtiSmemNested = 20;

// ---- smem_regqueue (kernels/cuda/acoustic_smem_regqueue.cuh) -------------------------------
// Staged: the plane loads go through registers, issued Ahead steps before the step that uses
// them. MinBlocks: blocks per SM by launch bounds; 3 caps the registers at 80, so those
// policies are compiled for R <= 4 only (the queue of a larger R spills).
template <int Ahead, int MinBlocks>
struct SmemRegqueueStaged {
  static constexpr bool kAsync = false;
  static constexpr int kAhead = Ahead;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kMaxRadius = MinBlocks >= 3 ? 4 : 8;
  static constexpr bool kFusesDiagnostics = false;
};
// Async: 16-byte cp.async into a 3-stage shared-memory ring two planes ahead.
template <int MinBlocks, bool FusesDiagnostics>
struct SmemRegqueueAsync {
  static constexpr bool kAsync = true;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kMaxRadius = MinBlocks >= 3 ? 4 : 8;
  static constexpr bool kFusesDiagnostics = FusesDiagnostics;
};
// H200, 2026-11-22, orders 4 / 8 / 16 (streaming ceiling 278):
using SmemRegqueueA0B3 = SmemRegqueueStaged<0, 3>;       // 218 / 186 / -  (R = 4 spills 32 B)
using SmemRegqueueA0B2 = SmemRegqueueStaged<0, 2>;       //   - / 167 / 150
using SmemRegqueueA1B2 = SmemRegqueueStaged<1, 2>;       // 206 / 190 / 118
using SmemRegqueueAsync3 = SmemRegqueueAsync<3, false>;  // 247 / 242 / -
using SmemRegqueueAsync2 = SmemRegqueueAsync<2, true>;   // 247 / 258 / 194
// Every order: async2 (H100 2026-11-23: 169.9 / 179.3 / 150.6, 0.875 / 0.922 / 0.774 of the
// ceiling). Its kernel also reduces the diagnostics (fused: +0.7% at K = 10 against +5.0% for
// the separate pass, H100 512^3 o8).
template <int R>
using SmemRegqueueDefault = SmemRegqueueAsync2;

// ---- shfl_regqueue (kernels/cuda/acoustic_shfl_regqueue.cuh) -------------------------------
// Tile 128 x Rows (a warp per row), MinBlocks blocks per SM by launch bounds (<= 128 registers
// either way).
template <int Rows, int MinBlocks, bool FusesDiagnostics>
struct ShflRegqueuePolicy {
  static constexpr int kRows = Rows;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr bool kFusesDiagnostics = FusesDiagnostics;
};
// H100 SXM, 2026-11-22, orders 4 / 8 / 16 (ceiling 194.5):
using ShflRegqueueY16B1 = ShflRegqueuePolicy<16, 1, true>;  // 178.5 / 181.2 / 155.1
using ShflRegqueueY8B2 = ShflRegqueuePolicy<8, 2, false>;   // 178.7 / 180.1 / 152.1
// Every order: y16b1. ptxas (sm_90): 61 / 71 / 88 / 101 / 113 / 123 / 123 / 126 registers at
// R = 1..8, no spills; shared memory 103 KB (R = 1) .. 126 KB (R = 8). Tried on it and not kept:
// the z loop unrolled by 2R+1 (178.5 / 181.4 / 80.0: instruction-cache misses at R = 8) and no
// division where the sponge term is 0 (178.5 / 181.6 / 144.0).
template <int R>
using ShflRegqueueDefault = ShflRegqueueY16B1;

// ---- tma_ring (kernels/cuda/acoustic_tma_ring.cuh) -----------------------------------------
// Tile 64 x TileRows, MinBlocks blocks per SM by launch bounds, planes issued Ahead ahead;
// Split: the cur box of plane z and the own tile of cur at z+R as separate copies (else the deep
// ring: one box of z+R kept R+1 steps). L2Promotion: the L2 fetch granule of the TMA reads in
// bytes (0: none). Name: t<TileRows>b<MinBlocks>[a<Ahead>], s... for split.
template <int TileRows, int MinBlocks, bool Split, int Ahead, int L2Promotion = 256>
struct TmaRingPolicy {
  static constexpr int kTileRows = TileRows;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr bool kSplit = Split;
  static constexpr int kAhead = Ahead;
  static constexpr int kL2Promotion = L2Promotion;
  static constexpr bool kFusesDiagnostics = false;
};
// H100 80GB HBM3, 2026-11-22, orders 2 / 4 / 8 / 12 / 16 (ceiling 194.5; smem_regqueue in the
// same runs - / 170 / 179.5 / 168.5 / 150.7), DRAM reads per o8 launch (minimum 2.17 GB):
using TmaRingT16B3 = TmaRingPolicy<16, 3, false, 2>;  //     - / 144.9 / 153.8 /     - /     -  2.58
using TmaRingT16B2 = TmaRingPolicy<16, 2, false, 2>;  // 147.2 / 145.0 / 169.4 / 160.7 /     -  2.30
using TmaRingT32B1 = TmaRingPolicy<32, 1, false, 2>;  // 149.4 / 148.3 / 172.7 / 169.2 / 170.0  2.26
using TmaRingT32B2 = TmaRingPolicy<32, 2, false, 2>;  // 149.9 / 148.4 /     - /     - /     -
using TmaRingT16B3A3 = TmaRingPolicy<16, 3, false, 3>;  // 150.5 / 148.7 /     - /     - /     -
using TmaRingT16B2A3 = TmaRingPolicy<16, 2, false, 3>;  //     - / 149.6 / 160.2 /     - /     -
using TmaRingT32B1A3 = TmaRingPolicy<32, 1, false, 3>;  //     - / 153.7 / 163.2 / 150.0 /     -
using TmaRingS16B3 = TmaRingPolicy<16, 3, true, 2>;  //     - / 141.0 / 144.0 /     - /     -  2.81
using TmaRingS16B2 = TmaRingPolicy<16, 2, true, 2>;  //     - / 141.1 / 165.8 /     - / 133.9  2.36
using TmaRingS32B1 = TmaRingPolicy<32, 1, true, 2>;  //     - / 144.5 / 170.3 /     - / 141.7  2.29
// L2 promotion none / 128 / 256 changed nothing (within 0.3%); 256 stays.
using TmaRingT32B1L2None = TmaRingPolicy<32, 1, false, 2, 0>;
using TmaRingT32B1L2x64 = TmaRingPolicy<32, 1, false, 2, 64>;
using TmaRingT32B1L2x128 = TmaRingPolicy<32, 1, false, 2, 128>;
// Orders 2-4: t32b1a3 (order 2 not measured with it: it takes order 4's); orders 6-16: t32b1
// (orders 6, 10, 14 not measured: they take their neighbours').
template <int R>
using TmaRingDefault = std::conditional_t<(R <= 2), TmaRingT32B1A3, TmaRingT32B1>;

// ---- cluster_dsmem (kernels/cuda/acoustic_cluster_dsmem.cuh) -------------------------------
// ClusterBlocks y-adjacent blocks per cluster (1..8, portable sizes); AsyncPush: the edge rows
// go by st.async completing on the receiver's mbarrier, the cluster barrier arrived relaxed;
// else plain remote stores behind a release/acquire cluster barrier (a MEMBAR.ALL.GPU in SASS).
template <int ClusterBlocks, bool AsyncPush>
struct ClusterDsmemPolicy {
  static_assert(ClusterBlocks >= 1 && ClusterBlocks <= 8, "portable cluster sizes are 1..8");
  static constexpr int kClusterBlocks = ClusterBlocks;
  static constexpr bool kAsyncPush = AsyncPush;
  static constexpr bool kFusesDiagnostics = false;
};
// H100, 2026-11-22, fraction of the streaming ceiling at orders 4 / 8 / 16 (smem_regqueue in the
// same run 0.875 / 0.922 / 0.775; bench/results/2026-11-22_055824_*_bench-cluster-dsmem.csv). Half
// of the y-halo rows still come from global memory at 2 blocks, a quarter at 4:
using ClusterDsmemC1 = ClusterDsmemPolicy<1, true>;     // 0.857 / 0.882 / 0.792 (no exchange)
using ClusterDsmemC2 = ClusterDsmemPolicy<2, true>;     // 0.863 / 0.895 / 0.838 (264 resident)
using ClusterDsmemC4 = ClusterDsmemPolicy<4, true>;     // 0.868 / 0.868 / 0.809 (248 resident:
                                                        // clusters of 4 leave SMs of a GPC idle)
using ClusterDsmemC8 = ClusterDsmemPolicy<8, true>;     // not measured
using ClusterDsmemC2St = ClusterDsmemPolicy<2, false>;  // 0.866 / 0.791 / 0.695
// Not measured in its present form (the first version, its stores before the fence, 0.810 /
// 0.686 / 0.620: "membar" the top stall):
using ClusterDsmemC4St = ClusterDsmemPolicy<4, false>;
template <int R>
using ClusterDsmemDefault = ClusterDsmemC2;

// ---- tti smem_nested (kernels/cuda/tti_smem_nested.cuh) ------------------------------------
// Tile 32 x TileRows; MinBlocks blocks per SM by launch bounds, and the shared-memory layout
// made to fit them (the rings' power-of-two slot mask only where it leaves room); Producers: the
// threads that issue an iteration's TMA group (1: thread 0, in a warp with halo tasks; 2: lane 0
// of the last two warps, which carry none at orders 4-8, each issuing half of the group);
// ZQueue: the own cell's z derivatives in stage A from register queues of the column's u and w
// (else from the ring's planes in shared memory). Names: y<TileRows>b<MinBlocks>p<Producers>[q].
template <int TileRows, int MinBlocks, int Producers, bool ZQueue = false>
struct TtiNestedPolicy {
  static_assert(Producers == 1 || Producers == 2, "one or two producer threads");
  static constexpr int kTileRows = TileRows;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kProducers = Producers;
  static constexpr bool kZQueue = ZQueue;
  // 3 blocks of 256 threads cap the registers at 85: orders <= 8 only (order 12 takes 96).
  static constexpr int kMaxRadius = TileRows * 32 * MinBlocks > 512 ? 4 : 8;
};
// H200, 2026-11-29, Gcells/s at orders 4 / 8 / 16 (512^3 + sponge 20; ceiling ~100; two sweeps
// in two calls, the second's where they differ):
using TtiNestedY8B2P1 = TtiNestedPolicy<8, 2, 1>;         // 60.0 / 51.4 /    -  (3a77cc7's kernel)
using TtiNestedY8B2P2 = TtiNestedPolicy<8, 2, 2>;         // 60.8 / 53.9 /    -
using TtiNestedY8B3P2 = TtiNestedPolicy<8, 3, 2>;         // 61.0 / 52.0 /    -  (o8: no slot mask)
using TtiNestedY16B1P1 = TtiNestedPolicy<16, 1, 1>;       // 66.3 / 50.9 / 25.0
using TtiNestedY16B1P2 = TtiNestedPolicy<16, 1, 2>;       // 66.0 / 52.2 / 25.3
using TtiNestedY8B2P2Q = TtiNestedPolicy<8, 2, 2, true>;  // 60.8 / 54.2 /    -
using TtiNestedY16B1P2Q = TtiNestedPolicy<16, 1, 2, true>;  // 65.2 / 52.8 / 27.4
// Order 4: 32 x 16 (its 56 registers keep two 512-thread blocks a multiprocessor), z from the
// ring; orders 8-12: 32 x 8, two blocks, z queues (order 12 not measured: it takes order 8's);
// order 16: 32 x 16 (its halo tasks need the threads), z queues. Two producers everywhere
// (orders 4 and 16 within noise of one).
template <int R>
using TtiNestedDefault =
    std::conditional_t<(R <= 2), TtiNestedY16B1P2,
                       std::conditional_t<(R <= 6), TtiNestedY8B2P2Q, TtiNestedY16B1P2Q>>;

}  // namespace seisfd::cuda::tuning
