/* What the COPRTHR stdcl kernel compiler gives an OpenCL-C kernel on the
 * Epiphany, as hopsim provides it (force-included into .cl kernel files by
 * hopsim-cc, clcc and e-gcc). Kernels are compiled as C (GNU C with clang's
 * vector extension): the OpenCL scalar and vector types with their
 * operators and components (.x .y .z .w, .s0 .. .sF, .lo .hi .even .odd),
 * the address-space qualifiers, and the work-item functions. clcc turns
 * OpenCL's vector literals, (float4)(1, 2, 3, 4), into C's (float4){1, 2,
 * 3, 4}; a splat, (float4)(x), is C's already. */
#ifndef HOPSIM_OCL_KERNEL_H
#define HOPSIM_OCL_KERNEL_H

#include <stddef.h>

#include "e_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

#ifndef __cplusplus /* the OpenCL C language; C++ (hopsim's runtime) sees the functions only */
/* A kernel entry point: clcc finds kernels by this mark. */
#ifdef __clang__
#define __kernel __attribute__((annotate("hopsim.kernel")))
#else
#define __kernel
#endif
#define __global
#define __local
#define __constant const
#define __private
/* The unprefixed spellings are OpenCL C keywords: defined for .cl files
 * that clcc and e-gcc compile (hopsim's own kernels use them as names). */
#ifdef __HOPSIM_OPENCL_C__
#define kernel __kernel
#define global
#define local
#define constant const
#define private
#endif
#define __read_only
#define __write_only
#define __read_write

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong; /* 64 bits, as OpenCL's long */

#ifdef __clang__ /* the vector types are clang's extension */
#define HOPSIM_OCL_VECTORS(T, N) typedef T T##N __attribute__((ext_vector_type(N)));
#define HOPSIM_OCL_VECTOR_SET(T) \
  HOPSIM_OCL_VECTORS(T, 2)       \
  HOPSIM_OCL_VECTORS(T, 3)       \
  HOPSIM_OCL_VECTORS(T, 4)       \
  HOPSIM_OCL_VECTORS(T, 8)       \
  HOPSIM_OCL_VECTORS(T, 16)
HOPSIM_OCL_VECTOR_SET(char)
HOPSIM_OCL_VECTOR_SET(uchar)
HOPSIM_OCL_VECTOR_SET(short)
HOPSIM_OCL_VECTOR_SET(ushort)
HOPSIM_OCL_VECTOR_SET(int)
HOPSIM_OCL_VECTOR_SET(uint)
HOPSIM_OCL_VECTOR_SET(long)
HOPSIM_OCL_VECTOR_SET(ulong)
HOPSIM_OCL_VECTOR_SET(float)
HOPSIM_OCL_VECTOR_SET(double)
#undef HOPSIM_OCL_VECTOR_SET
#undef HOPSIM_OCL_VECTORS
#endif
#endif

/* The work item's ids and the NDRange's sizes in dimension `dim` (0..2):
 * as the host's clndrange_t gives them (1 past its dimensions, 0 for ids). */
unsigned int get_work_dim(void);
unsigned int get_global_id(unsigned int dim);
unsigned int get_local_id(unsigned int dim);
unsigned int get_group_id(unsigned int dim);
unsigned int get_global_size(unsigned int dim);
unsigned int get_local_size(unsigned int dim);
unsigned int get_num_groups(unsigned int dim);
unsigned int get_global_offset(unsigned int dim);
/* Synchronises the work items of the work-group (all on cores at once). */
void barrier(int flags);

#ifdef __cplusplus
}
#endif
#endif
