"""The environment the rank tests launch mpirun with: one OpenMP thread a rank (the tests
oversubscribe 2 cores), and OpenMPI allowed to run as root (CI runs as root)."""
import os


def mpi_env(**extra):
    return dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **extra)
