/* A BG/Q program whose rank 5 crashes as argv[1] says (null: a store through
 * a null pointer, abort, stack: unbounded recursion) while the other ranks
 * wait for it in a barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int* volatile nowhere = 0;

static int deep(int n) {
  volatile char pad[4096];
  pad[0] = (char)n;
  return deep(n + 1) + pad[0];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* how = argc > 1 ? argv[1] : "null";
  if (rank == 5) {
    if (!strcmp(how, "null")) *nowhere = 1;
    if (!strcmp(how, "abort")) abort();
    if (!strcmp(how, "stack")) printf("%d\n", deep(0));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d passed the barrier\n", rank);
  MPI_Finalize();
  return 0;
}
