/* A BG/Q program whose rank 3 calls exit(7) while the others return 0:
 * the run ends with status 7, the other ranks' work is not cut short. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 3) exit(7);
  printf("rank %d done\n", rank);
  return 0;
}
