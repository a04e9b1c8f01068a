"""The environment the rank tests launch mpirun with: one OpenMP thread a rank (the tests
oversubscribe 2 cores), and OpenMPI allowed to run as root (CI runs as root); and whether a GPU
test can run."""
import os
import subprocess


def mpi_env(**extra):
    return dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **extra)


def no_cuda_device(seisfd):
    """None where `seisfd info` finds a CUDA device; else the exit code of a test that needs one
    (77: skipped; 1 under SEISFD_REQUIRE_GPU=1), its line printed."""
    info = subprocess.run([seisfd, "info"], capture_output=True, text=True).stdout
    if "no CUDA device" not in info and "CUDA backend off" not in info:
        return None
    if os.environ.get("SEISFD_REQUIRE_GPU") == "1":
        print("FAIL: SEISFD_REQUIRE_GPU=1 but seisfd finds no CUDA device")
        return 1
    print("SKIPPED: no CUDA device")
    return 77
