/* MPI_THREAD_MULTIPLE: the threads a rank makes with pthread_create call MPI
 * at the same time.
 *
 * Usage: mpi_threads [single | deadlock | badjoin]
 *
 * Each rank (an even number of them) starts 4 threads; thread t exchanges
 * messages with the same thread of the partner rank (rank ^ 1) on tag t:
 * thread 0 eager (256 B), thread 1 rendezvous (8 KiB), thread 2 both at
 * once with MPI_ANY_TAG receives of its own communicator, thread 3 an
 * MPI_Allreduce on its own duplicate of MPI_COMM_WORLD. Thread 0 also waits
 * in MPI_Recv for a message that thread 3 of its own rank sends it
 * (a blocked call leaves MPI to the others). Every thread adds to a counter
 * under a pthread mutex around an MPI call, and checks MPI_Is_thread_main.
 * With `single` the rank's own thread does the four parts one after another
 * at MPI_THREAD_SINGLE (the same data). With `deadlock` thread 1 of each
 * rank waits in MPI_Recv for a message no one sends (tag 77), and the
 * rank's own thread in pthread_join for it: the run must name both. With
 * `badjoin` rank 0 joins a thread that does not exist: an error naming it.
 *
 * stdout (the same in every mode): the level provided and rank 0's summary
 * of every rank's checks. stderr: cycles of the exchange (the slowest
 * thread, mean over ranks) and of one MPI_Iprobe, so the lock's cost shows
 * against `single`. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>
#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

static int rank, size, partner;
static long wrong[THREADS], checked[THREADS], not_main;
static int counter;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm comms[THREADS];
static uint64_t cycles[THREADS];

static unsigned char value(int from, int t, int i) { return (unsigned char)(from * 31 + t * 7 + i); }

static void check(int t, const unsigned char* b, int n, int from) {
  for (int i = 0; i < n; ++i) wrong[t] += b[i] != value(from, t, i);
  checked[t] += n;
}

static void exchange(int t, int n, int any_tag) {
  unsigned char* out = malloc((size_t)n);
  unsigned char* in = malloc((size_t)n);
  for (int i = 0; i < n; ++i) out[i] = value(rank, t, i);
  memset(in, 0, (size_t)n);
  MPI_Request rq[2];
  MPI_Status st[2];
  MPI_Irecv(in, n, MPI_BYTE, partner, any_tag ? MPI_ANY_TAG : t, comms[t], &rq[0]);
  MPI_Isend(out, n, MPI_BYTE, partner, t, comms[t], &rq[1]);
  MPI_Waitall(2, rq, st);
  if (st[0].MPI_SOURCE != partner || st[0].MPI_TAG != t) ++wrong[t];
  check(t, in, n, partner);
  free(out);
  free(in);
}

static void part(int t) {
  int flag = -1;
  MPI_Is_thread_main(&flag);
  pthread_mutex_lock(&mutex);
  counter++;
  int f = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 1000, comms[t], &f, MPI_STATUS_IGNORE);
  pthread_mutex_unlock(&mutex);
  if (t == 0) {
    exchange(0, 256, 0);
    /* Thread 3 of this rank sends this one. */
    unsigned char b[64];
    MPI_Recv(b, 64, MPI_BYTE, rank, 99, comms[0], MPI_STATUS_IGNORE);
    check(0, b, 64, rank);
  } else if (t == 1) {
    exchange(1, 8192, 0);
  } else if (t == 2) {
    exchange(2, 100, 1);
    exchange(2, 6000, 1);
  } else {
    double x = rank + 0.5, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comms[3]);
    wrong[3] += sum != size * (size - 1) / 2.0 + size * 0.5;
    checked[3] += 1;
    unsigned char b[64];
    for (int i = 0; i < 64; ++i) b[i] = value(rank, 0, i);
    MPI_Send(b, 64, MPI_BYTE, rank, 99, comms[0]);
  }
  if (!flag) not_main++;
}

static int deadlock;

static void* thread_main(void* arg) {
  const int t = (int)(long)arg;
  if (deadlock && t == 1) {
    char b;
    MPI_Recv(&b, 1, MPI_BYTE, partner, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const uint64_t t0 = GetTimeBase();
  part(t);
  cycles[t] = GetTimeBase() - t0;
  return (void*)(long)(t + 100);
}

int main(int argc, char** argv) {
  const int single = argc > 1 && strcmp(argv[1], "single") == 0;
  deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
  const int badjoin = argc > 1 && strcmp(argv[1], "badjoin") == 0;
  int provided = -1;
  MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2) {
    if (rank == 0) fprintf(stderr, "mpi_threads: needs an even number of ranks\n");
    MPI_Finalize();
    return 2;
  }
  partner = rank ^ 1;
  int queried = -1;
  MPI_Query_thread(&queried);
  if (rank == 0)
    printf("provided %s (queried the same: %s)\n",
           provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
           : provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE"
                                           : "another level",
           queried == provided ? "yes" : "no");
  for (int t = 0; t < THREADS; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  if (badjoin && rank == 0) {
    pthread_t none;
    memset(&none, 0x5a, sizeof none);
    pthread_join(none, NULL);
  }

  /* One MPI_Iprobe's cycles: the lock's cost under MPI_THREAD_MULTIPLE. */
  MPI_Barrier(MPI_COMM_WORLD);
  int f = 0;
  uint64_t p0 = GetTimeBase();
  for (int i = 0; i < 100; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 1000, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
  const double probe = (double)(GetTimeBase() - p0) / 100;

  MPI_Barrier(MPI_COMM_WORLD);
  const uint64_t t0 = GetTimeBase();
  long returned = 0;
  if (single) {
    /* Thread 0's receive from thread 3 comes after thread 3's send. */
    part(1);
    part(2);
    part(3);
    part(0);
    returned = 4;
  } else {
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, thread_main, (void*)t);
    for (int t = 0; t < THREADS; ++t) {
      void* r = NULL;
      pthread_join(th[t], &r);
      returned += (long)r == t + 100;
    }
  }
  const double exchange_cycles = (double)(GetTimeBase() - t0);

  long mine[4] = {0, 0, returned, counter}, all[4];
  for (int t = 0; t < THREADS; ++t) {
    mine[0] += wrong[t];
    mine[1] += checked[t];
  }
  MPI_Reduce(mine, all, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  long threads_not_main = 0;
  MPI_Reduce(&not_main, &threads_not_main, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double sums[2] = {exchange_cycles, probe}, means[2];
  MPI_Reduce(sums, means, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%d ranks: %ld values checked, %ld wrong, %ld parts returned, mutex counter %ld\n", size, all[1], all[0],
           all[2], all[3]);
    printf("parts outside the rank's own thread: %ld\n", threads_not_main);
    fprintf(stderr, "the four parts: %.0f cycles (mean over ranks)\n", means[0] / size);
    fprintf(stderr, "MPI_Iprobe: %.0f cycles per call\n", means[1] / size);
  }
  for (int t = 0; t < THREADS; ++t) MPI_Comm_free(&comms[t]);
  MPI_Finalize();
  return 0;
}
