/* Derived datatypes and non-blocking collectives of MPI over the MU, each
 * with its data checked; prints the same lines in every mode. Type layouts
 * (size, bounds, extent), derived types in point-to-point messages below and
 * above the eager cut-off (2048 bytes) with different layouts on the two
 * sides, counts and elements of partial receives, a type freed while its
 * messages are under way, derived types in every collective, and every
 * non-blocking collective, several at once and interleaved with a blocking
 * one. With an argument, one erroneous use instead:
 *   uncommitted  MPI_Send with a type that was never committed
 *   freed        MPI_Send with the handle of a freed type
 *   badop        MPI_Allreduce with MPI_BAND on MPI_DOUBLE
 *   derivedop    MPI_Allreduce on a derived type */
#include <mpi.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

struct rec {
  int a;
  double b;
  char c[3];
};

static MPI_Datatype rec_type(void) {
  const int lens[3] = {1, 1, 3};
  const MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype t;
  MPI_Type_create_struct(3, lens, disp, types, &t);
  return t;
}

static void set_rec(struct rec* r, int seed) {
  r->a = seed;
  r->b = seed + 0.25;
  r->c[0] = (char)(seed & 0x7f);
  r->c[1] = (char)((seed >> 3) & 0x7f);
  r->c[2] = (char)((seed >> 6) & 0x7f);
}
static int rec_wrong(const struct rec* r, int seed) {
  struct rec want;
  set_rec(&want, seed);
  return r->a != want.a || r->b != want.b || memcmp(r->c, want.c, 3) != 0;
}

static void describe(const char* name, MPI_Datatype t) {
  int sz = -1;
  MPI_Aint lb = -1, ext = -1;
  MPI_Type_size(t, &sz);
  MPI_Type_get_extent(t, &lb, &ext);
  printf("type %s: size %d, lb %ld, extent %ld\n", name, sz, (long)lb, (long)ext);
}

static void layouts(void) {
  if (rank != 0) return;
  MPI_Datatype t[9];
  MPI_Type_contiguous(3, MPI_DOUBLE, &t[0]);
  MPI_Type_vector(4, 2, 5, MPI_INT, &t[1]);
  MPI_Type_create_hvector(3, 1, -16, MPI_DOUBLE, &t[2]);
  const int lens[3] = {2, 1, 3}, disp[3] = {4, 0, 9}, bdisp[3] = {1, 5, 3};
  MPI_Type_indexed(3, lens, disp, MPI_INT, &t[3]);
  MPI_Type_create_indexed_block(3, 2, bdisp, MPI_SHORT, &t[4]);
  t[5] = rec_type();
  MPI_Type_create_resized(MPI_INT, 0, 8, &t[6]);
  const int l2[2] = {1, 1};
  const MPI_Aint d2[2] = {0, 4};
  const MPI_Datatype ty2[2] = {MPI_INT, MPI_CHAR};
  MPI_Type_create_struct(2, l2, d2, ty2, &t[7]);
  MPI_Type_vector(2, 1, 2, t[5], &t[8]);
  static const char* names[9] = {"contiguous(3 double)",
                                 "vector(4, 2, 5 int)",
                                 "hvector(3, 1, -16 B double)",
                                 "indexed({2,1,3} at {4,0,9} int)",
                                 "indexed_block(3, 2 at {1,5,3} short)",
                                 "struct{int,double,char[3]}",
                                 "resized(int, 0, 8)",
                                 "struct{int,char}",
                                 "vector(2, 1, 2 struct)"};
  for (int i = 0; i < 9; ++i) {
    describe(names[i], t[i]);
    MPI_Type_free(&t[i]);
  }
  printf("types freed: %s\n", t[0] == MPI_DATATYPE_NULL && t[8] == MPI_DATATYPE_NULL ? "null handles" : "WRONG");
}

/* A column of an n x n matrix to the next rank, received into a column of another index there, and the same
 * column received as n contiguous doubles. */
static void columns(int n) {
  const int up = (rank + 1) % size, down = (rank + size - 1) % size;
  double* m = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double* in = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double* flat = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n * n; ++i) {
    m[i] = rank * 1e6 + i;
    in[i] = -1;
  }
  MPI_Datatype col;
  MPI_Type_vector(n, 1, n, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  const int scol = rank % n, rcol = (rank + 5) % n, dcol = down % n;
  MPI_Status st;
  MPI_Sendrecv(m + scol, 1, col, up, 1, in + rcol, 1, col, down, 1, MPI_COMM_WORLD, &st);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double want = j == rcol ? down * 1e6 + i * n + dcol : -1;
      wrong += in[i * n + j] != want;
    }
  int count = -1, elements = -1;
  MPI_Get_count(&st, col, &count);
  MPI_Get_elements(&st, col, &elements);
  MPI_Sendrecv(m + scol, 1, col, up, 2, flat, n, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &st);
  int fwrong = 0;
  for (int i = 0; i < n; ++i) fwrong += flat[i] != down * 1e6 + i * n + dcol;
  int fcount = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &fcount);
  printf(
      "rank %d: column of %d doubles from rank %d: %d wrong, count %d, elements %d, as contiguous: %d wrong, "
      "count %d\n",
      rank, n, down, wrong, count, elements, fwrong, fcount);
  MPI_Type_free(&col);
  free(m);
  free(in);
  free(flat);
}

/* Records (a struct type, resized to the C struct) around the cut-off, sent with Isend, the type freed before
 * the wait; a contiguous type (the zero-copy path); a triangle by an indexed type into packed ints. */
static void records(void) {
  const int up = (rank + 1) % size, down = (rank + size - 1) % size;
  static const int counts[2] = {100, 1000}; /* 1500 bytes eager, 15000 rendezvous */
  for (int k = 0; k < 2; ++k) {
    const int n = counts[k];
    struct rec* out = malloc(sizeof(struct rec) * (size_t)n);
    struct rec* in = calloc((size_t)n, sizeof(struct rec));
    for (int i = 0; i < n; ++i) set_rec(&out[i], rank * 10000 + i);
    MPI_Datatype raw = rec_type(), t;
    MPI_Type_create_resized(raw, 0, sizeof(struct rec), &t);
    MPI_Type_free(&raw);
    MPI_Type_commit(&t);
    MPI_Request r[2];
    MPI_Irecv(in, n, t, down, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, n, t, up, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&t);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += rec_wrong(&in[i], down * 10000 + i);
    int bytes = -1;
    MPI_Get_count(&st[0], MPI_BYTE, &bytes);
    printf("rank %d: %d records from rank %d (%d bytes), type freed before the wait: %d wrong\n", rank, n, down, bytes,
           wrong);
    free(out);
    free(in);
  }
  /* Counts of a struct type and a partial receive. */
  MPI_Datatype t = rec_type(), pair;
  MPI_Type_commit(&t);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  struct rec one[3];
  int five[5] = {1, 2, 3, 4, 5}, got[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 3; ++i) set_rec(&one[i], rank + i);
  MPI_Status st;
  struct rec back[3];
  MPI_Sendrecv(one, 3, t, up, 4, back, 3, t, down, 4, MPI_COMM_WORLD, &st);
  int c3 = -1, e3 = -1;
  MPI_Get_count(&st, t, &c3);
  MPI_Get_elements(&st, t, &e3);
  int rw = 0;
  for (int i = 0; i < 3; ++i) rw += rec_wrong(&back[i], down + i);
  MPI_Sendrecv(five, 5, MPI_INT, up, 5, got, 3, pair, down, 5, MPI_COMM_WORLD, &st);
  int cp = -1, ep = -1;
  MPI_Get_count(&st, pair, &cp);
  MPI_Get_elements(&st, pair, &ep);
  /* Zero-copy: 1000 pairs (8000 bytes, rendezvous) with a synchronous send. */
  int* big = malloc(sizeof(int) * 2000);
  int* bin = calloc(2000, sizeof(int));
  for (int i = 0; i < 2000; ++i) big[i] = rank * 3 + i;
  MPI_Request r;
  MPI_Irecv(bin, 1000, pair, down, 6, MPI_COMM_WORLD, &r);
  MPI_Ssend(big, 1000, pair, up, 6, MPI_COMM_WORLD);
  MPI_Wait(&r, &st);
  int bw = 0;
  for (int i = 0; i < 2000; ++i) bw += bin[i] != down * 3 + i;
  printf(
      "rank %d: 3 structs: %d wrong, count %d, elements %d, 5 ints into pairs: count %s, elements %d, %d %d %d %d "
      "%d %d, 1000 pairs: %d wrong\n",
      rank, rw, c3, e3, cp == MPI_UNDEFINED ? "MPI_UNDEFINED" : "WRONG", ep, got[0], got[1], got[2], got[3], got[4],
      got[5], bw);
  free(big);
  free(bin);
  MPI_Type_free(&t);
  MPI_Type_free(&pair);
  /* An upper triangle of a 40 x 40 int matrix (820 ints: rendezvous) by an indexed type, received packed. */
  enum { N = 40 };
  int lens[N], disp[N];
  for (int i = 0; i < N; ++i) {
    lens[i] = N - i;
    disp[i] = i * N + i;
  }
  MPI_Datatype tri;
  MPI_Type_indexed(N, lens, disp, MPI_INT, &tri);
  MPI_Type_commit(&tri);
  int* a = malloc(sizeof(int) * N * N);
  int* packed = calloc(N * (N + 1) / 2, sizeof(int));
  for (int i = 0; i < N * N; ++i) a[i] = rank * 100000 + i;
  MPI_Sendrecv(a, 1, tri, up, 7, packed, N * (N + 1) / 2, MPI_INT, down, 7, MPI_COMM_WORLD, &st);
  int tw = 0, at = 0;
  for (int i = 0; i < N; ++i)
    for (int j = i; j < N; ++j) tw += packed[at++] != down * 100000 + i * N + j;
  int tc = -1;
  MPI_Get_count(&st, MPI_INT, &tc);
  printf("rank %d: triangle of %d ints from rank %d: %d wrong\n", rank, tc, down, tw);
  MPI_Type_free(&tri);
  free(a);
  free(packed);
}

static int total(int wrong) {
  int all = -1;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Derived types in the blocking collectives. */
static void collectives(void) {
  enum { N = 24 };
  double m[N][N];
  MPI_Datatype col;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) m[i][j] = rank == 3 ? i * 100 + j : -1;
  MPI_Bcast(&m[0][2], 1, col, 3, MPI_COMM_WORLD); /* column 2 of rank 3 */
  int bw = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) bw += m[i][j] != (j == 2 || rank == 3 ? i * 100 + j : -1);
  /* Gather of records at rank 1; scatter of columns from rank 0. */
  MPI_Datatype raw = rec_type(), rt;
  MPI_Type_create_resized(raw, 0, sizeof(struct rec), &rt);
  MPI_Type_commit(&rt);
  struct rec mine[2];
  set_rec(&mine[0], rank);
  set_rec(&mine[1], rank + 500);
  struct rec* all = calloc(2 * (size_t)size, sizeof(struct rec));
  MPI_Gather(mine, 2, rt, all, 2, rt, 1, MPI_COMM_WORLD);
  int gw = 0;
  if (rank == 1)
    for (int r = 0; r < size; ++r) gw += rec_wrong(&all[2 * r], r) + rec_wrong(&all[2 * r + 1], r + 500);
  /* Scatter: rank 0's matrix of size columns, column r to rank r as size doubles (column type resized to one
   * double, so consecutive columns follow each other). */
  double* mat = malloc(sizeof(double) * (size_t)N * (size_t)size);
  for (int i = 0; i < N * size; ++i) mat[i] = rank == 0 ? i : -1;
  MPI_Datatype scol, scol1;
  MPI_Type_vector(N, 1, size, MPI_DOUBLE, &scol);
  MPI_Type_create_resized(scol, 0, sizeof(double), &scol1);
  MPI_Type_commit(&scol1);
  double got[N];
  MPI_Scatter(mat, 1, scol1, got, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int sw = 0;
  for (int i = 0; i < N; ++i) sw += got[i] != i * size + rank;
  /* Allgather: one int from each rank into every other int of the result (a resized int of extent 8). */
  MPI_Datatype every_other;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);
  int* spread = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; ++i) spread[i] = -7;
  const int v = rank * rank;
  MPI_Allgather(&v, 1, MPI_INT, spread, 1, every_other, MPI_COMM_WORLD);
  int aw = 0;
  for (int i = 0; i < size; ++i) aw += spread[2 * i] != i * i || spread[2 * i + 1] != -7;
  /* Alltoall: block k of a strided send buffer (vector of 2 ints, stride 3) to rank k, received contiguous. */
  MPI_Datatype two;
  MPI_Type_vector(2, 1, 3, MPI_INT, &two);
  MPI_Datatype two6;
  MPI_Type_create_resized(two, 0, 6 * sizeof(int), &two6);
  MPI_Type_commit(&two6);
  int* sendv = malloc(sizeof(int) * 6 * (size_t)size);
  int* recvv = calloc(2 * (size_t)size, sizeof(int));
  for (int k = 0; k < size; ++k)
    for (int j = 0; j < 6; ++j) sendv[6 * k + j] = j == 0 || j == 3 ? rank * 1000 + k * 10 + j : -1;
  MPI_Alltoall(sendv, 1, two6, recvv, 2, MPI_INT, MPI_COMM_WORLD);
  int tw = 0;
  for (int k = 0; k < size; ++k)
    tw += recvv[2 * k] != k * 1000 + rank * 10 || recvv[2 * k + 1] != k * 1000 + rank * 10 + 3;
  const int t_bw = total(bw), t_gw = total(gw), t_sw = total(sw), t_aw = total(aw), t_tw = total(tw);
  if (rank == 0)
    printf(
        "derived collectives: bcast of a column %d wrong, gather of records %d wrong, scatter of columns %d wrong, "
        "allgather spread %d wrong, alltoall strided %d wrong\n",
        t_bw, t_gw, t_sw, t_aw, t_tw);
  MPI_Type_free(&col);
  MPI_Type_free(&raw);
  MPI_Type_free(&rt);
  MPI_Type_free(&scol);
  MPI_Type_free(&scol1);
  MPI_Type_free(&every_other);
  MPI_Type_free(&two);
  MPI_Type_free(&two6);
  free(all);
  free(mat);
  free(spread);
  free(sendv);
  free(recvv);
}

/* Every non-blocking collective: several under way at once, one interleaved with a blocking collective, on
 * MPI_COMM_WORLD and on a split communicator. */
static void nonblocking(void) {
  MPI_Request r[8];
  double b[3] = {0, 0, 0};
  if (rank == 5) b[0] = 1.25, b[1] = 2.5, b[2] = 3.75;
  int red = -1, allmax = -1;
  long sum = -1;
  const long lr = rank + 1;
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(b, 3, MPI_DOUBLE, 5, MPI_COMM_WORLD, &r[1]);
  MPI_Ireduce(&rank, &red, 1, MPI_INT, MPI_SUM, 7, MPI_COMM_WORLD, &r[2]);
  MPI_Iallreduce(&lr, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r[3]);
  int* g = calloc((size_t)size, sizeof(int));
  int* sc = malloc(sizeof(int) * (size_t)size);
  int* ag = calloc((size_t)size, sizeof(int));
  int* a2o = malloc(sizeof(int) * (size_t)size);
  int* a2i = calloc((size_t)size, sizeof(int));
  for (int i = 0; i < size; ++i) {
    sc[i] = rank == 2 ? 7 * i : -1;
    a2o[i] = rank * 100 + i;
  }
  const int sq = rank * 3;
  int piece = -1;
  MPI_Igather(&sq, 1, MPI_INT, g, 1, MPI_INT, 4, MPI_COMM_WORLD, &r[4]);
  MPI_Iscatter(sc, 1, MPI_INT, &piece, 1, MPI_INT, 2, MPI_COMM_WORLD, &r[5]);
  MPI_Iallgather(&sq, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, &r[6]);
  MPI_Ialltoall(a2o, 1, MPI_INT, a2i, 1, MPI_INT, MPI_COMM_WORLD, &r[7]);
  /* A blocking collective while they are under way. */
  MPI_Allreduce(&rank, &allmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
  int gw = 0, agw = 0, a2w = 0;
  if (rank == 4)
    for (int i = 0; i < size; ++i) gw += g[i] != 3 * i;
  for (int i = 0; i < size; ++i) {
    agw += ag[i] != 3 * i;
    a2w += a2i[i] != i * 100 + rank;
  }
  printf(
      "rank %d: ibcast %.2f %.2f %.2f, iallreduce %ld, allreduce between %d, iscatter %d, igather %s, iallgather %d "
      "wrong, ialltoall %d wrong\n",
      rank, b[0], b[1], b[2], sum, allmax, piece, rank == 4 ? (gw ? "WRONG" : "ok") : "-", agw, a2w);
  if (rank == 7) printf("ireduce at 7: %d\n", red);
  /* On a split communicator, completed by MPI_Test; a derived type in MPI_Ibcast. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hr = -1;
  MPI_Comm_rank(half, &hr);
  double hs = -1, hv = rank + 0.5;
  MPI_Request q;
  MPI_Iallreduce(&hv, &hs, 1, MPI_DOUBLE, MPI_SUM, half, &q);
  int flag = 0, tests = 0;
  while (!flag) {
    MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    ++tests;
  }
  int m[6][4];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) m[i][j] = hr == 0 ? rank * 100 + i * 4 + j : -1;
  MPI_Datatype col;
  MPI_Type_vector(6, 1, 4, MPI_INT, &col);
  MPI_Type_commit(&col);
  MPI_Ibcast(&m[0][1], 1, col, 0, half, &q);
  MPI_Type_free(&col);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  const int root = rank % 2; /* world rank of the half's rank 0 */
  int cw = 0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) cw += m[i][j] != (j == 1 || hr == 0 ? root * 100 + i * 4 + j : -1);
  printf("rank %d: half %d: iallreduce %.1f, test returned %s, ibcast of a column %d wrong, request %s\n", rank,
         rank % 2, hs, tests > 0 ? "done" : "WRONG", cw, q == MPI_REQUEST_NULL ? "freed" : "LEFT");
  /* In place: each rank's block already in the receive buffer (MPI_DATATYPE_NULL as the unused send type). */
  int hn = 0;
  MPI_Comm_size(half, &hn);
  int* ip = malloc(sizeof(int) * (size_t)hn);
  for (int i = 0; i < hn; ++i) ip[i] = i == hr ? rank * 2 : -1;
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ip, 1, MPI_INT, half, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  int ipw = 0;
  for (int i = 0; i < hn; ++i) ipw += ip[i] != (2 * i + rank % 2) * 2;
  int* wp = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) wp[i] = i == rank ? rank + 40 : -1;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, wp, 1, MPI_INT, MPI_COMM_WORLD);
  int wpw = 0;
  for (int i = 0; i < size; ++i) wpw += wp[i] != i + 40;
  printf("rank %d: in place: iallgather %d wrong, allgather %d wrong\n", rank, ipw, wpw);
  free(ip);
  free(wp);
  MPI_Comm_free(&half);
  free(g);
  free(sc);
  free(ag);
  free(a2o);
  free(a2i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* bad = argc > 1 ? argv[1] : "";
  int v[4] = {0, 0, 0, 0};
  if (strcmp(bad, "uncommitted") == 0) {
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    if (rank == 0) MPI_Send(v, 1, t, 1, 0, MPI_COMM_WORLD);
  } else if (strcmp(bad, "freed") == 0) {
    MPI_Datatype t;
    MPI_Type_contiguous(4, MPI_INT, &t);
    MPI_Type_commit(&t);
    const MPI_Datatype kept = t;
    MPI_Type_free(&t);
    if (rank == 0) MPI_Send(v, 1, kept, 1, 0, MPI_COMM_WORLD);
  } else if (strcmp(bad, "badop") == 0) {
    double d = rank, out = 0;
    MPI_Allreduce(&d, &out, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
  } else if (strcmp(bad, "derivedop") == 0) {
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Allreduce(v, v + 2, 1, t, MPI_SUM, MPI_COMM_WORLD);
  } else {
    layouts();
    columns(16);  /* 128 bytes: eager */
    columns(300); /* 2400 bytes: rendezvous */
    records();
    collectives();
    nonblocking();
  }
  MPI_Finalize();
  printf("rank %d: done\n", rank);
  return 0;
}
