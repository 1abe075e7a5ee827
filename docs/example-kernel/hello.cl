/* Every core stores its coreid, with plain stores, into its slot of the
 * `got` array of each of its mesh neighbours (0 past the edges), then
 * copies its own array to the host's buffer. */
#include "coreid16.h"

__kernel void k_hello(__global int* out, int rounds) {
  unsigned int n[4], gid = get_global_id(0), k, r;
  int got[4] = {0, 0, 0, 0}; /* from north, south, east, west */
  initMesh(&n[0], &n[1], &n[2], &n[3]);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (r = 0; r < (unsigned)rounds; r++) {
    for (k = 0; k < 4; k++) {
      /* My neighbour in direction k sees me in the opposite direction. */
      if (n[k]) *(int*)NEIGHBOUR_LOC(n[k], got, k ^ 1, sizeof(int)) = (int)e_get_coreid();
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
  for (k = 0; k < 4; k++) out[gid * 4 + k] = got[k];
}
