// Device <-> host copy rates of one halo face (4.87 MB: 4 x 560 x 544 floats, a 512^3 order-8 x
// face with its sponge), as the staged MPI exchange moves it each step: into and out of page-locked
// memory from cudaMallocHost, and into and out of shared anonymous memory pinned with
// cudaHostRegister (what the node-shared segments are). Run two at once to see two ranks share the
// link.   nvcc -O2 scripts/host_copy_rate.cu -o host_copy_rate && ./host_copy_rate
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <cstdio>

#define CHECK(x)                                                   \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                                    \
    }                                                              \
  } while (0)

int main() {
  const size_t bytes = 4ull * 560 * 544 * 4;
  const int reps = 200;
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, 2 * bytes));
  void* locked = nullptr;
  CHECK(cudaMallocHost(&locked, 2 * bytes));
  void* shared =
      mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  CHECK(cudaHostRegister(shared, 2 * bytes, cudaHostRegisterPortable));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int round = 0; round < 2; ++round)
    for (void* host : {locked, shared})
      for (int dir = 0; dir < 3; ++dir) {  // 0: D2H, 1: H2D, 2: both at once (two streams)
        cudaStream_t s2;
        CHECK(cudaStreamCreate(&s2));
        CHECK(cudaEventRecord(a, s));
        for (int k = 0; k < reps; ++k) {
          if (dir != 1) CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
          if (dir != 0)
            CHECK(cudaMemcpyAsync(static_cast<char*>(dev) + bytes, static_cast<char*>(host) + bytes,
                                  bytes, cudaMemcpyHostToDevice, dir == 2 ? s2 : s));
        }
        CHECK(cudaStreamSynchronize(s2));
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        std::printf("%-28s %-16s %.3f ms a face, %.1f GB/s (round %d)\n",
                    host == locked ? "cudaMallocHost" : "shared mmap + HostRegister",
                    dir == 0   ? "device to host"
                    : dir == 1 ? "host to device"
                               : "both ways at once",
                    ms / reps, bytes * reps / (ms * 1e6), round + 1);
        CHECK(cudaStreamDestroy(s2));
      }
  return 0;
}
