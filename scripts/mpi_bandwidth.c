/* Two ranks exchange host buffers with MPI_Isend/MPI_Irecv both ways at once, as the staged
   halo exchange does each step: milliseconds an exchange and GB/s each way, per message size.
   mpicc -O2 scripts/mpi_bandwidth.c -o mpi_bandwidth && mpirun -np 2 ./mpi_bandwidth */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "mpi_bandwidth: run it on 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const size_t sizes[] = {1u << 20, 4874752u /* 4 x 552 x 552 floats: one 512^3 o8 face */,
                          16u << 20};
  for (int s = 0; s < 3; ++s) {
    const size_t n = sizes[s];
    char* out = malloc(n);
    char* in = malloc(n);
    memset(out, rank + 1, n);
    memset(in, 0, n);
    for (int round = 0; round < 3; ++round) {
      const int reps = 40;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t = MPI_Wtime();
      for (int k = 0; k < reps; ++k) {
        MPI_Request q[2];
        MPI_Irecv(in, (int)n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(out, (int)n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      }
      const double dt = MPI_Wtime() - t;
      if (rank == 0)
        printf("mpi exchange %9zu B each way: %.3f ms, %.2f GB/s each way (round %d)\n", n,
               1e3 * dt / reps, (double)n * reps / dt / 1e9, round + 1);
    }
    if (in[0] != 2 - rank) fprintf(stderr, "mpi_bandwidth: wrong data on rank %d\n", rank);
    free(out);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
