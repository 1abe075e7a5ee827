/* Kernels for the raw-access tests (tests/test_raw.cpp), built with hopsim-cc.
 * Results go to a host-visible int array `out` (external memory). */
#include "coreid16.h"

int g_count; /* per core: each core loads its own .data/.bss */
int g_last = -1;

/* Every core stores its gid + 1000 at offset 0x1000 + 4*gid of the next core. */
__kernel void k_remote_store(__global int* out) {
  unsigned gid = get_global_id(0);
  unsigned next = (gid + 1) % CORECOUNT;
  (void)out;
  *(int*)(LOCAL_MEM_ADDRESS_BASE(next) + 0x1000u + 4u * gid) = (int)gid + 1000;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* Core 0 loads a word from core 1 and records the cycles the load took. */
__kernel void k_remote_load(__global int* out) {
  if (get_global_id(0) == 1) *(volatile int*)(LOCAL_MEM_ADDRESS_BASE(1) + 0x2000u) = 4242;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (get_global_id(0) == 0) {
    volatile int* remote = (volatile int*)(LOCAL_MEM_ADDRESS_BASE(1) + 0x2000u);
    unsigned t0, t1;
    int v;
    e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
    e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
    t0 = e_ctimer_get(E_CTIMER_0);
    v = *remote;
    t1 = e_ctimer_get(E_CTIMER_0);
    out[0] = v;
    out[1] = (int)(t0 - t1);
  }
}

unsigned long long test_now_cycles(void); /* exported by the test program: the core's clock in half cycles */

/* Core 2 loads a word of its own memory by its local and by its global
 * address: out[2] and out[3] are the cycles each took. */
__kernel void k_self_global(__global int* out) {
  if (get_global_id(0) == 2) {
    volatile int* local = (volatile int*)0x2000u;
    volatile int* global = (volatile int*)(LOCAL_MEM_ADDRESS_BASE(2) + 0x2000u);
    unsigned t0, t1, t2;
    int v = 0;
    *local = 77;
    e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
    e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
    t0 = e_ctimer_get(E_CTIMER_0);
    v += *local;
    t1 = e_ctimer_get(E_CTIMER_0);
    v += *global;
    t2 = e_ctimer_get(E_CTIMER_0);
    out[0] = v;
    out[2] = (int)(t0 - t1);
    out[3] = (int)(t1 - t2);
  }
}

/* Core 0 stores a flag on core 1; core 1 polls it with plain volatile loads.
 * t[0]: core 0's clock at the store, t[1]: core 1's clock once it saw it. */
__kernel void k_flag(__global int* out) {
  volatile int* flag = (volatile int*)(LOCAL_MEM_ADDRESS_BASE(1) + 0x3000u);
  long long* t = (long long*)(out + 8);
  unsigned gid = get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (gid == 0) {
    long long ts = (long long)test_now_cycles();
    *flag = 1;
    t[0] = ts;
  }
  if (gid == 1) {
    long long seen;
    while (*flag == 0) {
    }
    seen = (long long)test_now_cycles();
    t[1] = seen;
  }
}

/* Each core bumps its own copy of a global. */
__kernel void k_globals(__global int* out) {
  unsigned gid = get_global_id(0);
  g_count++;
  g_last = (int)gid;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  out[16 + gid] = g_count * 1000 + g_last;
}

/* All cores add to one counter on core 0 with atomic read-modify-writes. */
__kernel void k_atomics(__global int* out) {
  int* counter = (int*)(LOCAL_MEM_ADDRESS_BASE(0) + 0x4000u);
  int i;
  (void)out;
  for (i = 0; i < 10; i++) __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* Core 5 stores 4 bytes just past core 6's local memory. */
__kernel void k_store_outside(__global int* out) {
  (void)out;
  if (get_global_id(0) == 5) *(int*)(LOCAL_MEM_ADDRESS_BASE(6) + 0x8000u) = 1;
}

/* Core 3 loads 2 bytes from a core that does not exist (row 40). */
__kernel void k_load_nowhere(__global int* out) {
  if (get_global_id(0) == 3) out[0] = *(volatile short*)0xA2800010u;
}

/* Core 0 makes 100 volatile loads of its own memory at a local address;
 * out[2]: the half cycles they took (simulated, each reaches the runtime). */
__kernel void k_local_volatile(__global int* out) {
  if (get_global_id(0) == 0) {
    volatile int* w = (volatile int*)0x3000u;
    long long t0 = (long long)test_now_cycles(), t1;
    int i, s = 0;
    for (i = 0; i < 100; i++) s += *w;
    t1 = (long long)test_now_cycles();
    out[2] = (int)(t1 - t0);
    out[3] = s;
  }
}
