#!/bin/bash
# Many nodes: the grid split over every GPU of the job (a big model), or shot groups of a few
# GPUs each (a big survey: --set parallel.shot_groups=G). Between nodes the halos go through MPI
# (parallel.exchange = "auto" picks "mpi" for a group that spans nodes; a group inside one node
# uses "peer"). Submit: sbatch --nodes=4 scripts/slurm/many_nodes.sh CONFIG
#SBATCH --job-name=seisfd-multi
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
set -euo pipefail
CONFIG=${1:?usage: sbatch --nodes=N many_nodes.sh CONFIG [seisfd run options]}
shift
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-8}
SEISFD=${SEISFD:-seisfd}
srun --mpi=pmix --cpu-bind=cores "$SEISFD" run "$CONFIG" --quiet "$@"
# With mpirun instead of srun (OpenMPI, one rank a GPU):
#   mpirun -np $SLURM_NTASKS --map-by ppr:8:node --bind-to core "$SEISFD" run "$CONFIG" --quiet
