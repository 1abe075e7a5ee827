/* Benchmark kernel: every core sums a 1024-int array on its stack `reps`
 * times (local loads), then stores the sum on its ring neighbour (one remote
 * store per repetition): a tight loop where the instrumentation shows. */
#include "coreid16.h"

static int sum_array(volatile int* a, int n) {
  int s = 0, i;
  for (i = 0; i < n; i++) s += a[i];
  return s;
}

__kernel void k_local_loop(__global int* out, int reps) {
  unsigned gid = get_global_id(0);
  unsigned next = LOCAL_MEM_ADDRESS_BASE((gid + 1) % CORECOUNT);
  int a[1024];
  int got[CORECOUNT];
  int r, i, s = 0;
  for (i = 0; i < 1024; i++) a[i] = i + (int)gid;
  for (r = 0; r < reps; r++) {
    s += sum_array(a, 1024);
    *(int*)NEIGHBOUR_LOC(next, got, gid, sizeof(int)) = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  out[gid] = s;
}
