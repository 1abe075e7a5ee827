/* Groups, communicators made from them, intercommunicators, persistent
 * requests and collectives, info objects, cancelled receives and sends,
 * buffered sends, user ops on derived types, MPI_Alltoall in place,
 * matched probes, MPI_Isendrecv(_replace), complex reductions, each with
 * its data checked exactly; prints the same lines in every mode (any even number of
 * ranks from 4). A mismatch prints WRONG and what was found. With an
 * argument, one mistake under the default error handler instead:
 *   badrank   MPI_Group_incl of a rank the group does not have
 *   restart   MPI_Start of a persistent request that is active already
 *   nobuffer  MPI_Bsend with no buffer attached
 *   intercoll MPI_Scan on an intercommunicator
 *   nomessage MPI_Mrecv of a message no matched probe returned
 *   complexmax MPI_MAX on complex numbers */
#include <mpi.h>

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int errors;

static void check(const char* what, int i, long got, long want) {
  if (got != want && errors++ < 5) printf("rank %d: %s [%d] WRONG: %ld, expected %ld\n", rank, what, i, got, want);
}

/* Group arithmetic on the world's group, then MPI_Comm_create (the even
 * ranks, in reverse order) and MPI_Comm_create_group (the odd ranks). */
static void groups(void) {
  MPI_Group world, even, odd, top, both, none, rest;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0, me = -1;
  MPI_Group_size(world, &n);
  MPI_Group_rank(world, &me);
  check("group size", 0, n, size);
  check("group rank", 0, me, rank);
  int* ranks = malloc(sizeof(int) * (size_t)size);
  int ne = 0;
  for (int r = size - 2; r >= 0; r -= 2) ranks[ne++] = r; /* even ranks, highest first */
  MPI_Group_incl(world, ne, ranks, &even);
  MPI_Group_excl(world, ne, ranks, &odd);
  int range[1][3] = {{size - 1, size / 2, -1}}; /* the top half, from the last rank down */
  MPI_Group_range_incl(world, 1, range, &top);
  MPI_Group_union(even, odd, &both);
  MPI_Group_intersection(even, odd, &none);
  MPI_Group_difference(top, even, &rest); /* the odd ranks of the top half, highest first */
  int cmp[4];
  MPI_Group_compare(world, world, &cmp[0]);
  MPI_Group_compare(world, both, &cmp[1]);
  MPI_Group_compare(even, odd, &cmp[2]);
  MPI_Group_size(none, &cmp[3]);
  check("group compare ident", 0, cmp[0], MPI_IDENT);
  check("group compare similar", 0, cmp[1], MPI_SIMILAR);
  check("group compare unequal", 0, cmp[2], MPI_UNEQUAL);
  check("intersection size", 0, cmp[3], 0);
  int nr = 0, first = -1;
  MPI_Group_size(rest, &nr);
  int zero = 0;
  MPI_Group_translate_ranks(rest, 1, &zero, world, &first);
  check("difference size", 0, nr, size / 4 + (size % 4 == 2 && (size / 2) % 2 == 1 ? 1 : 0));
  check("difference first", 0, first, size - 1);
  int in_even = -2, back[2] = {0, MPI_PROC_NULL}, out[2];
  MPI_Group_rank(even, &in_even);
  check("rank in even", 0, in_even, rank % 2 == 0 ? (size - 2 - rank) / 2 : MPI_UNDEFINED);
  MPI_Group_translate_ranks(odd, 2, back, even, out);
  check("translate odd to even", 0, out[0], MPI_UNDEFINED);
  check("translate proc null", 1, out[1], MPI_PROC_NULL);

  MPI_Comm ce = MPI_COMM_NULL, co = MPI_COMM_NULL;
  MPI_Comm_create(MPI_COMM_WORLD, even, &ce);
  int sum = -1, er = -1;
  if (rank % 2 == 0) {
    MPI_Comm_rank(ce, &er);
    check("comm_create rank", 0, er, (size - 2 - rank) / 2);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ce);
    check("comm_create allreduce", 0, sum, (long)(ne - 1) * ne);
    MPI_Comm_free(&ce);
  } else {
    check("comm_create outside the group", 0, ce == MPI_COMM_NULL, 1);
    MPI_Comm_create_group(MPI_COMM_WORLD, odd, 7, &co);
    int v = rank == 1 ? 4242 : 0, orank = -1;
    MPI_Comm_rank(co, &orank);
    check("comm_create_group rank", 0, orank, rank / 2);
    MPI_Bcast(&v, 1, MPI_INT, 0, co);
    check("comm_create_group bcast", 0, v, 4242);
    MPI_Comm_free(&co);
  }
  if (rank == 0)
    printf("groups: world %d, even %d, rest %d from %d, comm_create allreduce %d: %s\n", n, ne, nr, first, sum,
           errors ? "WRONG" : "ok");
  MPI_Group_free(&world);
  MPI_Group_free(&even);
  MPI_Group_free(&odd);
  MPI_Group_free(&top);
  MPI_Group_free(&both);
  MPI_Group_free(&none);
  MPI_Group_free(&rest);
  check("group freed", 0, world == MPI_GROUP_NULL, 1);
  free(ranks);
}

/* The low and high halves of the world as an intercommunicator: rank i of
 * each half sends to rank i of the other; merged with the high half first;
 * duplicated; a collective on it refused under MPI_ERRORS_RETURN. */
static void intercomms(void) {
  const int half = size / 2, low = rank < half;
  MPI_Comm mine, inter, merged, dup;
  MPI_Comm_split(MPI_COMM_WORLD, low, rank, &mine);
  MPI_Intercomm_create(mine, 0, MPI_COMM_WORLD, low ? half : 0, 99, &inter);
  int flag = 0, rsize = 0, lsize = 0, lrank = -1;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_rank(inter, &lrank);
  check("test_inter", 0, flag, 1);
  check("remote size", 0, rsize, half);
  check("local size", 0, lsize, half);
  check("local rank", 0, lrank, rank % half);
  int got = -1, mine_v = 1000 * rank + 1;
  MPI_Sendrecv(&mine_v, 1, MPI_INT, lrank, 5, &got, 1, MPI_INT, lrank, 5, inter, MPI_STATUS_IGNORE);
  const int partner = low ? rank + half : rank - half;
  check("intercomm sendrecv", 0, got, 1000 * partner + 1);
  MPI_Status st;
  MPI_Recv(&got, 0, MPI_INT, MPI_PROC_NULL, 0, inter, &st);
  /* A wildcard receive on the intercommunicator names the sender's rank in the remote group. */
  if (lrank == 0) {
    MPI_Send(&mine_v, 1, MPI_INT, half - 1, 6, inter);
  }
  if (lrank == half - 1) {
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 6, inter, &st);
    check("intercomm any source", 0, st.MPI_SOURCE, 0);
    check("intercomm any source data", 0, got, 1000 * (low ? half : 0) + 1);
  }

  MPI_Intercomm_merge(inter, low, &merged); /* high half first */
  int mr = -1, ms = 0, total = 0;
  MPI_Comm_rank(merged, &mr);
  MPI_Comm_size(merged, &ms);
  check("merged size", 0, ms, size);
  check("merged rank", 0, mr, low ? rank + half : rank - half);
  MPI_Allreduce(&mr, &total, 1, MPI_INT, MPI_SUM, merged);
  check("merged allreduce", 0, total, (long)size * (size - 1) / 2);

  MPI_Comm_dup(inter, &dup);
  MPI_Comm_set_name(dup, "halves");
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_get_name(dup, name, &len);
  check("comm name", 0, strcmp(name, "halves") == 0 && len == 6, 1);
  got = -1;
  MPI_Sendrecv(&mine_v, 1, MPI_INT, (lrank + 1) % half, 8, &got, 1, MPI_INT, (lrank + half - 1) % half, 8, dup,
               MPI_STATUS_IGNORE);
  check("dup sendrecv", 0, got, 1000 * ((low ? half : 0) + (lrank + half - 1) % half) + 1);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int scanned = 0;
  const int refused = MPI_Scan(&rank, &scanned, 1, MPI_INT, MPI_SUM, dup);
  check("scan on an intercommunicator refused", 0, refused == MPI_SUCCESS, 0);

  /* Collectives between the halves: the low half's rank 1 broadcasts, each half gets the other's sum, the high
   * half reduces to the low half's rank 0, the low half's rank 0 gathers from and scatters to the high half,
   * every member gathers all of the other half and exchanges a block with each of its members. */
  int bv = low && lrank == 1 ? 4321 : -1, osum = -1, red = -1;
  MPI_Barrier(inter);
  MPI_Bcast(&bv, 1, MPI_INT, low ? (lrank == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1, inter);
  if (!low) check("intercomm bcast", 0, bv, 4321);
  MPI_Allreduce(&rank, &osum, 1, MPI_INT, MPI_SUM, inter);
  check("intercomm allreduce: the other half's sum", 0, osum,
        low ? (long)half * (3 * half - 1) / 2 : (long)half * (half - 1) / 2);
  MPI_Reduce(&rank, &red, 1, MPI_INT, MPI_SUM, low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
  if (low && lrank == 0) check("intercomm reduce at the root", 0, red, (long)half * (3 * half - 1) / 2);
  int* all = malloc(sizeof(int) * (size_t)half);
  int* blk = malloc(sizeof(int) * (size_t)half);
  for (int k = 0; k < half; ++k) all[k] = -1;
  MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
  if (low && lrank == 0)
    for (int k = 0; k < half; ++k) check("intercomm gather", k, all[k], half + k);
  int one = -1;
  for (int k = 0; k < half; ++k) all[k] = 10 * k + 3;
  MPI_Scatter(all, 1, MPI_INT, &one, 1, MPI_INT, low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
  if (!low) check("intercomm scatter", 0, one, 10 * lrank + 3);
  MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, inter);
  for (int k = 0; k < half; ++k) check("intercomm allgather", k, all[k], (low ? half : 0) + k);
  for (int k = 0; k < half; ++k) blk[k] = 1000 * rank + k;
  MPI_Alltoall(blk, 1, MPI_INT, all, 1, MPI_INT, inter);
  for (int k = 0; k < half; ++k) check("intercomm alltoall", k, all[k], 1000 * ((low ? half : 0) + k) + lrank);
  /* Alltoallw with a type and a byte displacement per member of the other half; Reduce_scatter_block: element k
   * of every send buffer is rank + k, and member k of each half gets the other half's sum of element k. */
  int* wc = malloc(sizeof(int) * (size_t)half);
  int* wd = malloc(sizeof(int) * (size_t)half);
  MPI_Datatype* wt = malloc(sizeof(MPI_Datatype) * (size_t)half);
  for (int k = 0; k < half; ++k) {
    blk[k] = 2000 * rank + k;
    all[k] = -1;
    wc[k] = 1;
    wd[k] = (int)sizeof(int) * k;
    wt[k] = MPI_INT;
  }
  MPI_Alltoallw(blk, wc, wd, wt, all, wc, wd, wt, inter);
  for (int k = 0; k < half; ++k) check("intercomm alltoallw", k, all[k], 2000 * ((low ? half : 0) + k) + lrank);
  for (int k = 0; k < half; ++k) blk[k] = rank + k;
  int rsb = -1;
  MPI_Reduce_scatter_block(blk, &rsb, 1, MPI_INT, MPI_SUM, inter);
  check("intercomm reduce_scatter_block", 0, rsb,
        (low ? (long)half * (3 * half - 1) / 2 : (long)half * (half - 1) / 2) + (long)half * lrank);
  free(wc);
  free(wd);
  free(wt);
  free(all);
  free(blk);

  /* Split by parity on both sides, and the local groups less their rank 0. */
  MPI_Comm par, less;
  int prs = 0, pls = 0, prk = -1, lrs = -1, got2 = rank % 2;
  const int p = rank % 2, mylo = low ? 0 : half, otherlo = low ? half : 0;
  MPI_Comm_split(inter, p, rank, &par);
  MPI_Comm_remote_size(par, &prs);
  MPI_Comm_size(par, &pls);
  MPI_Comm_rank(par, &prk);
  check("split intercomm local size", 0, pls, (half + (mylo % 2 == p)) / 2);
  check("split intercomm remote size", 0, prs, (half + (otherlo % 2 == p)) / 2);
  if (prk < prs && prk < pls) /* partners: the same rank on the other side */
    MPI_Sendrecv(&rank, 1, MPI_INT, prk, 9, &got2, 1, MPI_INT, prk, 9, par, MPI_STATUS_IGNORE);
  check("split intercomm partner parity", 0, got2 % 2, p);
  MPI_Group lg, lg1;
  const int zero = 0;
  MPI_Comm_group(inter, &lg);
  MPI_Group_excl(lg, 1, &zero, &lg1);
  MPI_Comm_create(inter, lg1, &less);
  if (lrank == 0) {
    check("create intercomm without rank 0", 0, less == MPI_COMM_NULL, 1);
  } else {
    MPI_Comm_remote_size(less, &lrs);
    check("create intercomm remote size", 0, lrs, half - 1);
    MPI_Comm_free(&less);
  }
  MPI_Group_free(&lg);
  MPI_Group_free(&lg1);
  MPI_Comm_free(&par);

  int cmp[3];
  MPI_Comm wdup;
  MPI_Comm_dup(MPI_COMM_WORLD, &wdup);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp[0]);
  MPI_Comm_compare(MPI_COMM_WORLD, wdup, &cmp[1]);
  MPI_Comm_compare(MPI_COMM_WORLD, merged, &cmp[2]);
  check("comm compare ident", 0, cmp[0], MPI_IDENT);
  check("comm compare congruent", 0, cmp[1], MPI_CONGRUENT);
  check("comm compare similar", 0, cmp[2], MPI_SIMILAR);
  if (rank == 0)
    printf(
        "intercomm: %d and %d ranks, merged rank %d of %d, allreduce %d, scan refused, the other half's sum %d, "
        "reduced %d: %s\n",
        lsize, rsize, mr, ms, total, osum, red, errors ? "WRONG" : "ok");
  MPI_Comm_free(&wdup);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&mine);
}

/* A ring exchange through persistent requests, one pair eager-sized and one
 * rendezvous-sized, started three times with new data; then the calls on
 * inactive requests. */
static void persistent(void) {
  enum { kSmall = 4, kBig = 5000 };
  static int out[kBig], in[kBig], sout[kSmall], sin[kSmall];
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rs[4];
  MPI_Recv_init(in, kBig, MPI_INT, left, 11, MPI_COMM_WORLD, &rs[0]);
  MPI_Send_init(out, kBig, MPI_INT, right, 11, MPI_COMM_WORLD, &rs[1]);
  MPI_Recv_init(sin, kSmall, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &rs[2]);
  MPI_Ssend_init(sout, kSmall, MPI_INT, right, 12, MPI_COMM_WORLD, &rs[3]);
  long sum = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kBig; ++i) out[i] = 100 * rank + round + i;
    for (int i = 0; i < kSmall; ++i) sout[i] = -100 * rank - round - i;
    if (round == 0) {
      MPI_Startall(4, rs);
    } else {
      for (int k = 0; k < 4; ++k) MPI_Start(&rs[k]);
    }
    MPI_Status st[4];
    MPI_Waitall(4, rs, st);
    for (int k = 0; k < 4; ++k) check("persistent request stays", round, rs[k] != MPI_REQUEST_NULL, 1);
    check("persistent source", round, st[0].MPI_SOURCE, left);
    check("persistent wildcard source", round, st[2].MPI_SOURCE, left);
    for (int i = 0; i < kBig; ++i) {
      check("persistent data", i, in[i], 100 * left + round + i);
      sum += in[i];
    }
    for (int i = 0; i < kSmall; ++i) check("persistent small data", i, sin[i], -100 * left - round - i);
  }
  /* Inactive persistent requests: a wait returns at once, Testany sees none active. */
  int idx = 0, flag = 0;
  MPI_Wait(&rs[0], MPI_STATUS_IGNORE);
  MPI_Testany(4, rs, &idx, &flag, MPI_STATUS_IGNORE);
  check("testany of inactive requests: flag", 0, flag, 1);
  check("testany of inactive requests: index", 0, idx, MPI_UNDEFINED);
  for (int k = 0; k < 4; ++k) {
    MPI_Request_free(&rs[k]);
    check("request_free", k, rs[k] == MPI_REQUEST_NULL, 1);
  }
  /* A receive nobody sends to, cancelled. */
  MPI_Request r;
  MPI_Status st;
  int dummy = 0, cancelled = 0;
  MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  check("cancelled receive", 0, cancelled, 1);
  /* Sends cancelled while their messages wait unmatched (eager and rendezvous), and one the receiver took. */
  static int big[kBig];
  MPI_Request sr[3];
  int took = -1, c3[3];
  MPI_Isend(&rank, 1, MPI_INT, right, 31, MPI_COMM_WORLD, &sr[0]);
  MPI_Isend(big, kBig, MPI_INT, right, 32, MPI_COMM_WORLD, &sr[1]);
  MPI_Isend(&rank, 1, MPI_INT, right, 33, MPI_COMM_WORLD, &sr[2]);
  MPI_Recv(&took, 1, MPI_INT, left, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 3; ++k) {
    MPI_Cancel(&sr[k]);
    MPI_Wait(&sr[k], &st);
    MPI_Test_cancelled(&st, &c3[k]);
  }
  check("cancelled eager send", 0, c3[0], 1);
  check("cancelled rendezvous send", 0, c3[1], 1);
  check("send already received, not cancelled", 0, c3[2], 0);
  check("the received message", 0, took, left);
  MPI_Barrier(MPI_COMM_WORLD);
  int waiting = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, MPI_STATUS_IGNORE);
  check("cancelled messages are gone", 0, waiting, 0);
  if (rank == 0)
    printf(
        "persistent: 3 rounds of the ring (%d and %d ints) sum %ld, inactive requests, cancelled receive, "
        "cancelled sends %d %d, received send %d: %s\n",
        kSmall, kBig, sum, c3[0], c3[1], c3[2], errors ? "WRONG" : "ok");
}

/* Persistent collectives started twice with new data, and an info object
 * passed to one. */
static void persistent_collectives(void) {
  MPI_Info info;
  char value[16];
  int flag = 0, nkeys = 0;
  MPI_Info_create(&info);
  MPI_Info_set(info, "hint", "none");
  MPI_Info_set(info, "hint", "some");
  MPI_Info_get(info, "hint", (int)sizeof value - 1, value, &flag);
  MPI_Info_get_nkeys(info, &nkeys);
  check("info get", 0, flag == 1 && strcmp(value, "some") == 0 && nkeys == 1, 1);
  int b[3], mine, sum = 0;
  MPI_Request rs[3];
  MPI_Bcast_init(b, 3, MPI_INT, size - 1, MPI_COMM_WORLD, info, &rs[0]);
  MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rs[1]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rs[2]);
  MPI_Info_free(&info);
  check("info freed", 0, info == MPI_INFO_NULL, 1);
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < 3; ++i) b[i] = rank == size - 1 ? 10 * round + i : -1;
    mine = round * rank;
    MPI_Startall(3, rs);
    MPI_Waitall(3, rs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; ++i) check("bcast_init", i, b[i], 10 * round + i);
    check("allreduce_init", round, sum, (long)round * size * (size - 1) / 2);
  }
  for (int k = 0; k < 3; ++k) MPI_Request_free(&rs[k]);
  /* Persistent collectives match in the order of their init calls, whatever order they start in. */
  int x = rank, xs = 0, y = rank == 0 ? 77 : 0;
  MPI_Request p2[2];
  MPI_Allreduce_init(&x, &xs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p2[0]);
  MPI_Bcast_init(&y, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &p2[1]);
  if (rank % 2) {
    MPI_Start(&p2[1]);
    MPI_Start(&p2[0]);
  } else {
    MPI_Start(&p2[0]);
    MPI_Start(&p2[1]);
  }
  MPI_Waitall(2, p2, MPI_STATUSES_IGNORE);
  check("persistent collectives in init order: allreduce", 0, xs, (long)size * (size - 1) / 2);
  check("persistent collectives in init order: bcast", 0, y, 77);
  MPI_Request_free(&p2[0]);
  MPI_Request_free(&p2[1]);
  /* The non-blocking v-collectives, and two of them persistent: rank k's block is k % 3 + 1 ints of
   * 100 k + j, in reverse rank order with a gap of one. */
  int* cnt = malloc(sizeof(int) * (size_t)size);
  int* dsp = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int k = size - 1; k >= 0; --k) {
    cnt[k] = k % 3 + 1;
    dsp[k] = total;
    total += cnt[k] + 1;
  }
  int* vall = malloc(sizeof(int) * (size_t)total);
  int vmine[3], vgot[3] = {-1, -1, -1};
  for (int j = 0; j < 3; ++j) vmine[j] = 100 * rank + j;
  MPI_Request vr[4];
  for (int i = 0; i < total; ++i) vall[i] = -1;
  MPI_Igatherv(vmine, cnt[rank], MPI_INT, vall, cnt, dsp, MPI_INT, 2, MPI_COMM_WORLD, &vr[0]);
  MPI_Wait(&vr[0], MPI_STATUS_IGNORE);
  if (rank == 2)
    for (int k = 0; k < size; ++k)
      for (int j = 0; j < cnt[k]; ++j) check("igatherv", dsp[k] + j, vall[dsp[k] + j], 100 * k + j);
  MPI_Iscatterv(vall, cnt, dsp, MPI_INT, vgot, cnt[rank], MPI_INT, 2, MPI_COMM_WORLD, &vr[0]);
  MPI_Wait(&vr[0], MPI_STATUS_IGNORE);
  for (int j = 0; j < cnt[rank]; ++j) check("iscatterv", j, vgot[j], 100 * rank + j);
  MPI_Allgatherv_init(vmine, cnt[rank], MPI_INT, vall, cnt, dsp, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &vr[1]);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < total; ++i) vall[i] = -1;
    MPI_Start(&vr[1]);
    MPI_Wait(&vr[1], MPI_STATUS_IGNORE);
    for (int k = 0; k < size; ++k)
      for (int j = 0; j < cnt[k]; ++j) check("allgatherv_init", dsp[k] + j, vall[dsp[k] + j], 100 * k + j);
  }
  MPI_Request_free(&vr[1]);
  /* Alltoallv: rank i sends (i + j) % 3 ints of 1000 i + 10 j + m to rank j. */
  int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
  int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
  int st = 0, rt = 0;
  for (int j = 0; j < size; ++j) {
    sc[j] = (rank + j) % 3;
    sd[j] = st;
    st += sc[j];
    rc[j] = (j + rank) % 3;
    rd[j] = rt;
    rt += rc[j];
  }
  int *aout = malloc(sizeof(int) * (size_t)(st + 1)), *ain = malloc(sizeof(int) * (size_t)(rt + 1));
  for (int j = 0; j < size; ++j)
    for (int m = 0; m < sc[j]; ++m) aout[sd[j] + m] = 1000 * rank + 10 * j + m;
  MPI_Alltoallv_init(aout, sc, sd, MPI_INT, ain, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &vr[2]);
  MPI_Start(&vr[2]);
  MPI_Wait(&vr[2], MPI_STATUS_IGNORE);
  for (int j = 0; j < size; ++j)
    for (int m = 0; m < rc[j]; ++m) check("alltoallv_init", rd[j] + m, ain[rd[j] + m], 1000 * j + 10 * rank + m);
  MPI_Request_free(&vr[2]);
  MPI_Ialltoallv(aout, sc, sd, MPI_INT, ain, rc, rd, MPI_INT, MPI_COMM_WORLD, &vr[3]);
  MPI_Wait(&vr[3], MPI_STATUS_IGNORE);
  for (int j = 0; j < size; ++j)
    for (int m = 0; m < rc[j]; ++m) check("ialltoallv", rd[j] + m, ain[rd[j] + m], 1000 * j + 10 * rank + m);
  /* Non-blocking scans and reduce-scatters, a persistent scan, Alltoallw with a type per peer. */
  int isum = -1, iex = -1, psum = -1, blk2[2] = {-1, -1}, rsv = -1;
  int* rsin = malloc(sizeof(int) * 2 * (size_t)size);
  int* rcs = malloc(sizeof(int) * (size_t)size);
  for (int k = 0; k < 2 * size; ++k) rsin[k] = rank + k;
  for (int k = 0; k < size; ++k) rcs[k] = 1;
  MPI_Request sr[5];
  MPI_Iscan(&rank, &isum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &sr[0]);
  MPI_Iexscan(&rank, &iex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &sr[1]);
  MPI_Ireduce_scatter_block(rsin, blk2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &sr[2]);
  MPI_Ireduce_scatter(rsin, &rsv, rcs, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &sr[3]);
  MPI_Waitall(4, sr, MPI_STATUSES_IGNORE);
  check("iscan", 0, isum, (long)rank * (rank + 1) / 2);
  if (rank > 0) check("iexscan", 0, iex, (long)rank * (rank - 1) / 2);
  const long ranks_sum = (long)size * (size - 1) / 2;
  check("ireduce_scatter_block", 0, blk2[0], ranks_sum + (long)size * (2 * rank));
  check("ireduce_scatter_block", 1, blk2[1], ranks_sum + (long)size * (2 * rank + 1));
  check("ireduce_scatter", 0, rsv, ranks_sum + (long)size * rank);
  MPI_Scan_init(&rank, &psum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &sr[4]);
  MPI_Start(&sr[4]);
  MPI_Wait(&sr[4], MPI_STATUS_IGNORE);
  MPI_Request_free(&sr[4]);
  check("scan_init max", 0, psum, rank);
  int* wsc = malloc(sizeof(int) * (size_t)size);
  int* wsd = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype* wt = malloc(sizeof(MPI_Datatype) * (size_t)size);
  int* wout = malloc(sizeof(int) * (size_t)size);
  int* win = malloc(sizeof(int) * (size_t)size);
  for (int k = 0; k < size; ++k) {
    wsc[k] = 1;
    wsd[k] = (int)sizeof(int) * k;
    wt[k] = MPI_INT;
    wout[k] = 100 * rank + k;
    win[k] = -1;
  }
  MPI_Alltoallw(wout, wsc, wsd, wt, win, wsc, wsd, wt, MPI_COMM_WORLD);
  for (int k = 0; k < size; ++k) check("alltoallw", k, win[k], 100 * k + rank);
  free(rsin);
  free(rcs);
  free(wsc);
  free(wsd);
  free(wt);
  free(wout);
  free(win);
  free(cnt);
  free(dsp);
  free(vall);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(aout);
  free(ain);
  if (rank == 0)
    printf(
        "persistent collectives: bcast (%d, %d, %d), allreduce %d, barrier, twice, in init order, v-collectives, "
        "scans, reduce-scatters, non-blocking and persistent, alltoallw, info 'hint' = '%s': %s\n",
        b[0], b[1], b[2], sum, value, errors ? "WRONG" : "ok");
}

/* A user op on 2x2 integer matrices (a contiguous derived type): the
 * product, which does not commute, so the order of ranks shows. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    const int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0;
    b[1] = c1;
    b[2] = c2;
    b[3] = c3;
  }
}

/* A user op on every other int (a vector type with gaps): the sum. */
static void strided_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = in;
  int* b = inout;
  for (int j = 0; j < *len; ++j) /* 3 ints a stride of 2 apart per element, elements 5 ints apart (its extent) */
    for (int k = 0; k < 3; ++k) b[5 * j + 2 * k] += a[5 * j + 2 * k];
}

/* User ops on derived types in MPI_Reduce, MPI_Allreduce, the scans and
 * reduce-scatters, blocking and not, and MPI_Reduce_local (the gaps of the
 * vector type untouched), and
 * MPI_Alltoall and MPI_Ialltoall in place. */
static void derived_reductions(void) {
  MPI_Datatype mat, vec;
  MPI_Op mul, ssum;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Op_create(matmul, 0, &mul);
  MPI_Op_create(strided_sum, 1, &ssum);
  /* Rank r's matrix [[1, r], [0, 1]]: their product in rank order is [[1, sum r], [0, 1]]. */
  int m[2][4] = {{1, rank, 0, 1}, {1, 2 * rank, 0, 1}}, prod[2][4];
  MPI_Allreduce(m, prod, 2, mat, mul, MPI_COMM_WORLD);
  const long tri = (long)size * (size - 1) / 2;
  check("allreduce matmul", 0, prod[0][1], tri);
  check("allreduce matmul", 1, prod[1][1], 2 * tri);
  const int p0 = prod[0][1], p1 = prod[1][1];
  memset(prod, 0, sizeof prod);
  MPI_Reduce(m, prod, 2, mat, mul, 1, MPI_COMM_WORLD);
  if (rank == 1) check("reduce matmul at 1", 0, prod[0][1] + prod[1][1], 3 * tri);
  int v[5] = {rank, -7, 10 * rank, -7, 1}, w[5] = {-1, -1, -1, -1, -1};
  MPI_Allreduce(v, w, 1, vec, ssum, MPI_COMM_WORLD);
  check("allreduce vector", 0, w[0], tri);
  check("allreduce vector", 2, w[2], 10 * tri);
  check("allreduce vector", 4, w[4], size);
  check("allreduce vector gap", 1, w[1], -1);
  check("allreduce vector gap", 3, w[3], -1);
  /* Alltoall in place: block j of rank r is 100 r + j before, 100 j + r after. */
  int* blocks = malloc(sizeof(int) * (size_t)size);
  for (int j = 0; j < size; ++j) blocks[j] = 100 * rank + j;
  MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, blocks, 1, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j) check("alltoall in place", j, blocks[j], 100 * j + rank);
  /* The non-blocking forms: Ireduce of the matrices (rank order, at rank 0), Iallreduce and Iscan of the
   * strided sum, Ireduce_scatter_block of one vector element per rank (element j of rank q holds q + j + k at its
   * k-th int), Ialltoall in place (back to what the blocks were). */
  int iprod[2][4] = {{0}}, iw[5] = {-1, -1, -1, -1, -1}, sw[5] = {-1, -1, -1, -1, -1}, rs[5] = {-1, -1, -1, -1, -1};
  int* vs = malloc(sizeof(int) * 5 * (size_t)size);
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < 5; ++k) vs[5 * j + k] = k % 2 ? -7 : rank + j + k / 2;
  MPI_Request nr[5];
  MPI_Ireduce(m, iprod, 2, mat, mul, 0, MPI_COMM_WORLD, &nr[0]);
  MPI_Iallreduce(v, iw, 1, vec, ssum, MPI_COMM_WORLD, &nr[1]);
  MPI_Iscan(v, sw, 1, vec, ssum, MPI_COMM_WORLD, &nr[2]);
  MPI_Ireduce_scatter_block(vs, rs, 1, vec, ssum, MPI_COMM_WORLD, &nr[3]);
  MPI_Ialltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, blocks, 1, MPI_INT, MPI_COMM_WORLD, &nr[4]);
  MPI_Waitall(5, nr, MPI_STATUSES_IGNORE);
  if (rank == 0) check("ireduce matmul", 0, iprod[0][1] + iprod[1][1], 3 * tri);
  const long pre = (long)rank * (rank + 1) / 2;
  for (int k = 0; k < 5; k += 2) {
    check("iallreduce vector", k, iw[k], k == 0 ? tri : k == 2 ? 10 * tri : size);
    check("iscan vector", k, sw[k], k == 0 ? pre : k == 2 ? 10 * pre : rank + 1);
    check("ireduce_scatter_block vector", k, rs[k], tri + (long)size * (rank + k / 2));
  }
  for (int k = 1; k < 5; k += 2) {
    check("iallreduce vector gap", k, iw[k], -1);
    check("iscan vector gap", k, sw[k], -1);
    check("ireduce_scatter_block vector gap", k, rs[k], -1);
  }
  for (int j = 0; j < size; ++j) check("ialltoall in place", j, blocks[j], 100 * rank + j);
  /* The blocking forms give the same: MPI_Scan, MPI_Reduce_scatter_block; and MPI_Reduce_local of two vectors. */
  int bsw[5] = {-1, -1, -1, -1, -1}, brs[5] = {-1, -1, -1, -1, -1}, lv[5] = {1, -3, 2, -3, 3};
  MPI_Scan(v, bsw, 1, vec, ssum, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(vs, brs, 1, vec, ssum, MPI_COMM_WORLD);
  MPI_Reduce_local(v, lv, 1, vec, ssum);
  for (int k = 0; k < 5; ++k) {
    check("scan vector", k, bsw[k], sw[k]);
    check("reduce_scatter_block vector", k, brs[k], rs[k]);
    check("reduce_local vector", k, lv[k], k == 0 ? rank + 1 : k == 2 ? 10 * rank + 2 : k == 4 ? 4 : -3);
  }
  free(vs);
  free(blocks);
  MPI_Op_free(&mul);
  MPI_Op_free(&ssum);
  MPI_Type_free(&mat);
  MPI_Type_free(&vec);
  if (rank == 0)
    printf(
        "user ops on derived types: matrix product %d and %d, strided sum (%d, %d, %d) gaps (%d, %d), alltoall in "
        "place: %s\n",
        p0, p1, w[0], w[2], w[4], w[1], w[3], errors ? "WRONG" : "ok");
}

/* Calls common in applications: MAXLOC/MINLOC on pair types,
 * Sendrecv_replace, Pack/Unpack, a subarray type, hindexed, Type_dup and
 * its true extent, attributes, versions, MPI_Alloc_mem, split by type. */
static void common_calls(void) {
  struct {
    double v;
    int i;
  } dv = {(double)((rank * 7) % size), rank}, dmax, dmin;
  MPI_Allreduce(&dv, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  MPI_Allreduce(&dv, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  int want_max = -1, want_min = -1;
  for (int r = size - 1; r >= 0; --r) { /* the lowest rank of the largest and smallest values */
    if (want_max < 0 || (r * 7) % size >= (want_max * 7) % size) want_max = r;
    if (want_min < 0 || (r * 7) % size <= (want_min * 7) % size) want_min = r;
  }
  check("maxloc index", 0, dmax.i, want_max);
  check("minloc index", 0, dmin.i, want_min);
  int pair[2] = {rank % 3, rank}, best[2];
  MPI_Allreduce(pair, best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
  check("2int maxloc", 0, best[0] * 1000 + best[1], 2 * 1000 + 2);

  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int ring[3] = {rank, 2 * rank, 3 * rank};
  MPI_Status st;
  MPI_Sendrecv_replace(ring, 3, MPI_INT, right, 41, left, 41, MPI_COMM_WORLD, &st);
  check("sendrecv_replace", 0, ring[0] + ring[1] + ring[2], 6 * left);
  check("sendrecv_replace source", 0, st.MPI_SOURCE, left);

  char packed[64];
  int pos = 0, psize = 0, ints[2] = {rank, -rank};
  double d = 0.5 * rank;
  MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, &psize);
  MPI_Pack(ints, 2, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
  MPI_Pack(&d, 1, MPI_DOUBLE, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
  MPI_Sendrecv_replace(packed, pos, MPI_PACKED, right, 42, left, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int upos = 0;
  MPI_Unpack(packed, (int)sizeof packed, &upos, ints, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Unpack(packed, (int)sizeof packed, &upos, &d, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  check("pack size", 0, psize, 8);
  check("unpacked", 0, ints[0] * 100 + ints[1] + (long)(d * 4), 100 * left - left + 2 * left);

  /* A 2x3 block at (1, 2) of a 4x5 array, sent to the right into a zeroed array. */
  int a[4][5], b[4][5];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      a[i][j] = 100 * rank + 10 * i + j;
      b[i][j] = 0;
    }
  MPI_Datatype sub, dup, hidx;
  const int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub);
  MPI_Type_dup(sub, &dup);
  MPI_Type_commit(&dup);
  MPI_Aint tlb = 0, text = 0, lb = 0, ext = 0;
  MPI_Type_get_true_extent(dup, &tlb, &text);
  MPI_Type_get_extent(dup, &lb, &ext);
  MPI_Sendrecv(a, 1, dup, right, 43, b, 1, dup, left, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  long moved = 0, sum = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      if (b[i][j]) {
        ++moved;
        sum += b[i][j] - 100 * left;
      }
  check("subarray elements", 0, moved, 6);
  check("subarray values", 0, sum, 10 * (1 + 1 + 1 + 2 + 2 + 2) + (2 + 3 + 4) * 2);
  check("subarray true extent", 0, tlb * 1000 + text, 7 * 4 * 1000 + 8 * 4);
  check("subarray extent", 0, ext, 80);
  const int lens[2] = {1, 2};
  const MPI_Aint disps[2] = {12, 0};
  int h[4] = {rank, rank + 1, rank + 2, rank + 3}, hin[4] = {0, 0, 0, 0};
  MPI_Type_create_hindexed(2, lens, disps, MPI_INT, &hidx);
  MPI_Type_commit(&hidx);
  MPI_Sendrecv(h, 1, hidx, right, 44, hin, 3, MPI_INT, left, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check("hindexed order", 0, hin[0] * 10000 + hin[1] * 100 + hin[2], (left + 3) * 10000 + left * 100 + left + 1);

  /* A struct of two separate variables by their absolute addresses, sent from MPI_BOTTOM. */
  int sa = 7 * rank;
  double sb = 0.25 * rank;
  MPI_Aint addr[2];
  MPI_Get_address(&sa, &addr[0]);
  MPI_Get_address(&sb, &addr[1]);
  const int one_each[2] = {1, 1};
  const MPI_Datatype kinds[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype abs_t;
  MPI_Type_create_struct(2, one_each, addr, kinds, &abs_t);
  MPI_Type_commit(&abs_t);
  struct {
    int a;
    double b;
  } packed_pair; /* 16 bytes; the message is the 12 packed ones */
  MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, right, 45, &packed_pair, (int)sizeof packed_pair, MPI_BYTE, left, 45,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Type_free(&abs_t);
  check("MPI_BOTTOM int", 0, *(int*)(void*)&packed_pair, 7 * left);
  double bot_b = 0;
  memcpy(&bot_b, (char*)(void*)&packed_pair + sizeof(int), sizeof bot_b);
  check("MPI_BOTTOM double", 0, (long)(4 * bot_b), left);
  MPI_Status fake;
  int fc = -1, fcan = 0;
  MPI_Status_set_elements(&fake, MPI_DOUBLE, 5);
  MPI_Status_set_cancelled(&fake, 1);
  MPI_Get_count(&fake, MPI_DOUBLE, &fc);
  MPI_Test_cancelled(&fake, &fcan);
  check("status_set_elements", 0, fc * 10 + fcan, 51);
  int* tag_ub = NULL;
  int flag = 0, v = 0, sv = 0, commute = -1, shared = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  check("tag_ub", 0, flag && *tag_ub >= 32767, 1);
  MPI_Get_version(&v, &sv);
  check("version", 0, v >= 3, 1);
  double* mem = NULL;
  MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &mem);
  mem[63] = 1.0;
  MPI_Free_mem(mem);
  MPI_Op_commutative(MPI_SUM, &commute);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &shared);
  check("split_type shared", 0, shared, 1);
  MPI_Comm_free(&node);
  MPI_Type_free(&sub);
  MPI_Type_free(&dup);
  MPI_Type_free(&hidx);
  /* Complex numbers: the sum of r + 2i over the ranks, the product of i (odd ranks) and 1 (even ones), in double
   * and float. */
  double _Complex zs = (double)rank + 2.0 * I, zp = rank % 2 ? I : 1.0, zsum = 0, zprod = 0;
  float _Complex fs = (float)rank - 1.0f * I, fsum = 0;
  MPI_Allreduce(&zs, &zsum, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&zp, &zprod, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  MPI_Reduce(&fs, &fsum, 1, MPI_C_FLOAT_COMPLEX, MPI_SUM, 2, MPI_COMM_WORLD);
  const long tri = (long)size * (size - 1) / 2;
  static const int quarter[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}; /* i to the power 0, 1, 2, 3 */
  check("complex sum, real", 0, (long)creal(zsum), tri);
  check("complex sum, imaginary", 0, (long)cimag(zsum), 2L * size);
  check("complex product, real", 0, (long)creal(zprod), quarter[(size / 2) % 4][0]);
  check("complex product, imaginary", 0, (long)cimag(zprod), quarter[(size / 2) % 4][1]);
  if (rank == 2) {
    check("float complex sum, real", 0, (long)crealf(fsum), tri);
    check("float complex sum, imaginary", 0, (long)cimagf(fsum), -(long)size);
  }
  if (rank == 0) /* + 0.0: a negative zero prints as 0 */
    printf(
        "common calls: maxloc at %d, minloc at %d, 2int (%d, %d), sendrecv_replace, pack %d bytes, subarray 6 of 20 "
        "(true extent %ld at %ld), hindexed, tag_ub, MPI %d, alloc_mem, split_type %d, complex sum (%.0f, %.0f) and "
        "product (%.0f, %.0f): %s\n",
        dmax.i, dmin.i, best[0], best[1], pos, (long)text, (long)tlb, v, shared, creal(zsum) + 0.0, cimag(zsum) + 0.0,
        creal(zprod) + 0.0, cimag(zprod) + 0.0, errors ? "WRONG" : "ok");
}

/* Buffered sends (eager and rendezvous sizes), MPI_Ibsend, MPI_Bsend_init, a
 * message that does not fit refused, and the buffer handed back. */
static void buffered(void) {
  enum { kSmall = 25, kBig = 3000 };
  const int size_needed = (int)(sizeof(int) * (kSmall + 2 * kBig)) + 3 * MPI_BSEND_OVERHEAD;
  char* buf = malloc((size_t)size_needed);
  MPI_Buffer_attach(buf, size_needed);
  static int small[kSmall], big[kBig], big2[kBig], in[kBig];
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < kSmall; ++i) small[i] = 7 * rank + i;
  for (int i = 0; i < kBig; ++i) {
    big[i] = 3 * rank + i;
    big2[i] = -rank - i;
  }
  MPI_Request ib, pb;
  MPI_Bsend(small, kSmall, MPI_INT, right, 21, MPI_COMM_WORLD);
  MPI_Ibsend(big, kBig, MPI_INT, right, 22, MPI_COMM_WORLD, &ib);
  MPI_Bsend_init(big2, kBig, MPI_INT, right, 23, MPI_COMM_WORLD, &pb);
  MPI_Start(&pb);
  /* The sent data may change at once: the messages were copied. */
  for (int i = 0; i < kBig; ++i) big[i] = big2[i] = -1;
  small[0] = -1;
  MPI_Wait(&ib, MPI_STATUS_IGNORE);
  MPI_Wait(&pb, MPI_STATUS_IGNORE);
  MPI_Request_free(&pb);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int one = 1;
  const int rc = MPI_Bsend(&one, 1, MPI_INT, MPI_PROC_NULL, 24, MPI_COMM_WORLD);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  check("bsend to MPI_PROC_NULL", 0, rc, MPI_SUCCESS);
  MPI_Recv(in, kSmall, MPI_INT, left, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < kSmall; ++i) check("bsend small", i, in[i], 7 * left + i);
  MPI_Recv(in, kBig, MPI_INT, left, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < kBig; ++i) check("ibsend big", i, in[i], 3 * left + i);
  MPI_Recv(in, kBig, MPI_INT, left, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < kBig; ++i) check("bsend_init big", i, in[i], -left - i);
  /* An Ibsend cancelled while its message waits unmatched. */
  MPI_Request cb;
  MPI_Status cst;
  int cflag = 0;
  MPI_Ibsend(small, kSmall, MPI_INT, right, 26, MPI_COMM_WORLD, &cb);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Cancel(&cb);
  MPI_Wait(&cb, &cst);
  MPI_Test_cancelled(&cst, &cflag);
  check("cancelled ibsend", 0, cflag, 1);
  void* back = NULL;
  int back_size = 0;
  MPI_Buffer_detach(&back, &back_size);
  check("detached buffer", 0, back == (void*)buf && back_size == size_needed, 1);
  /* Too small a buffer: MPI_ERR_BUFFER. */
  MPI_Buffer_attach(buf, 16);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int err = MPI_Bsend(small, kSmall, MPI_INT, right, 25, MPI_COMM_WORLD);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int cls = -1;
  MPI_Error_class(err, &cls);
  check("bsend beyond the buffer", 0, cls, MPI_ERR_BUFFER);
  MPI_Buffer_detach(&back, &back_size);
  free(buf);
  if (rank == 0)
    printf("buffered: %d + %d + %d ints through a %d-byte buffer, one too many refused (class %d): %s\n", kSmall, kBig,
           kBig, size_needed, cls, errors ? "WRONG" : "ok");
}

/* Matched probes: each rank sends two messages with tag 7 to the next (8
 * ints, eager; 5000 ints, rendezvous); the receiver takes the first with
 * MPI_Mprobe and the second with MPI_Improbe, then posts a wildcard receive,
 * which must not take either, receives them with MPI_Mrecv and MPI_Imrecv,
 * and sends itself the message the wildcard receive gets. A matched probe
 * of MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. */
static void matched_probes(void) {
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  int small[8], gs[8];
  int* big = malloc(sizeof(int) * 5000);
  int* got = malloc(sizeof(int) * 5000);
  for (int k = 0; k < 5000; ++k) {
    big[k] = 100000 * rank + k;
    got[k] = -1;
  }
  for (int k = 0; k < 8; ++k) {
    small[k] = 10 * rank + k;
    gs[k] = -1;
  }
  MPI_Request sr[3], wr, rr;
  MPI_Isend(small, 8, MPI_INT, to, 7, MPI_COMM_WORLD, &sr[0]);
  MPI_Isend(big, 5000, MPI_INT, to, 7, MPI_COMM_WORLD, &sr[1]);
  MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL, mn = MPI_MESSAGE_NULL;
  MPI_Status st1, st2, st;
  MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &m1, &st1);
  int flag = 0, c1 = -1, c2 = -1, wild = -1;
  while (!flag) MPI_Improbe(from, 7, MPI_COMM_WORLD, &flag, &m2, &st2);
  MPI_Get_count(&st1, MPI_INT, &c1);
  MPI_Get_count(&st2, MPI_INT, &c2);
  check("mprobe source", 0, st1.MPI_SOURCE, from);
  check("mprobe count", 0, c1, 8);
  check("improbe count", 0, c2, 5000);
  MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wr);
  MPI_Mrecv(gs, 8, MPI_INT, &m1, &st);
  check("mrecv leaves the null message", 0, m1, MPI_MESSAGE_NULL);
  check("mrecv tag", 0, st.MPI_TAG, 7);
  MPI_Imrecv(got, 5000, MPI_INT, &m2, &rr);
  MPI_Wait(&rr, &st);
  check("imrecv source", 0, st.MPI_SOURCE, from);
  for (int k = 0; k < 8; ++k) check("mrecv data", k, gs[k], 10 * from + k);
  for (int k = 0; k < 5000; ++k) check("imrecv data", k, got[k], 100000 * from + k);
  const int self = 4242 + rank;
  MPI_Isend(&self, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &sr[2]);
  MPI_Wait(&wr, &st);
  check("wildcard receive after the matched ones", 0, wild, self);
  check("wildcard receive tag", 0, st.MPI_TAG, 8);
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &mn, &st);
  check("mprobe of MPI_PROC_NULL", 0, mn, MPI_MESSAGE_NO_PROC);
  MPI_Mrecv(NULL, 0, MPI_INT, &mn, &st);
  check("mrecv of MPI_MESSAGE_NO_PROC", 0, st.MPI_SOURCE, MPI_PROC_NULL);
  MPI_Waitall(3, sr, MPI_STATUSES_IGNORE);
  /* No rank sends again before every wildcard receive above has its message (else it may take the next one). */
  MPI_Barrier(MPI_COMM_WORLD);
  /* MPI_Isendrecv of 3000 ints (rendezvous) around the ring, and MPI_Isendrecv_replace of a vector type (every
   * other int; the gaps keep what they held). */
  for (int k = 0; k < 3000; ++k) {
    big[k] = 7 * rank + k;
    got[k] = -1;
  }
  int rep[10];
  for (int k = 0; k < 10; ++k) rep[k] = k % 2 ? -5 : 1000 * rank + k;
  MPI_Datatype every_other;
  MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Request ir[2];
  MPI_Status ist[2];
  MPI_Isendrecv(big, 3000, MPI_INT, to, 11, got, 3000, MPI_INT, from, 11, MPI_COMM_WORLD, &ir[0]);
  MPI_Isendrecv_replace(rep, 1, every_other, to, 12, from, 12, MPI_COMM_WORLD, &ir[1]);
  MPI_Waitall(2, ir, ist);
  int c3 = -1;
  MPI_Get_count(&ist[0], MPI_INT, &c3);
  check("isendrecv source", 0, ist[0].MPI_SOURCE, from);
  check("isendrecv tag", 0, ist[0].MPI_TAG, 11);
  check("isendrecv count", 0, c3, 3000);
  check("isendrecv_replace tag", 0, ist[1].MPI_TAG, 12);
  for (int k = 0; k < 3000; ++k) check("isendrecv data", k, got[k], 7 * from + k);
  for (int k = 0; k < 10; ++k) check("isendrecv_replace data", k, rep[k], k % 2 ? -5 : 1000 * from + k);
  MPI_Type_free(&every_other);
  free(big);
  free(got);
  if (rank == 0)
    printf(
        "matched probes: %d and %d ints from rank %d, a wildcard receive left for a later message; isendrecv of %d "
        "ints and isendrecv_replace around the ring: %s\n",
        c1, c2, st1.MPI_SOURCE, c3, errors ? "WRONG" : "ok");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 4 || size % 2) {
    if (rank == 0) printf("mpi_groups: needs an even number of ranks from 4, got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  const char* bad = argc > 1 ? argv[1] : "";
  if (strcmp(bad, "badrank") == 0) {
    MPI_Group world, g;
    int r = size;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &r, &g);
  } else if (strcmp(bad, "restart") == 0) {
    int x = 0;
    MPI_Request q;
    MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_SELF, &q);
    MPI_Start(&q);
    MPI_Start(&q);
  } else if (strcmp(bad, "nobuffer") == 0) {
    int x = 0;
    MPI_Bsend(&x, 1, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD);
  } else if (strcmp(bad, "nomessage") == 0) {
    int x = 0;
    MPI_Message m = 12345;
    MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
  } else if (strcmp(bad, "complexmax") == 0) {
    double _Complex z = 1, m = 0;
    MPI_Allreduce(&z, &m, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD);
  } else if (strcmp(bad, "intercoll") == 0) {
    MPI_Comm half, inter;
    int x = 0;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 1, &inter);
    MPI_Scan(&x, &x, 1, MPI_INT, MPI_SUM, inter);
  }
  groups();
  intercomms();
  persistent();
  persistent_collectives();
  derived_reductions();
  common_calls();
  buffered();
  matched_probes();
  int all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mpi_groups: %d ranks, %s\n", size, all ? "failed" : "all checks passed");
  /* A rendezvous-sized receive freed while active, the last call before MPI_Finalize, which must complete it
   * (else its sender waits forever). */
  static int last[5000];
  MPI_Request lr;
  if (rank % 2 == 0) { /* even ranks send to the odd rank above, which has nothing else to finish */
    MPI_Send(last, 5000, MPI_INT, rank + 1, 99, MPI_COMM_WORLD);
  } else {
    MPI_Irecv(last, 5000, MPI_INT, rank - 1, 99, MPI_COMM_WORLD, &lr);
    MPI_Request_free(&lr);
  }
  MPI_Finalize();
  return all != 0;
}
