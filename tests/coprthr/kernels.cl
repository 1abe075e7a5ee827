/* Kernels of hopsim's stdcl tests (linked into stdcl_host with clcc). */

/* c[i] = scale * a[i] + b[i], and each work item's ids, packed. */
__kernel void axpy(uint n, float scale, __global float* a, __global float* b, __global float* c, __global uint* ids) {
  uint i = get_global_id(0);
  if (i >= n) return;
  c[i] = scale * a[i] + b[i];
  ids[4 * i + 0] = get_local_id(0);
  ids[4 * i + 1] = get_group_id(0);
  ids[4 * i + 2] = get_local_size(0) * 1000 + get_num_groups(0);
  ids[4 * i + 3] = get_global_size(0);
}

/* OpenCL C vector types: by value (k), through pointers, with components. */
__kernel void vectors(__global float4* v, float4 k, __global int2* p, __global uchar4* u, __global uint* s) {
  int i = get_global_id(0);
  float4 x = v[i];
  v[i] = x * k + (float4)(1.0f) - (float4)(0.0f, 0.5f, 1.0f, 1.5f); /* a splat and a literal */
  int2 q = p[i];
  p[i] = q.yx * 2 + (int2)(i);
  uchar4 w = u[i];
  w.s0 = (uchar)(w.s0 + 200); /* wraps modulo 256 */
  w.zw = w.xy;
  u[i] = w;
  s[i] = (uint)(x.x + x.y + x.z + x.w) / 2u;
}

/* Within a work-group: each item reads its right neighbour's value after a barrier. */
__kernel void rotate(__global int* in, __global int* out) {
  uint l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
  in[base + l] = in[base + l] * 10;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[base + l] = in[base + (l + 1) % n];
}
