/* A COPRTHR stdcl host program in C with its own main(), as Brown Deer's
 * examples are written: kernels linked in with clcc (kernels.cl) or
 * compiled at run time (clopen), run on stdacc (the Epiphany) or stdcpu.
 * Every result is checked against its closed form.
 *
 *   stdcl_host items N L       axpy over N work items, local size L (clforka)
 *   stdcl_host fork N L        the same through clarg_set, clarg_set_global, clfork
 *   stdcl_host vectors N       float4, int2, uchar4 and uint in a kernel
 *   stdcl_host rotate N L      barrier() inside work-groups of L items
 *   stdcl_host jit FILE        clopen FILE now, then with clbuild "-D COEF=3"
 *   stdcl_host cpu             axpy, vectors and rotate on stdcpu
 *   stdcl_host reuse           clfree gives device memory back (first fit, freed blocks joined)
 *   stdcl_host missing-kernel | missing-file | bad-kernel FILE | bad-arg | unset-arg   (errors) */
#include <stdcl.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
static int checked = 0;

static void expect(const char* what, size_t i, double got, double want) {
  ++checked;
  if (got != want && failures++ < 5) printf("  %s[%zu] = %g, expected %g\n", what, i, got, want);
}

static int report(const char* name) {
  printf("coprthr %s: %s (%d values checked)\n", name, failures ? "FAILED" : "PASSED", checked);
  return failures ? 1 : 0;
}

static cl_kernel kernel(CLCONTEXT* cp, const char* name) {
  cl_kernel k = clsym(cp, 0, name, 0);
  if (!k) {
    printf("clsym(%s) returned NULL\n", name);
    exit(3);
  }
  return k;
}

static void axpy(CLCONTEXT* cp, cl_uint n, size_t local, int by_index) {
  cl_kernel k = kernel(cp, "axpy");
  cl_float* a = (cl_float*)clmalloc(cp, n * sizeof(cl_float), 0);
  cl_float* b = (cl_float*)clmalloc(cp, n * sizeof(cl_float), 0);
  cl_float* c = (cl_float*)clmalloc(cp, n * sizeof(cl_float), 0);
  cl_uint* ids = (cl_uint*)clmalloc(cp, 4 * n * sizeof(cl_uint), 0);
  for (cl_uint i = 0; i < n; i++) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i + 1.0f;
    c[i] = -1.0f;
  }
  clmsync(cp, 0, a, CL_MEM_DEVICE | CL_EVENT_NOWAIT);
  clmsync(cp, 0, b, CL_MEM_DEVICE | CL_EVENT_NOWAIT);
  clndrange_t ndr = clndrange_init1d(0, n, local);
  if (by_index) {
    cl_float scale = 0.5f;
    clarg_set(cp, k, 0, sizeof(cl_uint), &n);
    clarg_set(cp, k, 1, sizeof(cl_float), &scale);
    clarg_set_global(cp, k, 2, a);
    clarg_set_global(cp, k, 3, b);
    clarg_set_global(cp, k, 4, c);
    clarg_set_global(cp, k, 5, ids);
    clfork(cp, 0, k, &ndr, CL_EVENT_NOWAIT);
  } else {
    clforka(cp, 0, k, &ndr, CL_EVENT_NOWAIT, n, 0.5f, a, b, c, ids);
  }
  clmsync(cp, 0, c, CL_MEM_HOST | CL_EVENT_NOWAIT);
  clmsync(cp, 0, ids, CL_MEM_HOST | CL_EVENT_NOWAIT);
  clflush(cp, 0, 0);
  clwait(cp, 0, CL_ALL_EVENT);
  for (cl_uint i = 0; i < n; i++) {
    expect("c", i, c[i], 2.5 * i + 1.0);
    expect("local_id", i, ids[4 * i], (double)(i % local));
    expect("group_id", i, ids[4 * i + 1], (double)(i / local));
    expect("local_size*1000+num_groups", i, ids[4 * i + 2], (double)(local * 1000 + n / local));
    expect("global_size", i, ids[4 * i + 3], n);
  }
  clfree(a);
  clfree(b);
  clfree(c);
  clfree(ids);
}

static void vectors(CLCONTEXT* cp, cl_uint n) {
  void* linked_in = clopen(cp, 0, CLLD_NOW); /* the kernels clcc linked in, by handle */
  cl_kernel k = clsym(cp, linked_in, "vectors", 0);
  if (!k) exit(3);
  cl_float* v = (cl_float*)clmalloc(cp, 4 * n * sizeof(cl_float), 0);
  cl_int* p = (cl_int*)clmalloc(cp, 2 * n * sizeof(cl_int), 0);
  cl_uchar* u = (cl_uchar*)clmalloc(cp, 4 * n, 0);
  cl_uint* s = (cl_uint*)clmalloc(cp, n * sizeof(cl_uint), 0);
  const cl_float kv[4] = {2.0f, 3.0f, 4.0f, 5.0f};
  const cl_float sub[4] = {0.0f, 0.5f, 1.0f, 1.5f};
  for (cl_uint i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) v[4 * i + j] = (float)(i + j);
    p[2 * i] = 2 * (int)i;
    p[2 * i + 1] = 3 * (int)i;
    u[4 * i] = (cl_uchar)(i % 256);
    u[4 * i + 1] = (cl_uchar)((3 * i) % 256);
    u[4 * i + 2] = u[4 * i + 3] = 0;
  }
  clarg_set_global(cp, k, 0, v);
  clarg_set(cp, k, 1, sizeof kv, kv); /* a float4 by value */
  clarg_set_global(cp, k, 2, p);
  clarg_set_global(cp, k, 3, u);
  clarg_set_global(cp, k, 4, s);
  clndrange_t ndr = clndrange_init1d(0, n, 16);
  clfork(cp, 0, k, &ndr, CL_EVENT_WAIT);
  clwait(cp, 0, CL_ALL_EVENT);
  for (cl_uint i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) expect("v", 4 * i + j, v[4 * i + j], (double)(i + j) * kv[j] + 1.0 - sub[j]);
    expect("p.x", i, p[2 * i], 7.0 * i);
    expect("p.y", i, p[2 * i + 1], 5.0 * i);
    expect("u.s0", i, u[4 * i], (double)((i + 200) % 256));
    expect("u.s1", i, u[4 * i + 1], (double)((3 * i) % 256));
    expect("u.s2", i, u[4 * i + 2], (double)((i + 200) % 256));
    expect("u.s3", i, u[4 * i + 3], (double)((3 * i) % 256));
    expect("s", i, s[i], 2.0 * i + 3.0);
  }
}

static void rotate(CLCONTEXT* cp, cl_uint n, size_t local) {
  cl_kernel k = kernel(cp, "rotate");
  cl_int* in = (cl_int*)clmalloc(cp, n * sizeof(cl_int), 0);
  cl_int* out = (cl_int*)clmalloc(cp, n * sizeof(cl_int), 0);
  for (cl_uint i = 0; i < n; i++) in[i] = (int)i;
  clndrange_t ndr = clndrange_init1d(0, n, local);
  clforka(cp, 0, k, &ndr, CL_EVENT_WAIT, in, out);
  for (cl_uint i = 0; i < n; i++) {
    const size_t base = i / local * local;
    expect("in", i, in[i], 10.0 * i);
    expect("out", i, out[i], 10.0 * (double)(base + (i - base + 1) % local));
  }
}

static void jit(CLCONTEXT* cp, const char* file) {
  const cl_uint n = 256;
  cl_float* a = (cl_float*)clmalloc(cp, n * sizeof(cl_float), 0);
  cl_float* c = (cl_float*)clmalloc(cp, n * sizeof(cl_float), 0);
  for (cl_uint i = 0; i < n; i++) a[i] = 1.5f * (float)i;
  clndrange_t ndr = clndrange_init1d(0, n, 16);
  for (int coef = 1; coef <= 3; coef += 2) {
    void* h = coef == 1 ? clopen(cp, file, CLLD_NOW) : clopen(cp, file, CLLD_NOBUILD);
    if (coef == 3) clbuild(cp, h, "-D COEF=3", 0);
    cl_kernel k = clsym(cp, h, "coef", 0);
    if (!k) exit(3);
    clarg_set_global(cp, k, 0, a);
    clarg_set_global(cp, k, 1, c);
    clfork(cp, 0, k, &ndr, CL_EVENT_NOWAIT);
    clwait(cp, 0, CL_ALL_EVENT);
    for (cl_uint i = 0; i < n; i++) expect("c", i, c[i], coef * 1.5 * i);
    clclose(cp, h);
  }
}

/* 64 rounds of clmalloc and clfree of 1 MiB, twice the device's 32 MiB;
 * then a freed block's hole is reused first, and two freed neighbours
 * hold a block as large as both. */
static void reuse(CLCONTEXT* cp) {
  const size_t mib = 1u << 20;
  for (size_t i = 0; i < 64; i++) {
    char* p = (char*)clmalloc(cp, mib, 0);
    expect("round", i, p != NULL, 1);
    if (p) p[0] = p[mib - 1] = (char)i;
    clfree(p);
  }
  char* a = (char*)clmalloc(cp, 8 * mib, 0);
  char* b = (char*)clmalloc(cp, 8 * mib, 0);
  char* c = (char*)clmalloc(cp, 8 * mib, 0);
  clfree(b);
  char* in_hole = (char*)clmalloc(cp, 4 * mib, 0);
  expect("block in the hole", 0, in_hole == b, 1);
  clfree(in_hole);
  clfree(a);
  char* joined = (char*)clmalloc(cp, 16 * mib, 0);
  expect("block over two freed ones", 0, joined == a, 1);
  clfree(joined);
  clfree(c);
  char* all = (char*)clmalloc(cp, 32 * mib - 64, 0);
  expect("everything freed", 0, all == a, 1);
  clfree(all);
}

static int errors(const char* what, const char* file) {
  CLCONTEXT* cp = stdacc;
  if (!strcmp(what, "missing-kernel")) {
    cl_kernel k = clsym(cp, 0, "nonexistent", 0);
    printf("clsym returned %s\n", k ? "a kernel" : "NULL");
    return k ? 0 : 3;
  }
  if (!strcmp(what, "missing-file")) clopen(cp, "no_such_kernels.cl", CLLD_NOW);
  if (!strcmp(what, "bad-kernel")) clopen(cp, file, CLLD_NOW);
  if (!strcmp(what, "bad-arg")) {
    const double scale = 4;
    clarg_set(cp, kernel(cp, "axpy"), 1, sizeof scale, &scale); /* a float argument */
  }
  if (!strcmp(what, "unset-arg")) {
    clndrange_t ndr = clndrange_init1d(0, 16, 16);
    cl_kernel k = kernel(cp, "axpy");
    clarg_set_global(cp, k, 2, 0);
    clfork(cp, 0, k, &ndr, CL_EVENT_WAIT);
  }
  printf("%s: no error\n", what);
  return 0;
}

int main(int argc, char** argv) {
  /* use the accelerator if there is one, as COPRTHR's examples do */
  CLCONTEXT* cp = stdacc ? stdacc : stdcpu;
  const char* what = argc > 1 ? argv[1] : "";
  const cl_uint n = argc > 2 ? (cl_uint)atoi(argv[2]) : 64;
  const size_t local = argc > 3 ? (size_t)atoi(argv[3]) : 16;
  if (!strcmp(what, "items") || !strcmp(what, "fork")) {
    axpy(cp, n, local, !strcmp(what, "fork"));
  } else if (!strcmp(what, "vectors")) {
    vectors(cp, n);
  } else if (!strcmp(what, "rotate")) {
    rotate(cp, n, local);
  } else if (!strcmp(what, "jit") && argc > 2) {
    jit(cp, argv[2]);
  } else if (!strcmp(what, "reuse")) {
    reuse(cp);
  } else if (!strcmp(what, "cpu")) {
    axpy(stdcpu, 1024, 16, 0);
    axpy(stdcpu, 64, 8, 1);
    vectors(stdcpu, 64);
    rotate(stdcpu, 64, 16);
  } else if (strstr(what, "missing") || strstr(what, "bad") || strstr(what, "unset")) {
    return errors(what, argc > 2 ? argv[2] : "");
  } else {
    fprintf(stderr,
            "usage: stdcl_host "
            "items|fork|vectors|rotate|jit|cpu|reuse|missing-kernel|missing-file|bad-kernel|bad-arg|unset-arg\n");
    return 2;
  }
  return report(what);
}
