/* hopsim's MPI subset for Blue Gene/Q kernels: just what the BG/Q SPI
 * programs use to set themselves up (MPI_Init, MPI_Comm_rank/size,
 * MPI_Cart_create, MPI_Cart_shift, MPI_Cart_coords, MPI_Sendrecv,
 * MPI_Isend/Irecv/Wait/Waitall, MPI_Barrier, MPI_Finalize), over hopsim's BG/Q machine. This is not Open
 * MPI's mpi.h: kernels/bgq put this folder first on their include path. */
#ifndef HOPSIM_BGQ_MPI_H
#define HOPSIM_BGQ_MPI_H

#include <stddef.h>

#define HOPSIM_BGQ_MPI_SUBSET 1

#ifdef __cplusplus
extern "C" {
#endif

/* The functions carry hopsim's own symbol names, so a program that also
 * links the real Open MPI (the hopsim executable does, for `hopsim sweep`
 * under mpirun) never has its MPI_* calls taken by this subset. */
#define MPI_Init hopsim_bgq_MPI_Init
#define MPI_Finalize hopsim_bgq_MPI_Finalize
#define MPI_Comm_rank hopsim_bgq_MPI_Comm_rank
#define MPI_Comm_size hopsim_bgq_MPI_Comm_size
#define MPI_Cart_create hopsim_bgq_MPI_Cart_create
#define MPI_Cart_shift hopsim_bgq_MPI_Cart_shift
#define MPI_Cart_coords hopsim_bgq_MPI_Cart_coords
#define MPI_Sendrecv hopsim_bgq_MPI_Sendrecv
#define MPI_Barrier hopsim_bgq_MPI_Barrier
#define MPI_Init_thread hopsim_bgq_MPI_Init_thread
#define MPI_Dims_create hopsim_bgq_MPI_Dims_create
#define MPI_Get_processor_name hopsim_bgq_MPI_Get_processor_name
#define MPI_Wtime hopsim_bgq_MPI_Wtime
#define MPI_Isend hopsim_bgq_MPI_Isend
#define MPI_Irecv hopsim_bgq_MPI_Irecv
#define MPI_Wait hopsim_bgq_MPI_Wait
#define MPI_Waitall hopsim_bgq_MPI_Waitall

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Request; /* an index into the rank's pending receives; sends are done at once */
typedef struct {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_ERR_ARG 12
#define MPI_COMM_WORLD 0
#define MPI_COMM_NULL (-1)
#define MPI_PROC_NULL (-2)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_REQUEST_NULL (-1)
#define MPI_BYTE 1
#define MPI_CHAR 1
#define MPI_INT 4
#define MPI_UNSIGNED 4
#define MPI_LONG 8
#define MPI_UNSIGNED_LONG 8
#define MPI_UNSIGNED_LONG_LONG 8
#define MPI_DOUBLE 8
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

int MPI_Init(int* argc, char*** argv);
int MPI_Finalize(void);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Cart_create(MPI_Comm old, int ndims, const int* dims, const int* periods, int reorder, MPI_Comm* cart);
int MPI_Cart_shift(MPI_Comm cart, int direction, int disp, int* source, int* dest);
int MPI_Cart_coords(MPI_Comm cart, int rank, int maxdims, int* coords);
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int MPI_Barrier(MPI_Comm comm);
/* Provides MPI_THREAD_FUNNELED at most (only the rank's own thread may call the SPI and MPI). */
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
/* Balanced factors of nnodes for the dims that are 0, in non-increasing order (MPI 4.0, 7.5.2). */
int MPI_Dims_create(int nnodes, int ndims, int* dims);
/* "bgq-node-R (A,B,C,D,E)": the same in every mode. */
int MPI_Get_processor_name(char* name, int* resultlen);
/* Non-blocking point to point, over the same messages as MPI_Sendrecv: a send is buffered at once (its
 * request is complete), a receive is matched by source and tag when it is waited for. */
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request);
int MPI_Wait(MPI_Request* request, MPI_Status* status);
int MPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses);
/* Seconds of the rank's clock (simulated: model time; native: host time). */
double MPI_Wtime(void);

#ifdef __cplusplus
}
#endif

#endif
