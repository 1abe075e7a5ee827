/* The E16 vocabulary of the original passing kernels' include file, same
 * names and meaning: CORECOUNT, LOCAL_MEM_ADDRESS_BASE(gid), core00..core33
 * (coreXY: X = column, Y = row), NEIGHBOUR_LOC / NEIGHBOR_LOC, and the ring,
 * row and mesh helpers (0 where there is no neighbour).
 *
 * NEIGHBOUR_LOC keeps only the low 20 bits of STRUCTURE: on the device a
 * stack array's address is already a local address (< 1 MiB), so this is
 * the same arithmetic there; in hopsim the array's address is its global
 * address in the core's window and the mask recovers the local offset. */
#ifndef HOPSIM_COREID16_H
#define HOPSIM_COREID16_H

#include <stdint.h>

#define CORECOUNT 16
#define MAXCORE 15
#define MINCORE 0
#define LOCAL_MEM_ADDRESS_BASE(gid) ((((32u + ((gid) / 4u)) << 26)) | ((8u + ((gid) % 4u)) << 20))

#define core00 0x80800000u
#define core10 0x80900000u
#define core20 0x80a00000u
#define core30 0x80b00000u
#define core01 0x84800000u
#define core11 0x84900000u
#define core21 0x84a00000u
#define core31 0x84b00000u
#define core02 0x88800000u
#define core12 0x88900000u
#define core22 0x88a00000u
#define core32 0x88b00000u
#define core03 0x8c800000u
#define core13 0x8c900000u
#define core23 0x8ca00000u
#define core33 0x8cb00000u

#define NEIGHBOUR_LOC(CORE, STRUCTURE, INDEX, SIZEOFTYPE) \
  ((unsigned)(CORE) + (((unsigned)(uintptr_t)(STRUCTURE)) & 0xFFFFFu) + (unsigned)((INDEX) * (SIZEOFTYPE)))
#define NEIGHBOR_LOC(CORE, STRUCTURE, INDEX, SIZEOFTYPE) NEIGHBOUR_LOC(CORE, STRUCTURE, INDEX, SIZEOFTYPE)

#define LOOPINGINCREMENT(newVal, val, inc) \
  newVal = val + inc;                      \
  if (newVal > MAXCORE) newVal = newVal - CORECOUNT;
#define LOOPINGDECREMENT(newVal, val, dec) \
  newVal = val - dec;                      \
  if (newVal < MINCORE) newVal = newVal + CORECOUNT;

#ifdef __cplusplus
extern "C" {
#endif
unsigned int get_global_id(unsigned int dim);
#ifdef __cplusplus
}
#endif

/* Snake ring over the 4x4 grid (row 0 left to right, then the columns from
 * the right, alternately down and up): every step is one mesh hop.
 * gidOrder[ringIndex] == gid. */
static inline void initRing(unsigned int* NEXT, unsigned int* PREV, unsigned int* ringIndex, unsigned int* gidOrder) {
  static const unsigned int order[CORECOUNT] = {0, 1, 2, 3, 7, 11, 15, 14, 10, 6, 5, 9, 13, 12, 8, 4};
  const unsigned int gid = get_global_id(0);
  unsigned int i;
  *ringIndex = 0;
  for (i = 0; i < CORECOUNT; i++) {
    gidOrder[i] = order[i];
    if (order[i] == gid) *ringIndex = i;
  }
  *NEXT = LOCAL_MEM_ADDRESS_BASE(order[(*ringIndex + 1) % CORECOUNT]);
  *PREV = LOCAL_MEM_ADDRESS_BASE(order[(*ringIndex + CORECOUNT - 1) % CORECOUNT]);
}

/* Boustrophedon line over the rows; RIGHT/LEFT are 0 at the two ends. */
static inline void initRow(unsigned int* RIGHT, unsigned int* LEFT, unsigned int* ringOrder, unsigned int* gidOrder) {
  static const unsigned int order[CORECOUNT] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};
  const unsigned int gid = get_global_id(0);
  unsigned int i;
  *ringOrder = 0;
  for (i = 0; i < CORECOUNT; i++) {
    gidOrder[i] = order[i];
    if (order[i] == gid) *ringOrder = i;
  }
  *RIGHT = *ringOrder == CORECOUNT - 1 ? 0u : LOCAL_MEM_ADDRESS_BASE(order[*ringOrder + 1]);
  *LEFT = *ringOrder == 0 ? 0u : LOCAL_MEM_ADDRESS_BASE(order[*ringOrder - 1]);
}

/* Mesh neighbours (north = row above, east = column to the right); 0 past the edges. */
static inline void initMesh(unsigned int* NORTH, unsigned int* SOUTH, unsigned int* EAST, unsigned int* WEST) {
  const unsigned int gid = get_global_id(0);
  const unsigned int row = gid / 4u, col = gid % 4u;
  *NORTH = row == 0 ? 0u : LOCAL_MEM_ADDRESS_BASE(gid - 4u);
  *SOUTH = row == 3 ? 0u : LOCAL_MEM_ADDRESS_BASE(gid + 4u);
  *EAST = col == 3 ? 0u : LOCAL_MEM_ADDRESS_BASE(gid + 1u);
  *WEST = col == 0 ? 0u : LOCAL_MEM_ADDRESS_BASE(gid - 1u);
}

#endif
