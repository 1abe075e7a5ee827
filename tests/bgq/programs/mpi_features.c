/* MPI over the MU, each mechanism with its data checked; prints the same
 * lines in every mode. Point to point around the protocol cut-offs (eager
 * up to 2048 bytes, rendezvous above), wildcards, MPI's ordering across
 * eager and rendezvous messages, synchronous sends, probes and tests, every
 * collective, Comm_split / Comm_dup / Cart_*, and a truncated receive under
 * MPI_ERRORS_RETURN. With an argument, one erroneous use instead:
 *   truncate  a receive buffer too small under the default handler
 *   deadlock  two ranks receive from each other first
 *   freed     a call on a freed communicator
 *   bcast     mismatched MPI_Bcast counts */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fill(unsigned char* b, int n, int seed) {
  for (int i = 0; i < n; ++i) b[i] = (unsigned char)(seed * 31 + i * 7);
}
static int wrong(const unsigned char* b, int n, int seed) {
  int w = 0;
  for (int i = 0; i < n; ++i) w += b[i] != (unsigned char)(seed * 31 + i * 7);
  return w;
}

static void sizes(void) {
  static const int sz[] = {0, 1, 112, 113, 496, 497, 2048, 2049, 65536};
  const int up = (rank + 1) % size, down = (rank + size - 1) % size;
  for (unsigned k = 0; k < sizeof sz / sizeof sz[0]; ++k) {
    const int n = sz[k];
    unsigned char* out = malloc((size_t)n + 1);
    unsigned char* in = malloc((size_t)n + 1);
    fill(out, n, rank + k);
    memset(in, 0, (size_t)n + 1);
    MPI_Status st;
    MPI_Sendrecv(out, n, MPI_BYTE, up, (int)k, in, n, MPI_BYTE, down, (int)k, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    printf("rank %d: %d bytes from rank %d: %d wrong, count %d, source %d\n", rank, n, down, wrong(in, n, down + k),
           count, st.MPI_SOURCE);
    free(out);
    free(in);
  }
}

static void wildcards(void) {
  if (rank == 0) {
    int seen = 0, bad = 0;
    for (int i = 1; i < size; ++i) {
      int v = -1;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      bad += v != st.MPI_SOURCE * 100 || st.MPI_TAG != st.MPI_SOURCE * 3;
      seen |= 1 << st.MPI_SOURCE;
    }
    printf("wildcards: %d senders seen, %d wrong\n", __builtin_popcount(seen), bad);
  } else {
    int v = rank * 100;
    MPI_Send(&v, 1, MPI_INT, 0, rank * 3, MPI_COMM_WORLD);
  }
}

/* Rank 1 sends rendezvous, eager, rendezvous, eager with one tag: rank 0 must match them in that order. */
static void ordering(void) {
  static const int n[] = {4096, 8, 3000, 100};
  if (rank == 1) {
    MPI_Request r[4];
    int* b[4];
    for (int i = 0; i < 4; ++i) {
      b[i] = malloc(sizeof(int) * (size_t)n[i]);
      for (int j = 0; j < n[i]; ++j) b[i][j] = i + 1;
      MPI_Isend(b[i], n[i], MPI_INT, 0, 5, MPI_COMM_WORLD, &r[i]);
    }
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; ++i) free(b[i]);
  } else if (rank == 0) {
    int* b = malloc(sizeof(int) * 4096);
    char line[200];
    int at = snprintf(line, sizeof line, "ordering:");
    for (int i = 0; i < 4; ++i) {
      MPI_Status st;
      MPI_Recv(b, 4096, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      int count = 0;
      MPI_Get_count(&st, MPI_INT, &count);
      at += snprintf(line + at, sizeof line - (size_t)at, " %d (%d ints)", b[0], count);
    }
    printf("%s\n", line);
    free(b);
  }
}

static void sync_probe_test(void) {
  if (rank == 2) {
    int v[3] = {7, 8, 9};
    MPI_Ssend(v, 3, MPI_INT, 3, 1, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Issend(v, 2, MPI_INT, 3, 2, MPI_COMM_WORLD, &r);
    int flag = 0, polls = 0;
    while (!flag) {
      MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      ++polls;
    }
    printf("rank 2: synchronous sends done, request %s\n", r == MPI_REQUEST_NULL ? "freed" : "LEFT");
  } else if (rank == 3) {
    MPI_Status st;
    MPI_Probe(2, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_INT, &count);
    int v[3] = {0, 0, 0};
    MPI_Recv(v, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int flag = 0;
    while (!flag) MPI_Iprobe(2, 2, MPI_COMM_WORLD, &flag, &st);
    int w[2] = {0, 0};
    MPI_Recv(w, 2, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 3: probed %d ints with tag 1: %d %d %d, then %d %d\n", count, v[0], v[1], v[2], w[0], w[1]);
  }
}

static void collectives(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  double b[4] = {0, 0, 0, 0};
  if (rank == 3)
    for (int i = 0; i < 4; ++i) b[i] = 1.5 * i;
  MPI_Bcast(b, 4, MPI_DOUBLE, 3, MPI_COMM_WORLD);
  int v[2] = {rank, 2 * rank}, sum[2] = {-1, -1}, mx = -1, mn = -1;
  MPI_Reduce(v, sum, 2, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
  MPI_Allreduce(&rank, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&rank, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  double d = rank + 0.5, dsum = 0;
  MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  long in_place = rank + 1;
  MPI_Allreduce(MPI_IN_PLACE, &in_place, 1, MPI_LONG, MPI_BXOR, MPI_COMM_WORLD);
  int* all = calloc((size_t)size, sizeof(int));
  int* a2a_out = malloc(sizeof(int) * (size_t)size);
  int* a2a_in = calloc((size_t)size, sizeof(int));
  MPI_Gather(&v[1], 1, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD);
  int gathered_ok = 1;
  if (rank == 1)
    for (int i = 0; i < size; ++i) gathered_ok &= all[i] == 2 * i;
  int piece = -1;
  for (int i = 0; i < size; ++i) all[i] = rank == 0 ? 10 * i : -1;
  MPI_Scatter(all, 1, MPI_INT, &piece, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  int allgather_ok = 1;
  for (int i = 0; i < size; ++i) allgather_ok &= all[i] == i;
  for (int i = 0; i < size; ++i) a2a_out[i] = rank * 1000 + i;
  MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD);
  int a2a_ok = 1;
  for (int i = 0; i < size; ++i) a2a_ok &= a2a_in[i] == i * 1000 + rank;
  printf(
      "rank %d: bcast %.1f %.1f, max %d, min %d, dsum %.1f, xor %ld, scatter %d, gather %s, allgather %s, "
      "alltoall %s\n",
      rank, b[1], b[3], mx, mn, dsum, in_place, piece, gathered_ok ? "ok" : "WRONG", allgather_ok ? "ok" : "WRONG",
      a2a_ok ? "ok" : "WRONG");
  if (rank == 2) printf("reduce at 2: %d %d\n", sum[0], sum[1]);
  free(all);
  free(a2a_out);
  free(a2a_in);
}

static void communicators(void) {
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  int s = 0;
  MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, half);
  MPI_Comm_dup(half, &dup);
  MPI_Barrier(dup);
  int token = hr == 0 ? rank : -1;
  MPI_Bcast(&token, 1, MPI_INT, 0, dup);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  MPI_Comm none;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int src = 0, dst = 0, co[2] = {0, 0};
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  MPI_Cart_coords(cart, rank, 2, co);
  int from = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, dst, 0, &from, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
  printf("rank %d: half %d of %d, sum %d, token %d, split null %s, cart (%d,%d) from %d\n", rank, hr, hs, s, token,
         (rank == 0) == (none != MPI_COMM_NULL) ? "ok" : "WRONG", co[0], co[1], from);
  if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
  MPI_Comm_free(&cart);
}

static void truncated(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int big[100], small[10];
  for (int i = 0; i < 100; ++i) big[i] = i;
  if (rank == 0) MPI_Send(big, 100, MPI_INT, 1, 9, MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Status st;
    const int rc = MPI_Recv(small, 10, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
    /* The error class, not the text (each MPI words it its own way); the
     * status's MPI_ERROR is not set by a single-completion call. */
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    printf("rank 1: truncated receive returned %s, first %d last %d\n",
           cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE" : "another error", small[0], small[9]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* bad = argc > 1 ? argv[1] : "";
  if (strcmp(bad, "truncate") == 0) {
    int big[100] = {0}, small[10];
    if (rank == 0) MPI_Send(big, 100, MPI_INT, 1, 9, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(small, 10, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(bad, "deadlock") == 0) {
    int v = 0;
    if (rank < 2) MPI_Recv(&v, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(bad, "freed") == 0) {
    MPI_Comm d, kept;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    kept = d; /* the handle, used after it was freed */
    MPI_Comm_free(&d);
    MPI_Barrier(kept);
  } else if (strcmp(bad, "bcast") == 0) {
    int v[8] = {0};
    MPI_Bcast(v, rank == 0 ? 8 : 4, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    sizes();
    wildcards();
    MPI_Barrier(MPI_COMM_WORLD); /* the wildcard receives take no later message */
    ordering();
    sync_probe_test();
    collectives();
    communicators();
    truncated();
  }
  MPI_Finalize();
  printf("rank %d: done\n", rank);
  return 0;
}
