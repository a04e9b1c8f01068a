"""The environment the rank tests launch mpirun with: one OpenMP thread a rank (the tests
oversubscribe 2 cores), OpenMPI allowed to run as root (CI runs as root) and given a session
directory of this test's own; and whether a GPU test can run.

The session directory: OpenMPI 4 keeps every job of a user under one /tmp/ompi.<host>.<uid>, and
a job that ends removes it while another one (ctest -j runs rank tests side by side) may be
creating its own inside it: that job's ranks die in orte_init ("orte_session_dir failed"). A
directory per test process (removed when it exits) keeps concurrent tests apart."""
import atexit
import os
import shutil
import subprocess
import tempfile

_session_base = None


def mpi_env(**extra):
    global _session_base
    if _session_base is None:
        _session_base = tempfile.mkdtemp(prefix="seisfd-ompi-")
        atexit.register(shutil.rmtree, _session_base, True)
    return dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_orte_tmpdir_base=_session_base,
                **extra)


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
