/* The halo exchange of kernels/bgq/halo.cpp written in MPI, as urbach/Qspi's
 * NonBlocking.c writes it: on the periodic 4-D grid {A*B, C, D, E}, every
 * rank posts MPI_Irecv from its 8 neighbours, MPI_Isend to them and
 * MPI_Waitall. Built with hopsim-mpicc; run with `hopsim bgq exec` or
 * HOPSIM_MODE=sim|native.
 *
 * Usage: mpi_halo [--halo-only] [ITERATIONS [SIZE ...]]   (default 3
 * iterations of 1, 2, 4, 8, 16, 32 and 64 KiB per neighbour; --halo-only
 * leaves out the ping-pong and the collectives)
 *
 * stdout: each size's data check (the same in every mode); stderr: the
 * cycles of a zero-byte ping-pong between neighbours (half a round trip), of
 * an MPI_Allreduce of one double, and of each exchange (mean over ranks and iterations, GetTimeBase between two
 * barriers), so the two modes' stdout can be compared. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM_DIRS 8

static int rank, size;

/* Mean over ranks of a per-rank cycle count. */
static double mean_cycles(double mine) {
  double sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / size;
}

static void pingpong(MPI_Comm cart, int peer_plus, int peer_minus, int coord0) {
  const int reps = 20;
  char b = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const uint64_t t0 = GetTimeBase();
  for (int i = 0; i < reps; ++i) {
    if (coord0 % 2 == 0) {
      MPI_Send(&b, 0, MPI_BYTE, peer_plus, 1, cart);
      MPI_Recv(&b, 0, MPI_BYTE, peer_plus, 1, cart, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&b, 0, MPI_BYTE, peer_minus, 1, cart, MPI_STATUS_IGNORE);
      MPI_Send(&b, 0, MPI_BYTE, peer_minus, 1, cart);
    }
  }
  const double half = (double)(GetTimeBase() - t0) / reps / 2;
  const double m = mean_cycles(half);
  if (rank == 0) fprintf(stderr, "zero-byte ping-pong with a neighbour: %.0f cycles per half round trip\n", m);
}

/* MPI_Allreduce, MPI_Reduce and MPI_Bcast: on MPI_COMM_WORLD (the collective network) and on a duplicate
 * of it (point-to-point trees). */
static void allreduce(void) {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
  const char* names[2] = {"MPI_COMM_WORLD (collective network)", "a duplicate (point to point)"};
  for (int k = 0; k < 2; ++k) {
    double x = rank, y = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const uint64_t t0 = GetTimeBase();
    for (int i = 0; i < 10; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comms[k]);
    const double m = mean_cycles((double)(GetTimeBase() - t0) / 10);
    if (rank == 0) {
      printf("allreduce on %s: sum %.0f\n", names[k], y);
      fprintf(stderr, "MPI_Allreduce of one double on %s: %.0f cycles\n", names[k], m);
    }
    /* MPI_Reduce to rank 3: the time until the root has the sum (the others are done once their part is out). */
    double z = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    const uint64_t t1 = GetTimeBase();
    for (int i = 0; i < 10; ++i) MPI_Reduce(&x, &z, 1, MPI_DOUBLE, MPI_SUM, 3, comms[k]);
    const double at_root = (double)(GetTimeBase() - t1) / 10;
    /* MPI_Bcast of 4 doubles from rank 3: the time until the last rank has them. */
    double v[4] = {0, 0, 0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    const uint64_t t2 = GetTimeBase();
    for (int i = 0; i < 10; ++i) {
      if (rank == 3)
        for (int j = 0; j < 4; ++j) v[j] = 1000 * i + j + 0.5;
      MPI_Bcast(v, 4, MPI_DOUBLE, 3, comms[k]);
    }
    double last = 0, mine = (double)(GetTimeBase() - t2) / 10;
    MPI_Allreduce(&mine, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double wrong = v[0] != 9000.5 || v[3] != 9003.5, wrongs = 0;
    MPI_Allreduce(&wrong, &wrongs, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("bcast from rank 3 on %s: %.0f ranks wrong\n", names[k], wrongs);
      fprintf(stderr, "MPI_Bcast of 4 doubles from rank 3 on %s: %.0f cycles at the last rank\n", names[k], last);
    }
    if (rank == 3) {
      printf("reduce to rank 3 on %s: sum %.0f\n", names[k], z);
      fprintf(stderr, "MPI_Reduce of one double to rank 3 on %s: %.0f cycles at the root\n", names[k], at_root);
    }
  }
  MPI_Comm_free(&dup);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int halo_only = argc > 1 && strcmp(argv[1], "--halo-only") == 0;
  if (halo_only) {
    --argc;
    ++argv;
  }
  const int iterations = argc > 1 ? atoi(argv[1]) : 3;
  int sizes[16] = {1024, 2048, 4096, 8192, 16384, 32768, 65536};
  int nsizes = 7;
  if (argc > 2) {
    nsizes = 0;
    for (int i = 2; i < argc && nsizes < 16; ++i) sizes[nsizes++] = atoi(argv[i]);
  }
  if (iterations < 1) {
    if (rank == 0) fprintf(stderr, "mpi_halo: ITERATIONS must be at least 1\n");
    MPI_Finalize();
    return 2;
  }
  /* The halo kernel's grid: the torus folded into 4 dimensions, periodic. */
  int dims[4] = {0, 0, 0, 2}, periods[4] = {1, 1, 1, 1};
  MPI_Dims_create(size, 4, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 4, dims, periods, 0, &cart);
  int nb[NUM_DIRS], co[4];
  for (int d = 0; d < 4; ++d) MPI_Cart_shift(cart, d, 1, &nb[2 * d + 1], &nb[2 * d]); /* [2d] = +, [2d+1] = - */
  MPI_Cart_coords(cart, rank, 4, co);
  if (!halo_only) {
    pingpong(cart, nb[0], nb[1], co[0]);
    allreduce();
  }

  for (int k = 0; k < nsizes; ++k) {
    const int n = sizes[k];
    unsigned char* out = malloc((size_t)n * NUM_DIRS);
    unsigned char* in = malloc((size_t)n * NUM_DIRS);
    double cycles = 0;
    long wrong = 0;
    for (int it = 0; it < iterations; ++it) {
      for (int d = 0; d < NUM_DIRS; ++d)
        for (int i = 0; i < n; ++i) out[(size_t)d * n + i] = (unsigned char)(rank * 7 + d * 13 + i + it);
      MPI_Request req[2 * NUM_DIRS];
      MPI_Barrier(MPI_COMM_WORLD);
      const uint64_t t0 = GetTimeBase();
      for (int d = 0; d < NUM_DIRS; ++d) MPI_Irecv(in + (size_t)d * n, n, MPI_BYTE, nb[d], d, cart, &req[d]);
      /* What goes towards d arrives from the neighbour on the other side with d's tag. */
      for (int d = 0; d < NUM_DIRS; ++d)
        MPI_Isend(out + (size_t)(d ^ 1) * n, n, MPI_BYTE, nb[d ^ 1], d, cart, &req[NUM_DIRS + d]);
      MPI_Waitall(2 * NUM_DIRS, req, MPI_STATUSES_IGNORE);
      cycles += (double)(GetTimeBase() - t0);
      for (int d = 0; d < NUM_DIRS; ++d) {
        const int from = nb[d];
        for (int i = 0; i < n; ++i) wrong += in[(size_t)d * n + i] != (unsigned char)(from * 7 + (d ^ 1) * 13 + i + it);
      }
    }
    long all_wrong = 0;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const double m = mean_cycles(cycles / iterations);
    if (rank == 0) {
      printf("mpi halo, %d bytes per neighbour: %ld wrong of %ld\n", n, all_wrong,
             (long)n * NUM_DIRS * size * iterations);
      fprintf(stderr, "mpi halo, %d bytes per neighbour: %.0f cycles per exchange\n", n, m);
    }
    free(out);
    free(in);
  }
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
