#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <stdatomic.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static _Alignas(64) atomic_long flag; static _Alignas(64) atomic_long mode; static _Alignas(64) atomic_long go;
static char *slot,*src,*dst; static size_t S=65536;
static void pin(int c){cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(c,&cs);pthread_setaffinity_np(pthread_self(),sizeof cs,&cs);}
static void* th(void*a){pin(1);long i=0;for(;;){long f; while(((f=atomic_load_explicit(&flag,memory_order_acquire))&1)==0) if(atomic_load(&go)<0) return 0;
   if(atomic_load(&mode)==1) memcpy(dst,slot,S);   // copy out
   atomic_store_explicit(&flag,f+1,memory_order_release);}}
int main(int argc,char**argv){int N=argc>1?atoi(argv[1]):60;
 slot=aligned_alloc(4096,S);src=aligned_alloc(4096,S);dst=aligned_alloc(4096,S);memset(slot,1,S);memset(src,2,S);memset(dst,3,S);
 pthread_t t;pin(0);pthread_create(&t,0,th,0);long f=0;
 for(int k=0;k<N;k++){
   atomic_store(&mode,0); double s=now(); int n=0; double best=1e9;
   while(now()-s<0.01){double b=now(); for(int j=0;j<50;j++){f++;atomic_store_explicit(&flag,f,memory_order_release);while(atomic_load_explicit(&flag,memory_order_acquire)!=f+1);f++;} double e=(now()-b)/100*1e9; if(e<best)best=e;n++;}
   double lat=(now()-s)/(n*100)*1e9;
   atomic_store(&mode,1); s=now(); long bytes=0;
   while(now()-s<0.02){memcpy(slot,src,S); f++;atomic_store_explicit(&flag,f,memory_order_release);while(atomic_load_explicit(&flag,memory_order_acquire)!=f+1);f++;bytes+=S;}
   double bw=bytes/(now()-s)/1e9;
   printf("%5.1f ms: handover mean %4.0f best %4.0f ns   copy-in+out 64KiB %5.2f GB/s\n",k*30.0,lat,best,bw);}
 atomic_store(&go,-1); return 0;}
