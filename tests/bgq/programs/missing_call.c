/* A call hopsim does not have (tests/bgq/CMakeLists.txt): hopsim-mpicc
 * refuses to link the program and names the symbol. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int MPIX_Not_in_hopsim(MPI_Comm c);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 5) MPIX_Not_in_hopsim(MPI_COMM_WORLD);
  printf("%.1f\n", sqrt((double)argc));
  MPI_Finalize();
  return 0;
}
