/* Counted compute on the A2 (compute.model = counted): every rank sums n
 * doubles with count_sum (count_a2.ll, whose count is worked by hand
 * there) and prints the sum (the same in every mode); rank 0 also prints
 * on stderr the cycles GetTimeBase saw the call take. Argument: n
 * (1..1000). */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

double count_sum(const double* v, long n);

static double v[1000];

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long n = argc > 1 ? atol(argv[1]) : 100;
  if (n < 1 || n > 1000) {
    fprintf(stderr, "count_a2: n must be 1..1000\n");
    return 2;
  }
  for (long i = 0; i < n; ++i) v[i] = (double)(i + rank);
  const uint64_t t0 = GetTimeBase();
  const double s = count_sum(v, n);
  const uint64_t t1 = GetTimeBase();
  printf("rank %d: sum %.0f\n", rank, s);
  if (rank == 0) fprintf(stderr, "count_sum: %llu cycles\n", (unsigned long long)(t1 - t0));
  MPI_Finalize();
  return 0;
}
