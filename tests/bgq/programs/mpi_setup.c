/* The MPI start-up and SPI helpers BG/Q SPI programs use: MPI_Init_thread,
 * MPI_Dims_create, MPI_Get_processor_name, MPI_Wtime, DelayTimeBase,
 * Kernel_ProcessCount, _bgq_msync, an OpenMP reduction between two
 * barriers, and MPI_Isend/MPI_Irecv/MPI_Waitall around the ring. Prints the
 * same lines in every mode. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>
#include <omp.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/process.h>

#include <stdio.h>

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("provided %d, %u process(es) per node\n", provided, Kernel_ProcessCount());
    const int cases[][5] = {{32, 4, 0, 0, 0}, {32, 4, 4, 0, 0}, {12, 3, 0, 0, 0}, {7, 2, 0, 0, 0}, {36, 3, 0, 3, 0}};
    for (int c = 0; c < 5; ++c) {
      int dims[3] = {0, 0, 0}, nd = cases[c][1] < 4 ? cases[c][1] : 3;
      int d4[4] = {cases[c][2], cases[c][3], cases[c][4], 0};
      int* d = cases[c][1] == 4 ? d4 : dims;
      if (cases[c][1] != 4)
        for (int i = 0; i < nd; ++i) dims[i] = cases[c][2 + i];
      const int rc = MPI_Dims_create(cases[c][0], cases[c][1], d);
      printf("dims_create(%d, %d): rc %d ->", cases[c][0], cases[c][1], rc);
      for (int i = 0; i < cases[c][1]; ++i) printf(" %d", d[i]);
      printf("\n");
    }
    int bad[2] = {5, 0};
    printf("dims_create(12, 2) with 5 fixed: rc %d\n", MPI_Dims_create(12, 2, bad));
  }
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  const double w0 = MPI_Wtime();
  const uint64_t t0 = GetTimeBase();
  DelayTimeBase(5000);
  const uint64_t t1 = GetTimeBase();
  _bgq_msync();
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; ++i) s += i * (rank + 1);
  /* Non-blocking exchange with both ring neighbours: receives posted first, waited for together. */
  const int up = (rank + 1) % size, down = (rank + size - 1) % size;
  int out[2] = {rank * 10 + 1, rank * 10 + 2}, in[2] = {-1, -1};
  MPI_Request req[4];
  MPI_Irecv(&in[0], 1, MPI_INT, down, 7, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&in[1], 1, MPI_INT, up, 8, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&out[0], 1, MPI_INT, up, 7, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&out[1], 1, MPI_INT, down, 8, MPI_COMM_WORLD, &req[3]);
  MPI_Status st[4];
  MPI_Waitall(4, req, st);
  const int ring_ok = in[0] == down * 10 + 1 && in[1] == up * 10 + 2 && st[0].MPI_SOURCE == down &&
                      st[1].MPI_SOURCE == up && req[0] == MPI_REQUEST_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d on %s (%d chars): delay %s, wtime %s, sum %.0f, ring %s\n", rank, name, len,
         t1 - t0 >= 5000 ? "ok" : "SHORT", MPI_Wtime() >= w0 ? "ok" : "BACKWARDS", s, ring_ok ? "ok" : "WRONG");
  return 0;
}
