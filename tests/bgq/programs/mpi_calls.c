/* The MPI calls that MPICH's test programs use beyond mpi_features.c and
 * mpi_types.c, each with its data checked exactly; prints the same lines in
 * every mode: the v-collectives (Gatherv, Scatterv, Allgatherv and Alltoallv,
 * in place too), Scan and Exscan, Reduce_scatter and Reduce_scatter_block,
 * Error_class, a probe of MPI_PROC_NULL, bitwise reductions of MPI_BYTE,
 * user ops (one that does not commute, so the order shows), Waitsome,
 * Testsome and Testany, Rsend/Irsend, Request_get_status, Cart_get,
 * Reduce_local, and a message of 2 GiB refused
 * under MPI_ERRORS_RETURN. A mismatch prints WRONG and what was found. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int errors;

static void check(const char* what, int i, long got, long want) {
  if (got != want && errors++ < 5) printf("rank %d: %s [%d] WRONG: %ld, expected %ld\n", rank, what, i, got, want);
}

/* Rank r's block: r % 3 + 1 ints, value 100 * r + k. */
static int count_of(int r) { return r % 3 + 1; }

static void vcollectives(void) {
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int r = size - 1; r >= 0; --r) { /* blocks in reverse rank order, a gap of 1 after each */
    counts[r] = count_of(r);
    displs[r] = total;
    total += counts[r] + 1;
  }
  int* mine = malloc(sizeof(int) * 3);
  for (int k = 0; k < count_of(rank); ++k) mine[k] = 100 * rank + k;
  int* all = malloc(sizeof(int) * (size_t)total);

  for (int i = 0; i < total; ++i) all[i] = -1;
  MPI_Gatherv(mine, count_of(rank), MPI_INT, all, counts, displs, MPI_INT, 3, MPI_COMM_WORLD);
  if (rank == 3)
    for (int r = 0; r < size; ++r) {
      for (int k = 0; k < counts[r]; ++k) check("gatherv", displs[r] + k, all[displs[r] + k], 100 * r + k);
      check("gatherv gap", displs[r] + counts[r], all[displs[r] + counts[r]], -1);
    }

  int got[3] = {-1, -1, -1};
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[r]; ++k) all[displs[r] + k] = rank == 5 ? 7 * r + k : -2;
  MPI_Scatterv(all, counts, displs, MPI_INT, got, count_of(rank), MPI_INT, 5, MPI_COMM_WORLD);
  for (int k = 0; k < count_of(rank); ++k) check("scatterv", k, got[k], 7 * rank + k);

  for (int i = 0; i < total; ++i) all[i] = -1;
  MPI_Allgatherv(mine, count_of(rank), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < counts[r]; ++k) check("allgatherv", displs[r] + k, all[displs[r] + k], 100 * r + k);
    check("allgatherv gap", displs[r] + counts[r], all[displs[r] + counts[r]], -1);
  }
  for (int i = 0; i < total; ++i) all[i] = -1;
  for (int k = 0; k < count_of(rank); ++k) all[displs[rank] + k] = 100 * rank + k;
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[r]; ++k) check("allgatherv in place", displs[r] + k, all[displs[r] + k], 100 * r + k);

  /* Alltoallv: rank i sends (i + j) % 4 ints to rank j, values 1000 * i + 10 * j + k, packed in rank order. */
  int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
  int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
  int st = 0, rt = 0;
  for (int j = 0; j < size; ++j) {
    sc[j] = (rank + j) % 4;
    sd[j] = st;
    st += sc[j];
    rc[j] = (j + rank) % 4;
    rd[j] = rt;
    rt += rc[j];
  }
  int *out = malloc(sizeof(int) * (size_t)(st + 1)), *in = malloc(sizeof(int) * (size_t)(rt + 1));
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < sc[j]; ++k) out[sd[j] + k] = 1000 * rank + 10 * j + k;
  for (int i = 0; i < rt; ++i) in[i] = -1;
  MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < rc[j]; ++k) check("alltoallv", rd[j] + k, in[rd[j] + k], 1000 * j + 10 * rank + k);
  /* In place: the counts are the same both ways (sc == rc here), the data from recvbuf. */
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < rc[j]; ++k) in[rd[j] + k] = 1000 * rank + 10 * j + k;
  MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < rc[j]; ++k) check("alltoallv in place", rd[j] + k, in[rd[j] + k], 1000 * j + 10 * rank + k);
  printf("rank %d: gatherv at 3, scatterv from 5, allgatherv, alltoallv (%d ints in): %s\n", rank, rt,
         errors ? "WRONG" : "ok");
  free(counts), free(displs), free(mine), free(all), free(sc), free(sd), free(rc), free(rd), free(out), free(in);
}

static void prefix_and_reduce_scatter(void) {
  long v[2] = {rank + 1, 2}, scan[2] = {0, 0}, ex[2] = {-7, -7};
  MPI_Scan(v, scan, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(v, ex, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  check("scan", 0, scan[0], (long)(rank + 1) * (rank + 2) / 2);
  check("scan", 1, scan[1], 2L * (rank + 1));
  check("exscan", 0, ex[0], rank == 0 ? -7 : (long)rank * (rank + 1) / 2); /* rank 0's is left as it was */
  check("exscan", 1, ex[1], rank == 0 ? -7 : 2L * rank);
  double d = rank + 1, dmax = 0;
  MPI_Scan(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  check("scan max", 0, (long)dmax, rank + 1);
  long in_place = size - rank;
  MPI_Scan(MPI_IN_PLACE, &in_place, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  check("scan min in place", 0, in_place, size - rank);

  /* Reduce_scatter: element i of every rank's send buffer is rank + i; rank r gets r % 2 + 1 elements. */
  int* counts = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int r = 0; r < size; ++r) total += counts[r] = r % 2 + 1;
  int* send = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) send[i] = rank + i;
  int first = 0;
  for (int r = 0; r < rank; ++r) first += counts[r];
  int got[2] = {-1, -1};
  MPI_Reduce_scatter(send, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < counts[rank]; ++k) check("reduce_scatter", k, got[k], size * (first + k) + size * (size - 1) / 2);
  int* block = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; ++i) block[i] = rank * i;
  MPI_Reduce_scatter_block(MPI_IN_PLACE, block, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check("reduce_scatter_block in place", 0, block[0], (size - 1) * 2 * rank);
  check("reduce_scatter_block in place", 1, block[1], (size - 1) * (2 * rank + 1));
  printf("rank %d: scan %ld %ld, exscan %ld, reduce_scatter %d %d, reduce_scatter_block %d %d: %s\n", rank, scan[0],
         scan[1], ex[0], got[0], counts[rank] > 1 ? got[1] : -1, block[0], block[1], errors ? "WRONG" : "ok");
  free(counts), free(send), free(block);
}

/* (a, b) op (c, d) = (a, d): associative, not commutative, so the result shows the order ranks combine in. */
static void first_last(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i + 1 < *len; i += 2) ((int*)inout)[i] = ((const int*)in)[i];
}
static void add_long(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((long*)inout)[i] += ((const long*)in)[i];
}

static void user_ops(void) {
  MPI_Op fl, add;
  MPI_Op_create(first_last, 0, &fl);
  MPI_Op_create(add_long, 1, &add);
  int pair[2] = {100 + rank, 200 + rank}, red[2] = {-1, -1}, scan[2] = {-1, -1}, all[2] = {-1, -1};
  MPI_Reduce(pair, red, 2, MPI_INT, fl, 5, MPI_COMM_WORLD);
  if (rank == 5) {
    check("user op reduce at 5", 0, red[0], 100);
    check("user op reduce at 5", 1, red[1], 200 + size - 1);
  }
  MPI_Scan(pair, scan, 2, MPI_INT, fl, MPI_COMM_WORLD);
  check("user op scan", 0, scan[0], 100);
  check("user op scan", 1, scan[1], 200 + rank);
  MPI_Allreduce(pair, all, 2, MPI_INT, fl, MPI_COMM_WORLD);
  check("user op allreduce", 0, all[0], 100);
  check("user op allreduce", 1, all[1], 200 + size - 1);
  long v = rank, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG, add, MPI_COMM_WORLD);
  check("user op sum", 0, sum, (long)size * (size - 1) / 2);
  MPI_Request r = MPI_REQUEST_NULL;
  long isum = 0;
  MPI_Ireduce(&v, &isum, 1, MPI_LONG, add, 3, MPI_COMM_WORLD, &r);
  MPI_Op_free(&add); /* the reduction under way still combines with it */
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rank == 3) check("user op ireduce at 3", 0, isum, (long)size * (size - 1) / 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int refused = MPI_Ireduce(pair, red, 2, MPI_INT, fl, 5, MPI_COMM_WORLD, &r);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  check("ordered op ireduce at 5", 0, refused, MPI_ERR_OP);
  MPI_Op_free(&fl);
  check("freed op", 0, fl, MPI_OP_NULL);
  if (rank == 5)
    printf("user ops: reduce at 5 (%d, %d), allreduce sum %ld, ordered ireduce at 5 refused: %d: %s\n", red[0], red[1],
           sum, refused, errors ? "WRONG" : "ok");
}

static void small_calls(void) {
  int cls = -1;
  MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  check("error class", 0, cls, MPI_ERR_TRUNCATE);
  int flag = 0, count = -1;
  MPI_Status st = {0, 0, 0, 0};
  MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  check("iprobe proc null flag", 0, flag, 1);
  check("iprobe proc null source", 0, st.MPI_SOURCE, MPI_PROC_NULL);
  check("iprobe proc null tag", 0, st.MPI_TAG, MPI_ANY_TAG);
  check("iprobe proc null count", 0, count, 0);
  MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  check("probe proc null source", 0, st.MPI_SOURCE, MPI_PROC_NULL);
  unsigned char bit = (unsigned char)(1u << (rank % 8)), bits = 0, band = 0, mask = (unsigned char)(0xF0 | rank % 16);
  MPI_Allreduce(&bit, &bits, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
  MPI_Allreduce(&mask, &band, 1, MPI_BYTE, MPI_BAND, MPI_COMM_WORLD);
  check("byte bor", 0, bits, size >= 8 ? 0xFF : (1 << size) - 1);
  check("byte band", 0, band, size >= 2 ? 0xF0 : mask);
  int big = 0;
  if (rank == 0) { /* refused before the buffer is read */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    big = MPI_Send(&big, 1 << 28, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    check("2 GiB send", 0, big, MPI_ERR_COUNT);
  }
  if (rank == 0)
    printf("error class %d, probe of MPI_PROC_NULL: flag %d count %d, bytes bor 0x%x band 0x%x, 2 GiB send: %d\n", cls,
           flag, count, bits, band, big);
}

/* Three receives from the next rank, completed by Waitsome, Testsome and Testany as they come. */
static void some_and_any(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int got[3] = {-1, -1, -1}, out[3], seen[3] = {0, 0, 0}, done = 0, calls = 0;
  MPI_Request rr[3], sr[3];
  for (int t = 0; t < 3; ++t) MPI_Irecv(&got[t], 1, MPI_INT, next, t, MPI_COMM_WORLD, &rr[t]);
  for (int t = 2; t >= 0; --t) {
    out[t] = 1000 * rank + t;
    MPI_Isend(&out[t], 1, MPI_INT, prev, t, MPI_COMM_WORLD, &sr[t]);
  }
  while (done < 3) {
    int n = 0, idx[3];
    MPI_Status st[3];
    if (calls % 3 == 0) {
      MPI_Waitsome(3, rr, &n, idx, st);
    } else if (calls % 3 == 1) {
      MPI_Testsome(3, rr, &n, idx, st);
    } else {
      int flag = 0;
      MPI_Testany(3, rr, &idx[0], &flag, &st[0]);
      n = flag && idx[0] != MPI_UNDEFINED ? 1 : 0;
    }
    ++calls;
    for (int k = 0; k < n; ++k) {
      check("some: request done twice", idx[k], seen[idx[k]]++, 0);
      check("some: source", idx[k], st[k].MPI_SOURCE, next);
      check("some: tag", idx[k], st[k].MPI_TAG, idx[k]);
      ++done;
    }
  }
  for (int t = 0; t < 3; ++t) check("some: data", t, got[t], 1000 * next + t);
  int n = 0, index = 0, flag = 0;
  MPI_Testsome(3, rr, &n, NULL, MPI_STATUSES_IGNORE);
  check("testsome of none active", 0, n, MPI_UNDEFINED);
  MPI_Waitsome(3, rr, &n, NULL, MPI_STATUSES_IGNORE);
  check("waitsome of none active", 0, n, MPI_UNDEFINED);
  MPI_Testany(3, rr, &index, &flag, MPI_STATUS_IGNORE);
  check("testany of none active: flag", 0, flag, 1);
  check("testany of none active: index", 0, index, MPI_UNDEFINED);
  MPI_Waitall(3, sr, MPI_STATUSES_IGNORE);
  if (rank == 9)
    printf("waitsome/testsome/testany: 3 receives from %d: %d %d %d: %s\n", next, got[0], got[1], got[2],
           errors ? "WRONG" : "ok");
}

/* Ready sends to receives posted before a barrier, one watched by MPI_Request_get_status; Cart_get; Reduce_local. */
static void ready_and_local(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int a = -1, b = -1, x = 10 * rank, y = 10 * rank + 1, flag = 0;
  MPI_Request rr[2], sr;
  MPI_Status st = {0, 0, 0, 0};
  MPI_Irecv(&a, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &rr[0]);
  MPI_Irecv(&b, 1, MPI_INT, next, 8, MPI_COMM_WORLD, &rr[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Rsend(&x, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
  MPI_Irsend(&y, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, &sr);
  while (!flag) {
    MPI_Request_get_status(rr[0], &flag, &st);
  }
  check("get_status source", 0, st.MPI_SOURCE, prev);
  check("get_status tag", 0, st.MPI_TAG, 7);
  check("get_status left the request", 0, rr[0] != MPI_REQUEST_NULL, 1);
  MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  check("rsend", 0, a, 10 * prev);
  check("irsend", 0, b, 10 * next + 1);
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, MPI_STATUS_IGNORE);
  check("get_status of null", 0, flag, 1);

  int dims[2] = {0, 0}, periods[2] = {1, 0}, gd[2] = {-1, -1}, gp[2] = {-1, -1}, gc[2] = {-1, -1}, cc[2] = {-2, -2};
  MPI_Comm cart;
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int crank = -1;
  MPI_Comm_rank(cart, &crank);
  MPI_Cart_get(cart, 2, gd, gp, gc);
  MPI_Cart_coords(cart, crank, 2, cc);
  for (int i = 0; i < 2; ++i) {
    check("cart_get dims", i, gd[i], dims[i]);
    check("cart_get periods", i, gp[i], periods[i]);
    check("cart_get coords", i, gc[i], cc[i]);
  }
  MPI_Comm_free(&cart);

  MPI_Op fl;
  MPI_Op_create(first_last, 0, &fl);
  int in[2] = {1, 2}, inout[2] = {3, 4};
  MPI_Reduce_local(in, inout, 2, MPI_INT, fl);
  check("reduce_local ordered", 0, inout[0], 1);
  check("reduce_local ordered", 1, inout[1], 4);
  MPI_Op_free(&fl);
  double d[2] = {1.5, -2.0}, e[2] = {0.5, 3.0};
  MPI_Reduce_local(d, e, 2, MPI_DOUBLE, MPI_MAX);
  check("reduce_local max", 0, (long)(e[0] * 2), 3);
  check("reduce_local max", 1, (long)e[1], 3);
  if (rank == 11)
    printf("rsend %d, irsend %d, get_status source %d, cart_get %dx%d (%d,%d) at (%d,%d), reduce_local (%d, %d): %s\n",
           a, b, st.MPI_SOURCE, gd[0], gd[1], gp[0], gp[1], gc[0], gc[1], inout[0], inout[1], errors ? "WRONG" : "ok");
}

/* A rendezvous into a receive posted before MPI_Barrier on the world: the
 * barrier must handle the sender's request to send while it waits (else
 * both ranks wait forever); and nothing from MPI_PROC_NULL with
 * MPI_DATATYPE_NULL. */
static void across_barrier(void) {
  enum { kBig = 100000 };
  static char big[kBig];
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 1) {
    for (int i = 0; i < kBig; ++i) big[i] = (char)(i * 7 + 1);
    MPI_Send(big, kBig, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
  }
  if (rank == 0) MPI_Irecv(big, kBig, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Wait(&r, &st);
  MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
  check("MPI_Error_string of MPI_ERR_TRUNCATE", 0,
        strncmp(text, "MPI_ERR_TRUNCATE", 16) == 0 && len == (int)strlen(text), 1);
  check("recv from MPI_PROC_NULL: source", 0, st.MPI_SOURCE, MPI_PROC_NULL);
  check("recv from MPI_PROC_NULL: tag", 0, st.MPI_TAG, MPI_ANY_TAG);
  if (rank == 0) {
    long wrong = 0;
    for (int i = 0; i < kBig; ++i) wrong += big[i] != (char)(i * 7 + 1);
    check("rendezvous across a barrier", 0, wrong, 0);
    printf(
        "rendezvous of %d bytes into a receive posted before MPI_Barrier: %ld wrong; MPI_DATATYPE_NULL from "
        "MPI_PROC_NULL: %s\n",
        kBig, wrong, errors ? "WRONG" : "ok");
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  vcollectives();
  prefix_and_reduce_scatter();
  small_calls();
  user_ops();
  some_and_any();
  ready_and_local();
  across_barrier();
  int all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mpi_calls: %d ranks, %s\n", size, all ? "failed" : "all checks passed");
  MPI_Finalize();
  return all != 0;
}
