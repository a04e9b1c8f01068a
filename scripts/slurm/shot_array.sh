#!/bin/bash
# A survey as an array job: task k of N models the shots on lines k, k + N, k + 2N, ... of the
# file SHOTS_FILE (x y z a line, as shots.layout = "file" reads it) into its own output directory
# shots_task_k (no MPI; each task one GPU). CONFIG's [shots] must have layout = "file" (the task
# replaces shots.file with its own lines). A task numbers its shots from 0; the source position
# of each is in its gathers.h5 (attribute "source" of each shot group). For one job that
# balances uneven shots itself, prefer many_nodes.sh with parallel.shot_groups.
# Submit: SHOTS_FILE=shots.txt sbatch --array=0-15 scripts/slurm/shot_array.sh CONFIG
#SBATCH --job-name=seisfd-shots
#SBATCH --ntasks=1
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
set -euo pipefail
CONFIG=${1:?usage: sbatch --array=0-(N-1) shot_array.sh CONFIG}
shift
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-8}
SEISFD=${SEISFD:-seisfd}
K=${SLURM_ARRAY_TASK_ID:?run as an array job}
# The shots of a file list (shots.layout = "file") can be split by line: here the task's shots
# are the lines k, k + N, ... of SHOTS_FILE, written into a file of its own.
N=${SLURM_ARRAY_TASK_COUNT:?}
SHOTS_FILE=${SHOTS_FILE:?set SHOTS_FILE to the file of shot positions of the survey, x y z a line}
MINE=$(mktemp --suffix=.txt)
awk -v k="$K" -v n="$N" '!/^#/ && NF { if ((i++ % n) == k) print }' "$SHOTS_FILE" > "$MINE"
exec "$SEISFD" run "$CONFIG" --quiet --set shots.layout=\"file\" --set shots.file=\"$MINE\" \
  --set output.directory=\"shots_task_$K\" "$@"
