/* The passing kernels in the original's own style (after nickoppen/passing,
 * blog10files branch, written anew): remote writes are plain stores through
 * NEIGHBOUR_LOC into the neighbour's copy of a stack array, no e-lib calls.
 * Built with hopsim-cc, every load and store is interposed: natively they
 * are real stores into the memory windows, simulated they are timed on the
 * eMesh.
 *
 * Same data layout and copy-out as the e-lib versions in ../passing.cl, so
 * the host program and its data check are shared. */
#include "coreid16.h"

#define DEBUG_STRIDE 256

static void initLocal(int* vLocal, int n, unsigned int base) {
  unsigned int firstI = base * n, lastI = firstI + n, i;
  for (i = firstI; i < lastI; i++) vLocal[i] = base + 100;
}

static void copyOut(int* vLocal, int n, __global int* g_debug) {
  unsigned int j, d = get_global_id(0) * DEBUG_STRIDE;
  for (j = 0; j < CORECOUNT * n; j++) g_debug[d++] = vLocal[j];
}

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
      for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(NEXT, vLocal, i, sizeof(int)) = vLocal[i];
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude = (magnitude == 0) ? 15 : magnitude - 1;
    } while (magnitude != ringIndex);
  }
  copyOut(vLocal, n, g_debug);
}

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
      for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(PREV, vLocal, i, sizeof(int)) = vLocal[i];

      nextIndex = (int)ringIndex - (int)magnitude;
      firstI = ((nextIndex < 0) ? nextIndex + CORECOUNT : nextIndex) * n;
      lastI = firstI + n;
      for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(NEXT, vLocal, i, sizeof(int)) = vLocal[i];

      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude++;
    }
  }
  copyOut(vLocal, n, g_debug);
}

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
      for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(remoteMemBase, vLocal, i, (sizeof(int))) = vLocal[i];
      gid_next = (gid_next == CORECOUNT - 1) ? 0 : gid_next + 1;
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
  }
  copyOut(vLocal, n, g_debug);
}

/* The original's column-major table walked with a gid index: off-diagonal
 * cores reach 14 of 15 peers. One barrier after initialisation and one
 * before the copy-out, as in the e-lib version. */
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
        for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(core[coreI], vLocal, i, (sizeof(int))) = vLocal[i];
      coreI = (coreI == (CORECOUNT - 1)) ? 0 : coreI + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  copyOut(vLocal, n, g_debug);
}

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
      for (i = firstI; i < lastI; i++)
        *(int*)NEIGHBOUR_LOC(LOCAL_MEM_ADDRESS_BASE(gid_next), vLocal, i, sizeof(int)) = vLocal[i];
      gid_next = (gid_next == CORECOUNT - 1) ? 0 : gid_next + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  copyOut(vLocal, n, g_debug);
}

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
      for (i = firstI; i < lastI; i++) *(int*)NEIGHBOUR_LOC(NEXT, vLocal, i, sizeof(int)) = vLocal[i];
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      magnitude = (magnitude == 0) ? 15 : magnitude - 1;
    } while (magnitude != ringIndex);
  }
  copyOut(vLocal, n, g_debug);
}

/* Core 5 stores past the end of core 6's 32 KiB: reported, not a segfault. */
__kernel void k_writeOutside(int g_n, __global int* g_debug, int g_repeat) {
  (void)g_debug;
  if (get_global_id(0) == 5) *(int*)(LOCAL_MEM_ADDRESS_BASE(6) + 0x8000u) = g_n + g_repeat;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

__kernel void k_deadlock(int g_n, __global int* g_debug, int g_repeat) {
  (void)g_n;
  (void)g_debug;
  (void)g_repeat;
  if (get_global_id(0) != 0) barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
