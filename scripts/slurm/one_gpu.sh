#!/bin/bash
# One shot (or a small survey) on one GPU. Submit: sbatch scripts/slurm/one_gpu.sh CONFIG
#SBATCH --job-name=seisfd
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
#SBATCH --signal=B:USR1@120
# SIGUSR1 two minutes before the time limit: seisfd run writes a checkpoint and exits 75;
# resubmit with --resume (the same config) to continue.
set -euo pipefail
CONFIG=${1:?usage: sbatch one_gpu.sh CONFIG [seisfd run options]}
shift
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-8}
SEISFD=${SEISFD:-seisfd}
# exec, so that the batch shell's signal reaches seisfd itself.
exec "$SEISFD" run "$CONFIG" --quiet "$@"
