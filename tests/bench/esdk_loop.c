/* A memory-bound loop over a global in core memory, in the form eSDK
 * device programs take (a SECTION global, main). Built with hopsim's e-gcc
 * it runs on a core; built with plain clang it runs as an ordinary host
 * program: bench_esdk.py compares the two (the device pass's cost). */
#include <stdio.h>
#include <time.h>

#define N 2048
#define REPS 200000
int a[N] __attribute__((section(".data_bank2")));

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  for (int i = 0; i < N; i++) a[i] = i;
  const double t0 = now();
  for (int r = 0; r < REPS; r++)
    for (int i = 0; i < N; i++) a[i] = a[i] * 3 + a[(i + 1) & (N - 1)];
  const double t1 = now();
  unsigned sum = 0;
  for (int i = 0; i < N; i++) sum = sum * 31 + (unsigned)a[i];
  printf("esdk_loop: %.4f ns per element, checksum %08x\n", (t1 - t0) * 1e9 / ((double)N * REPS), sum);
  return 0;
}
