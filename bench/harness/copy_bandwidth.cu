// Device-to-device copy bandwidth (bytes read + bytes written per second), the reference
// number reported beside every benchmark (docs/benchmarks.md §3). Median of 20 copies of 2 GiB.
//
// `copy_bandwidth host`: instead, the device <-> host copy rates of one halo face (4.87 MB:
// 4 x 560 x 544 floats, a 512^3 order-8 x face with its sponge), as the staged MPI exchange moves
// it each step, into and out of page-locked memory from cudaMallocHost and shared anonymous
// memory pinned with cudaHostRegister (what its node-shared segments are). Two processes at once
// show two ranks sharing the link (scripts/device.sh host-copy).
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                                    \
    }                                                              \
  } while (0)

int host_face_rates() {
  const size_t bytes = 4ull * 560 * 544 * 4;
  const int reps = 200;
  void* dev = nullptr;
  CK(cudaMalloc(&dev, 2 * bytes));
  void* locked = nullptr;
  CK(cudaMallocHost(&locked, 2 * bytes));
  void* shared =
      mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  CK(cudaHostRegister(shared, 2 * bytes, cudaHostRegisterPortable));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int round = 0; round < 2; ++round)
    for (void* host : {locked, shared})
      for (int dir = 0; dir < 3; ++dir) {  // 0: D2H, 1: H2D, 2: both at once (two streams)
        cudaStream_t s2;
        CK(cudaStreamCreate(&s2));
        CK(cudaEventRecord(a, s));
        for (int k = 0; k < reps; ++k) {
          if (dir != 1) CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
          if (dir != 0)
            CK(cudaMemcpyAsync(static_cast<char*>(dev) + bytes, static_cast<char*>(host) + bytes,
                               bytes, cudaMemcpyHostToDevice, dir == 2 ? s2 : s));
        }
        CK(cudaStreamSynchronize(s2));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        std::printf("%-28s %-16s %.3f ms a face, %.1f GB/s (round %d)\n",
                    host == locked ? "cudaMallocHost" : "shared mmap + HostRegister",
                    dir == 0   ? "device to host"
                    : dir == 1 ? "host to device"
                               : "both ways at once",
                    ms / reps, bytes * reps / (ms * 1e6), round + 1);
        CK(cudaStreamDestroy(s2));
      }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "host") == 0) return host_face_rates();
  const size_t bytes = size_t(2) << 30;
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s\ncopy_bandwidth_GBps %.0f\n", p.name, 2.0 * bytes / (ms[10] * 1e-3) / 1e9);
  return 0;
}
