/* Inter-core value passing on the E16 (after nickoppen/passing, blog10files
 * branch: same kernels, same data layout, written anew for hopsim).
 *
 * Each of the 16 cores owns n ints: slot `base` of its 256-int stack array
 * vLocal (base = ring index or gid) starts as base + 100. A pass moves the
 * slots between cores until every core holds every slot; the pass repeats
 * g_repeat times (the original: REPEATCOUNT = 100000).
 *
 * Remote writes use e_write on the address the original stores through
 * (NEIGHBOUR_LOC of the neighbour's base and the local array); running
 * the raw stores unmodified is hopsim's compiler-wrapper path.
 *
 * After the pass every core copies its vLocal to g_debug (256 ints per
 * core) in external memory, for the host's data check. */
#include "coreid16.h"

#define DEBUG_STRIDE 256

/* e-lib form of:  *(int*)NEIGHBOUR_LOC(CORE, vLocal, i, sizeof(int)) = vLocal[i]; */
#define PASS(CORE, i) \
  e_write(&e_group_config, &vLocal[i], 0, 0, (void*)(uintptr_t)NEIGHBOUR_LOC(CORE, vLocal, i, sizeof(int)), sizeof(int))

static void initLocal(int* vLocal, int n, unsigned int base) {
  unsigned int firstI = base * n, lastI = firstI + n, i;
  for (i = firstI; i < lastI; i++) vLocal[i] = base + 100;
}

static void copyOut(int* vLocal, int n, __global int* g_debug) {
  e_write(&e_emem_config, vLocal, 0, 0, g_debug + get_global_id(0) * DEBUG_STRIDE, CORECOUNT * n * sizeof(int));
}

/* Unicast: 16 steps per repeat; each sends one slot to NEXT on the ring, then a barrier. */
__kernel void k_passUni(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int NEXT, PREV, ringIndex, gidOrder[CORECOUNT];
  unsigned int i, firstI, lastI, magnitude;
  unsigned int repeater = g_repeat;
  int n = g_n;
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initRing(&NEXT, &PREV, &ringIndex, gidOrder);
  initLocal(vLocal, n, ringIndex);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  while (repeater--) {
    magnitude = ringIndex;
    do {
      firstI = magnitude * n;
      lastI = firstI + n;
      for (i = firstI; i < lastI; i++) PASS(NEXT, i);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude = (magnitude == 0) ? 15 : magnitude - 1;
    } while (magnitude != ringIndex);
  }
  copyOut(vLocal, n, g_debug);
}

/* Multicast (bicast): 8 steps; each sends one slot to PREV and another to NEXT, then a barrier. */
__kernel void k_passMulti(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int NEXT, PREV, ringIndex, gidOrder[CORECOUNT];
  unsigned int i, firstI, lastI, magnitude, magMax;
  int nextIndex;
  unsigned int repeater = g_repeat;
  int n = g_n;
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initRing(&NEXT, &PREV, &ringIndex, gidOrder);
  initLocal(vLocal, n, ringIndex);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  while (repeater--) {
    magnitude = 0;
    magMax = CORECOUNT / 2;
    while (magnitude < magMax) {
      nextIndex = (int)(ringIndex + magnitude);
      firstI = ((nextIndex >= CORECOUNT) ? nextIndex - CORECOUNT : nextIndex) * n;
      lastI = firstI + n;
      for (i = firstI; i < lastI; i++) PASS(PREV, i);

      nextIndex = (int)ringIndex - (int)magnitude;
      firstI = ((nextIndex < 0) ? nextIndex + CORECOUNT : nextIndex) * n;
      lastI = firstI + n;
      for (i = firstI; i < lastI; i++) PASS(NEXT, i);

      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude++;
    }
  }
  copyOut(vLocal, n, g_debug);
}

/* Broadcast: write the own slot to each other core in gid order, a barrier after each target. */
__kernel void k_passBroadcastWait(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int gid_next, gid = get_global_id(0);
  unsigned int remoteMemBase, i, firstI, lastI;
  unsigned int repeater = g_repeat;
  int n = g_n;
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initLocal(vLocal, n, gid);
  firstI = gid * n;
  lastI = firstI + n;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  while (repeater--) {
    gid_next = (gid == (CORECOUNT - 1)) ? 0 : gid + 1;
    while (gid_next != gid) {
      remoteMemBase = LOCAL_MEM_ADDRESS_BASE(gid_next);
      for (i = firstI; i < lastI; i++) PASS(remoteMemBase, i);
      gid_next = (gid_next == CORECOUNT - 1) ? 0 : gid_next + 1;
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
  }
  copyOut(vLocal, n, g_debug);
}

/* Broadcast without waiting, as the original: it walks a table of core
 * bases listed in column-major order (core00, core01, ...) with a gid
 * index, so an off-diagonal core never reaches the peer at table index gid
 * and writes to 14 of its 15 peers. The data check reports the gaps.
 * hopsim adds one barrier after initialisation and one before the copy-out
 * (not in the repeated loop) so the check reads settled data. */
__kernel void k_passBroadcastNoWait(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int gid = get_global_id(0);
  unsigned int localCoreId, i, coreI, firstI, lastI;
  unsigned int repeater = g_repeat;
  int n = g_n;
  unsigned int core[] = {core00, core01, core02, core03, core10, core11, core12, core13,
                         core20, core21, core22, core23, core30, core31, core32, core33};
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initLocal(vLocal, n, gid);
  firstI = gid * n;
  lastI = firstI + n;
  localCoreId = LOCAL_MEM_ADDRESS_BASE(gid);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  while (repeater--) {
    coreI = (gid == (CORECOUNT - 1)) ? 0 : gid + 1;
    while (coreI != gid) {
      if (core[coreI] != localCoreId)
        for (i = firstI; i < lastI; i++) PASS(core[coreI], i);
      coreI = (coreI == (CORECOUNT - 1)) ? 0 : coreI + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  copyOut(vLocal, n, g_debug);
}

/* The corrected variant: walk the peers by gid, so every core reaches all 15. */
__kernel void k_passBroadcastNoWaitFixed(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int gid = get_global_id(0);
  unsigned int gid_next, i, firstI, lastI;
  unsigned int repeater = g_repeat;
  int n = g_n;
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initLocal(vLocal, n, gid);
  firstI = gid * n;
  lastI = firstI + n;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  while (repeater--) {
    gid_next = (gid == (CORECOUNT - 1)) ? 0 : gid + 1;
    while (gid_next != gid) {
      for (i = firstI; i < lastI; i++) PASS(LOCAL_MEM_ADDRESS_BASE(gid_next), i);
      gid_next = (gid_next == CORECOUNT - 1) ? 0 : gid_next + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  copyOut(vLocal, n, g_debug);
}

/* Deliberately wrong (for testing the data check): unicast that never sends
 * the last int of a slot. */
__kernel void k_passUniBroken(int g_n, __global int* g_debug, int g_repeat) {
  unsigned int NEXT, PREV, ringIndex, gidOrder[CORECOUNT];
  unsigned int i, firstI, lastI, magnitude;
  unsigned int repeater = g_repeat;
  int n = g_n;
  int vLocal[CORECOUNT * CORECOUNT] = {0};

  initRing(&NEXT, &PREV, &ringIndex, gidOrder);
  initLocal(vLocal, n, ringIndex);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  while (repeater--) {
    magnitude = ringIndex;
    do {
      firstI = magnitude * n;
      lastI = firstI + n - 1;
      for (i = firstI; i < lastI; i++) PASS(NEXT, i);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude = (magnitude == 0) ? 15 : magnitude - 1;
    } while (magnitude != ringIndex);
  }
  copyOut(vLocal, n, g_debug);
}

/* Deliberately out of bounds (for testing the memory check): core 5 writes
 * past the end of core 6's 32 KiB local memory. */
__kernel void k_writeOutside(int g_n, __global int* g_debug, int g_repeat) {
  int v = g_n + g_repeat;
  (void)g_debug;
  if (get_global_id(0) == 5)
    e_write(&e_group_config, &v, 0, 0, (void*)(uintptr_t)(LOCAL_MEM_ADDRESS_BASE(6) + 0x8000u), sizeof(int));
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* Deliberately deadlocking (for testing deadlock detection): core 0 skips the barrier. */
__kernel void k_deadlock(int g_n, __global int* g_debug, int g_repeat) {
  (void)g_n;
  (void)g_debug;
  (void)g_repeat;
  if (get_global_id(0) != 0) barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
