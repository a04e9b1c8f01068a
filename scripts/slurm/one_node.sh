#!/bin/bash
# One node of several GPUs, one rank a GPU: the grid split among them ([parallel] in the config;
# decomposition "auto" by default), halos through CUDA IPC (parallel.exchange = "auto" picks
# "peer" on one node). Submit: sbatch scripts/slurm/one_node.sh CONFIG
#SBATCH --job-name=seisfd-node
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
set -euo pipefail
CONFIG=${1:?usage: sbatch one_node.sh CONFIG [seisfd run options]}
shift
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-8}
SEISFD=${SEISFD:-seisfd}
# Each rank takes the GPU of its node-local rank (every GPU of the node stays visible to every
# rank: CUDA IPC between the ranks needs that). With PMIx: srun --mpi=pmix.
srun --mpi=pmix --cpu-bind=cores "$SEISFD" run "$CONFIG" --quiet "$@"
