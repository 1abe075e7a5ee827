/* Communicators freed serve again (tests/bgq/CMakeLists.txt): more
 * MPI_Comm_dup and MPI_Comm_split than there are contexts, each freed
 * again, newest first and oldest first; then the communicators made last
 * carry a ring and an allreduce. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 17000 /* more than the 16380 communicators that may be in use at once */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Newest first: dup, free. */
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_free(&c);
  }
  /* Oldest first: two alive, the older freed after each split. */
  MPI_Comm older, newer;
  MPI_Comm_dup(MPI_COMM_WORLD, &older);
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Comm_split(older, 0, size - rank, &newer);
    MPI_Comm_free(&older);
    older = newer;
  }
  /* The last split ordered the ranks by key: rank r of world is size - 1 - r of `older`. */
  int me;
  MPI_Comm_rank(older, &me);
  MPI_Comm dup;
  MPI_Comm_dup(older, &dup);
  int sum = 0, from = -1;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
  MPI_Sendrecv(&rank, 1, MPI_INT, (me + 1) % size, 5, &from, 1, MPI_INT, (me + size - 1) % size, 5, older,
               MPI_STATUS_IGNORE);
  const int expect_from = (rank + 1) % size;
  printf("rank %d: %d dup/free and %d split/free, rank %d in the last, allreduce %d, ring from %d: %s\n", rank, ROUNDS,
         ROUNDS, me, sum, from,
         me == size - 1 - rank && sum == size * (size - 1) / 2 && from == expect_from ? "ok" : "WRONG");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&older);
  MPI_Finalize();
  return 0;
}
