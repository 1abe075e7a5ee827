/* hopsim's MPI for Blue Gene/Q programs: MPI over the messaging unit, as the
 * machine's own MPI (MPICH over PAMI) does it: point-to-point messages are
 * memory-FIFO packets (eager) or a request to send followed by a remote get
 * and an acknowledgement (rendezvous), matched by source, tag and
 * communicator in MPI's order; MPI_Barrier on MPI_COMM_WORLD is the GI
 * barrier. Derived datatypes are packed into a staging buffer unless their
 * data is contiguous; non-blocking collectives are schedules of
 * point-to-point messages. It runs on hopsim's BG/Q machine in every mode
 * (simulated: every packet is timed by the MU and torus model; native: the
 * MU's work is done by host copies). See docs/bgq.md, "MPI over the MU".
 * This is not Open MPI's mpi.h: BG/Q programs put this folder first on their
 * include path.
 *
 * A call outside what is declared here is a missing symbol at build time. */
#ifndef HOPSIM_BGQ_MPI_H
#define HOPSIM_BGQ_MPI_H

#include <stddef.h>

#define HOPSIM_BGQ_MPI 1

#ifdef __cplusplus
extern "C" {
#endif

/* The functions carry hopsim's own symbol names, so a program that also
 * links the real Open MPI (the hopsim executable does, for `hopsim sweep`
 * under mpirun) never has its MPI_* calls taken by this one. */
#define HOPSIM_BGQ_MPI_NAME(f) hopsim_bgq_##f
#define MPI_Init HOPSIM_BGQ_MPI_NAME(MPI_Init)
#define MPI_Init_thread HOPSIM_BGQ_MPI_NAME(MPI_Init_thread)
#define MPI_Initialized HOPSIM_BGQ_MPI_NAME(MPI_Initialized)
#define MPI_Finalize HOPSIM_BGQ_MPI_NAME(MPI_Finalize)
#define MPI_Finalized HOPSIM_BGQ_MPI_NAME(MPI_Finalized)
#define MPI_Abort HOPSIM_BGQ_MPI_NAME(MPI_Abort)
#define MPI_Query_thread HOPSIM_BGQ_MPI_NAME(MPI_Query_thread)
#define MPI_Is_thread_main HOPSIM_BGQ_MPI_NAME(MPI_Is_thread_main)
#define MPI_Comm_rank HOPSIM_BGQ_MPI_NAME(MPI_Comm_rank)
#define MPI_Comm_size HOPSIM_BGQ_MPI_NAME(MPI_Comm_size)
#define MPI_Comm_dup HOPSIM_BGQ_MPI_NAME(MPI_Comm_dup)
#define MPI_Comm_split HOPSIM_BGQ_MPI_NAME(MPI_Comm_split)
#define MPI_Comm_free HOPSIM_BGQ_MPI_NAME(MPI_Comm_free)
#define MPI_Comm_set_errhandler HOPSIM_BGQ_MPI_NAME(MPI_Comm_set_errhandler)
#define MPI_Error_string HOPSIM_BGQ_MPI_NAME(MPI_Error_string)
#define MPI_Error_class HOPSIM_BGQ_MPI_NAME(MPI_Error_class)
#define MPI_Cart_create HOPSIM_BGQ_MPI_NAME(MPI_Cart_create)
#define MPI_Cart_shift HOPSIM_BGQ_MPI_NAME(MPI_Cart_shift)
#define MPI_Cart_coords HOPSIM_BGQ_MPI_NAME(MPI_Cart_coords)
#define MPI_Cart_rank HOPSIM_BGQ_MPI_NAME(MPI_Cart_rank)
#define MPI_Cart_get HOPSIM_BGQ_MPI_NAME(MPI_Cart_get)
#define MPI_Dims_create HOPSIM_BGQ_MPI_NAME(MPI_Dims_create)
#define MPI_Get_processor_name HOPSIM_BGQ_MPI_NAME(MPI_Get_processor_name)
#define MPI_Wtime HOPSIM_BGQ_MPI_NAME(MPI_Wtime)
#define MPI_Wtick HOPSIM_BGQ_MPI_NAME(MPI_Wtick)
#define MPI_Type_size HOPSIM_BGQ_MPI_NAME(MPI_Type_size)
#define MPI_Get_count HOPSIM_BGQ_MPI_NAME(MPI_Get_count)
#define MPI_Get_elements HOPSIM_BGQ_MPI_NAME(MPI_Get_elements)
#define MPI_Get_address HOPSIM_BGQ_MPI_NAME(MPI_Get_address)
#define MPI_Type_contiguous HOPSIM_BGQ_MPI_NAME(MPI_Type_contiguous)
#define MPI_Type_vector HOPSIM_BGQ_MPI_NAME(MPI_Type_vector)
#define MPI_Type_create_hvector HOPSIM_BGQ_MPI_NAME(MPI_Type_create_hvector)
#define MPI_Type_indexed HOPSIM_BGQ_MPI_NAME(MPI_Type_indexed)
#define MPI_Type_create_indexed_block HOPSIM_BGQ_MPI_NAME(MPI_Type_create_indexed_block)
#define MPI_Type_create_struct HOPSIM_BGQ_MPI_NAME(MPI_Type_create_struct)
#define MPI_Type_create_resized HOPSIM_BGQ_MPI_NAME(MPI_Type_create_resized)
#define MPI_Type_commit HOPSIM_BGQ_MPI_NAME(MPI_Type_commit)
#define MPI_Type_free HOPSIM_BGQ_MPI_NAME(MPI_Type_free)
#define MPI_Type_get_extent HOPSIM_BGQ_MPI_NAME(MPI_Type_get_extent)
#define MPI_Send HOPSIM_BGQ_MPI_NAME(MPI_Send)
#define MPI_Ssend HOPSIM_BGQ_MPI_NAME(MPI_Ssend)
#define MPI_Recv HOPSIM_BGQ_MPI_NAME(MPI_Recv)
#define MPI_Sendrecv HOPSIM_BGQ_MPI_NAME(MPI_Sendrecv)
#define MPI_Isend HOPSIM_BGQ_MPI_NAME(MPI_Isend)
#define MPI_Issend HOPSIM_BGQ_MPI_NAME(MPI_Issend)
#define MPI_Irecv HOPSIM_BGQ_MPI_NAME(MPI_Irecv)
#define MPI_Wait HOPSIM_BGQ_MPI_NAME(MPI_Wait)
#define MPI_Waitall HOPSIM_BGQ_MPI_NAME(MPI_Waitall)
#define MPI_Waitany HOPSIM_BGQ_MPI_NAME(MPI_Waitany)
#define MPI_Test HOPSIM_BGQ_MPI_NAME(MPI_Test)
#define MPI_Testall HOPSIM_BGQ_MPI_NAME(MPI_Testall)
#define MPI_Testany HOPSIM_BGQ_MPI_NAME(MPI_Testany)
#define MPI_Testsome HOPSIM_BGQ_MPI_NAME(MPI_Testsome)
#define MPI_Waitsome HOPSIM_BGQ_MPI_NAME(MPI_Waitsome)
#define MPI_Iprobe HOPSIM_BGQ_MPI_NAME(MPI_Iprobe)
#define MPI_Probe HOPSIM_BGQ_MPI_NAME(MPI_Probe)
#define MPI_Improbe HOPSIM_BGQ_MPI_NAME(MPI_Improbe)
#define MPI_Isendrecv HOPSIM_BGQ_MPI_NAME(MPI_Isendrecv)
#define MPI_Isendrecv_replace HOPSIM_BGQ_MPI_NAME(MPI_Isendrecv_replace)
#define MPI_Mprobe HOPSIM_BGQ_MPI_NAME(MPI_Mprobe)
#define MPI_Mrecv HOPSIM_BGQ_MPI_NAME(MPI_Mrecv)
#define MPI_Imrecv HOPSIM_BGQ_MPI_NAME(MPI_Imrecv)
#define MPI_Barrier HOPSIM_BGQ_MPI_NAME(MPI_Barrier)
#define MPI_Bcast HOPSIM_BGQ_MPI_NAME(MPI_Bcast)
#define MPI_Reduce HOPSIM_BGQ_MPI_NAME(MPI_Reduce)
#define MPI_Allreduce HOPSIM_BGQ_MPI_NAME(MPI_Allreduce)
#define MPI_Gather HOPSIM_BGQ_MPI_NAME(MPI_Gather)
#define MPI_Scatter HOPSIM_BGQ_MPI_NAME(MPI_Scatter)
#define MPI_Allgather HOPSIM_BGQ_MPI_NAME(MPI_Allgather)
#define MPI_Alltoall HOPSIM_BGQ_MPI_NAME(MPI_Alltoall)
#define MPI_Gatherv HOPSIM_BGQ_MPI_NAME(MPI_Gatherv)
#define MPI_Scatterv HOPSIM_BGQ_MPI_NAME(MPI_Scatterv)
#define MPI_Allgatherv HOPSIM_BGQ_MPI_NAME(MPI_Allgatherv)
#define MPI_Alltoallv HOPSIM_BGQ_MPI_NAME(MPI_Alltoallv)
#define MPI_Scan HOPSIM_BGQ_MPI_NAME(MPI_Scan)
#define MPI_Exscan HOPSIM_BGQ_MPI_NAME(MPI_Exscan)
#define MPI_Reduce_scatter HOPSIM_BGQ_MPI_NAME(MPI_Reduce_scatter)
#define MPI_Reduce_scatter_block HOPSIM_BGQ_MPI_NAME(MPI_Reduce_scatter_block)
#define MPI_Op_create HOPSIM_BGQ_MPI_NAME(MPI_Op_create)
#define MPI_Reduce_local HOPSIM_BGQ_MPI_NAME(MPI_Reduce_local)
#define MPI_Rsend HOPSIM_BGQ_MPI_NAME(MPI_Rsend)
#define MPI_Irsend HOPSIM_BGQ_MPI_NAME(MPI_Irsend)
#define MPI_Request_get_status HOPSIM_BGQ_MPI_NAME(MPI_Request_get_status)
#define MPI_Op_free HOPSIM_BGQ_MPI_NAME(MPI_Op_free)
#define MPI_Ibarrier HOPSIM_BGQ_MPI_NAME(MPI_Ibarrier)
#define MPI_Ibcast HOPSIM_BGQ_MPI_NAME(MPI_Ibcast)
#define MPI_Ireduce HOPSIM_BGQ_MPI_NAME(MPI_Ireduce)
#define MPI_Iallreduce HOPSIM_BGQ_MPI_NAME(MPI_Iallreduce)
#define MPI_Igather HOPSIM_BGQ_MPI_NAME(MPI_Igather)
#define MPI_Iscatter HOPSIM_BGQ_MPI_NAME(MPI_Iscatter)
#define MPI_Iallgather HOPSIM_BGQ_MPI_NAME(MPI_Iallgather)
#define MPI_Ialltoall HOPSIM_BGQ_MPI_NAME(MPI_Ialltoall)
#define MPI_Comm_group HOPSIM_BGQ_MPI_NAME(MPI_Comm_group)
#define MPI_Comm_remote_group HOPSIM_BGQ_MPI_NAME(MPI_Comm_remote_group)
#define MPI_Group_size HOPSIM_BGQ_MPI_NAME(MPI_Group_size)
#define MPI_Group_rank HOPSIM_BGQ_MPI_NAME(MPI_Group_rank)
#define MPI_Group_translate_ranks HOPSIM_BGQ_MPI_NAME(MPI_Group_translate_ranks)
#define MPI_Group_compare HOPSIM_BGQ_MPI_NAME(MPI_Group_compare)
#define MPI_Group_incl HOPSIM_BGQ_MPI_NAME(MPI_Group_incl)
#define MPI_Group_excl HOPSIM_BGQ_MPI_NAME(MPI_Group_excl)
#define MPI_Group_range_incl HOPSIM_BGQ_MPI_NAME(MPI_Group_range_incl)
#define MPI_Group_range_excl HOPSIM_BGQ_MPI_NAME(MPI_Group_range_excl)
#define MPI_Group_union HOPSIM_BGQ_MPI_NAME(MPI_Group_union)
#define MPI_Group_intersection HOPSIM_BGQ_MPI_NAME(MPI_Group_intersection)
#define MPI_Group_difference HOPSIM_BGQ_MPI_NAME(MPI_Group_difference)
#define MPI_Group_free HOPSIM_BGQ_MPI_NAME(MPI_Group_free)
#define MPI_Comm_compare HOPSIM_BGQ_MPI_NAME(MPI_Comm_compare)
#define MPI_Comm_create HOPSIM_BGQ_MPI_NAME(MPI_Comm_create)
#define MPI_Comm_create_group HOPSIM_BGQ_MPI_NAME(MPI_Comm_create_group)
#define MPI_Intercomm_create HOPSIM_BGQ_MPI_NAME(MPI_Intercomm_create)
#define MPI_Intercomm_merge HOPSIM_BGQ_MPI_NAME(MPI_Intercomm_merge)
#define MPI_Comm_test_inter HOPSIM_BGQ_MPI_NAME(MPI_Comm_test_inter)
#define MPI_Comm_remote_size HOPSIM_BGQ_MPI_NAME(MPI_Comm_remote_size)
#define MPI_Comm_set_name HOPSIM_BGQ_MPI_NAME(MPI_Comm_set_name)
#define MPI_Comm_get_name HOPSIM_BGQ_MPI_NAME(MPI_Comm_get_name)
#define MPI_Send_init HOPSIM_BGQ_MPI_NAME(MPI_Send_init)
#define MPI_Ssend_init HOPSIM_BGQ_MPI_NAME(MPI_Ssend_init)
#define MPI_Rsend_init HOPSIM_BGQ_MPI_NAME(MPI_Rsend_init)
#define MPI_Bsend_init HOPSIM_BGQ_MPI_NAME(MPI_Bsend_init)
#define MPI_Recv_init HOPSIM_BGQ_MPI_NAME(MPI_Recv_init)
#define MPI_Start HOPSIM_BGQ_MPI_NAME(MPI_Start)
#define MPI_Startall HOPSIM_BGQ_MPI_NAME(MPI_Startall)
#define MPI_Request_free HOPSIM_BGQ_MPI_NAME(MPI_Request_free)
#define MPI_Cancel HOPSIM_BGQ_MPI_NAME(MPI_Cancel)
#define MPI_Test_cancelled HOPSIM_BGQ_MPI_NAME(MPI_Test_cancelled)
#define MPI_Buffer_attach HOPSIM_BGQ_MPI_NAME(MPI_Buffer_attach)
#define MPI_Buffer_detach HOPSIM_BGQ_MPI_NAME(MPI_Buffer_detach)
#define MPI_Bsend HOPSIM_BGQ_MPI_NAME(MPI_Bsend)
#define MPI_Ibsend HOPSIM_BGQ_MPI_NAME(MPI_Ibsend)
#define MPI_Barrier_init HOPSIM_BGQ_MPI_NAME(MPI_Barrier_init)
#define MPI_Bcast_init HOPSIM_BGQ_MPI_NAME(MPI_Bcast_init)
#define MPI_Reduce_init HOPSIM_BGQ_MPI_NAME(MPI_Reduce_init)
#define MPI_Allreduce_init HOPSIM_BGQ_MPI_NAME(MPI_Allreduce_init)
#define MPI_Gather_init HOPSIM_BGQ_MPI_NAME(MPI_Gather_init)
#define MPI_Scatter_init HOPSIM_BGQ_MPI_NAME(MPI_Scatter_init)
#define MPI_Allgather_init HOPSIM_BGQ_MPI_NAME(MPI_Allgather_init)
#define MPI_Alltoall_init HOPSIM_BGQ_MPI_NAME(MPI_Alltoall_init)
#define MPI_Info_create HOPSIM_BGQ_MPI_NAME(MPI_Info_create)
#define MPI_Info_set HOPSIM_BGQ_MPI_NAME(MPI_Info_set)
#define MPI_Info_get HOPSIM_BGQ_MPI_NAME(MPI_Info_get)
#define MPI_Info_get_valuelen HOPSIM_BGQ_MPI_NAME(MPI_Info_get_valuelen)
#define MPI_Info_get_nkeys HOPSIM_BGQ_MPI_NAME(MPI_Info_get_nkeys)
#define MPI_Info_get_nthkey HOPSIM_BGQ_MPI_NAME(MPI_Info_get_nthkey)
#define MPI_Info_delete HOPSIM_BGQ_MPI_NAME(MPI_Info_delete)
#define MPI_Info_dup HOPSIM_BGQ_MPI_NAME(MPI_Info_dup)
#define MPI_Info_free HOPSIM_BGQ_MPI_NAME(MPI_Info_free)
#define MPI_Sendrecv_replace HOPSIM_BGQ_MPI_NAME(MPI_Sendrecv_replace)
#define MPI_Pack_size HOPSIM_BGQ_MPI_NAME(MPI_Pack_size)
#define MPI_Pack HOPSIM_BGQ_MPI_NAME(MPI_Pack)
#define MPI_Unpack HOPSIM_BGQ_MPI_NAME(MPI_Unpack)
#define MPI_Type_dup HOPSIM_BGQ_MPI_NAME(MPI_Type_dup)
#define MPI_Type_get_true_extent HOPSIM_BGQ_MPI_NAME(MPI_Type_get_true_extent)
#define MPI_Type_create_hindexed HOPSIM_BGQ_MPI_NAME(MPI_Type_create_hindexed)
#define MPI_Type_create_subarray HOPSIM_BGQ_MPI_NAME(MPI_Type_create_subarray)
#define MPI_Comm_get_attr HOPSIM_BGQ_MPI_NAME(MPI_Comm_get_attr)
#define MPI_Get_version HOPSIM_BGQ_MPI_NAME(MPI_Get_version)
#define MPI_Get_library_version HOPSIM_BGQ_MPI_NAME(MPI_Get_library_version)
#define MPI_Alloc_mem HOPSIM_BGQ_MPI_NAME(MPI_Alloc_mem)
#define MPI_Free_mem HOPSIM_BGQ_MPI_NAME(MPI_Free_mem)
#define MPI_Op_commutative HOPSIM_BGQ_MPI_NAME(MPI_Op_commutative)
#define MPI_Comm_split_type HOPSIM_BGQ_MPI_NAME(MPI_Comm_split_type)
#define MPI_Comm_get_errhandler HOPSIM_BGQ_MPI_NAME(MPI_Comm_get_errhandler)
#define MPI_Errhandler_set HOPSIM_BGQ_MPI_NAME(MPI_Errhandler_set)
#define MPI_Errhandler_get HOPSIM_BGQ_MPI_NAME(MPI_Errhandler_get)
#define MPI_Errhandler_free HOPSIM_BGQ_MPI_NAME(MPI_Errhandler_free)
#define MPI_Igatherv HOPSIM_BGQ_MPI_NAME(MPI_Igatherv)
#define MPI_Iscatterv HOPSIM_BGQ_MPI_NAME(MPI_Iscatterv)
#define MPI_Iallgatherv HOPSIM_BGQ_MPI_NAME(MPI_Iallgatherv)
#define MPI_Ialltoallv HOPSIM_BGQ_MPI_NAME(MPI_Ialltoallv)
#define MPI_Gatherv_init HOPSIM_BGQ_MPI_NAME(MPI_Gatherv_init)
#define MPI_Scatterv_init HOPSIM_BGQ_MPI_NAME(MPI_Scatterv_init)
#define MPI_Allgatherv_init HOPSIM_BGQ_MPI_NAME(MPI_Allgatherv_init)
#define MPI_Alltoallv_init HOPSIM_BGQ_MPI_NAME(MPI_Alltoallv_init)
#define MPI_Status_set_elements HOPSIM_BGQ_MPI_NAME(MPI_Status_set_elements)
#define MPI_Status_set_cancelled HOPSIM_BGQ_MPI_NAME(MPI_Status_set_cancelled)
#define MPI_Iscan HOPSIM_BGQ_MPI_NAME(MPI_Iscan)
#define MPI_Iexscan HOPSIM_BGQ_MPI_NAME(MPI_Iexscan)
#define MPI_Ireduce_scatter_block HOPSIM_BGQ_MPI_NAME(MPI_Ireduce_scatter_block)
#define MPI_Ireduce_scatter HOPSIM_BGQ_MPI_NAME(MPI_Ireduce_scatter)
#define MPI_Ialltoallw HOPSIM_BGQ_MPI_NAME(MPI_Ialltoallw)
#define MPI_Alltoallw HOPSIM_BGQ_MPI_NAME(MPI_Alltoallw)
#define MPI_Scan_init HOPSIM_BGQ_MPI_NAME(MPI_Scan_init)
#define MPI_Exscan_init HOPSIM_BGQ_MPI_NAME(MPI_Exscan_init)
#define MPI_Reduce_scatter_block_init HOPSIM_BGQ_MPI_NAME(MPI_Reduce_scatter_block_init)
#define MPI_Reduce_scatter_init HOPSIM_BGQ_MPI_NAME(MPI_Reduce_scatter_init)

typedef int MPI_Comm;
/* A basic type: its size in bytes, with its kind (integer, unsigned, floating) above it; a derived type: a
 * handle of the rank that made it (from 0x10000). */
typedef int MPI_Datatype;
typedef ptrdiff_t MPI_Aint;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Message;
typedef struct {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int hopsim_bytes;     /* what arrived (MPI_Get_count) */
  int hopsim_cancelled; /* MPI_Test_cancelled */
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_INFO 18
#define MPI_ERR_INFO_KEY 19
#define MPI_ERR_INFO_VALUE 20
#define MPI_ERR_INFO_NOKEY 21
#define MPI_ERR_NO_MEM 22
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 13
#define MPI_ERR_ARG 12
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_LASTCODE 100
#define MPI_MAX_ERROR_STRING 256

#define MPI_COMM_WORLD 0
#define MPI_COMM_SELF 1
#define MPI_COMM_NULL (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ANY_SOURCE (-3)
#define MPI_ANY_TAG (-4)
/* The root of a collective on an intercommunicator, in the root's own group (the others there pass MPI_PROC_NULL). */
#define MPI_ROOT (-5)
#define MPI_UNDEFINED (-32766)
#define MPI_GROUP_NULL (-1)
#define MPI_GROUP_EMPTY 0
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
#define MPI_MAX_OBJECT_NAME 128
#define MPI_INFO_NULL (-1)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_COMM_TYPE_SHARED 1
#define MPI_ERRHANDLER_NULL 0
/* Predefined attribute keys (MPI_Comm_get_attr). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_APPNUM 0x6440000d
/* Bytes MPI_Bsend takes from the attached buffer beyond the message's own (MPI_Buffer_attach). */
#define MPI_BSEND_OVERHEAD 64
#define MPI_TAG_UB_VALUE 0x3fffffff
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_REQUEST_NULL (-1)
#define MPI_MESSAGE_NULL (-1)
/* The message a matched probe of MPI_PROC_NULL returns: receiving it completes at once, empty. */
#define MPI_MESSAGE_NO_PROC (-2)
#define MPI_IN_PLACE ((void*)-1)
/* Address 0: a buffer whose datatype holds absolute addresses (from MPI_Get_address). */
#define MPI_BOTTOM ((void*)0)
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

#define MPI_DATATYPE_NULL 0
#define MPI_BYTE 0x001
#define MPI_PACKED 0x001
#define MPI_CHAR 0x101
#define MPI_SIGNED_CHAR 0x101
#define MPI_UNSIGNED_CHAR 0x201
#define MPI_SHORT 0x102
#define MPI_UNSIGNED_SHORT 0x202
#define MPI_INT 0x104
#define MPI_UNSIGNED 0x204
#define MPI_LONG 0x108
#define MPI_UNSIGNED_LONG 0x208
#define MPI_LONG_LONG 0x108
#define MPI_LONG_LONG_INT 0x108
#define MPI_UNSIGNED_LONG_LONG 0x208
#define MPI_INT8_T 0x101
#define MPI_INT16_T 0x102
#define MPI_INT32_T 0x104
#define MPI_INT64_T 0x108
#define MPI_UINT8_T 0x201
#define MPI_UINT16_T 0x202
#define MPI_UINT32_T 0x204
#define MPI_UINT64_T 0x208
#define MPI_FLOAT 0x304
#define MPI_DOUBLE 0x308
/* Complex types (kind 5): the real then the imaginary part, as C's float/double _Complex; MPI_SUM and MPI_PROD
 * (and user ops) reduce them. The Fortran and C++ names are the same types. */
#define MPI_C_FLOAT_COMPLEX 0x508
#define MPI_C_COMPLEX 0x508
#define MPI_C_DOUBLE_COMPLEX 0x510
#define MPI_COMPLEX 0x508
#define MPI_DOUBLE_COMPLEX 0x510
#define MPI_CXX_FLOAT_COMPLEX 0x508
#define MPI_CXX_DOUBLE_COMPLEX 0x510

/* The pair types of MPI_MAXLOC/MPI_MINLOC (kind 4): a value and an int, laid out as the C struct. */
#define MPI_2INT 0x401
#define MPI_FLOAT_INT 0x402
#define MPI_DOUBLE_INT 0x403
#define MPI_LONG_INT 0x404
#define MPI_SHORT_INT 0x405
#define MPI_OP_NULL 0
#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MAXLOC 11
#define MPI_MINLOC 12

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

int MPI_Init(int* argc, char*** argv);
/* Provides the level required, up to MPI_THREAD_MULTIPLE: the threads a rank
 * makes with pthread_create are threads of that rank (simulated: fibers with
 * their own clocks), and under MPI_THREAD_MULTIPLE each call takes the rank's
 * MPI lock (parameter mpi_lock_cycles). */
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalize(void);
int MPI_Finalized(int* flag);
/* Stops the run with the rank, the communicator and the code (exit 3). */
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int* provided);
int MPI_Is_thread_main(int* flag);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out);
int MPI_Comm_free(MPI_Comm* comm);
/* MPI_ERRORS_ARE_FATAL (the default: the run stops naming the rank, the call and the error) or MPI_ERRORS_RETURN. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler handler);
int MPI_Error_string(int errorcode, char* string, int* resultlen);
/* The class of a code this MPI returned: the code itself (every code is a class). */
int MPI_Error_class(int errorcode, int* errorclass);
int MPI_Cart_create(MPI_Comm old, int ndims, const int* dims, const int* periods, int reorder, MPI_Comm* cart);
int MPI_Cart_shift(MPI_Comm cart, int direction, int disp, int* source, int* dest);
int MPI_Cart_coords(MPI_Comm cart, int rank, int maxdims, int* coords);
int MPI_Cart_rank(MPI_Comm cart, const int* coords, int* rank);
int MPI_Cart_get(MPI_Comm cart, int maxdims, int* dims, int* periods, int* coords);
/* Balanced factors of nnodes for the dims that are 0, in non-increasing order (MPI 4.0, 7.5.2). */
int MPI_Dims_create(int nnodes, int ndims, int* dims);
/* "bgq-node-R (A,B,C,D,E)": the same in every mode. */
int MPI_Get_processor_name(char* name, int* resultlen);
/* Seconds of the rank's clock (simulated: model time; native: host time). */
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Type_size(MPI_Datatype type, int* size);
/* Whole elements of `type` that arrived, or MPI_UNDEFINED when the bytes are not a whole number of them. */
int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count);
/* Basic elements that arrived (a partial last element of `type` counts its whole basic elements). */
int MPI_Get_elements(const MPI_Status* status, MPI_Datatype type, int* count);
int MPI_Get_address(const void* location, MPI_Aint* address);

/* Derived datatypes (MPI 4.0, 5.1). A type is usable in communication once committed; a derived type's data
 * is packed into a contiguous buffer before it is sent and unpacked after it arrives (a type whose data is
 * contiguous is sent from and received into the user's buffer). Reductions take predefined types only. */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype);
/* The extent is rounded up to the strictest alignment of the basic types in it (as a C struct is), unless a
 * member type has bounds set by MPI_Type_create_resized. */
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype);
int MPI_Type_commit(MPI_Datatype* type);
/* Sets *type to MPI_DATATYPE_NULL; communication already started with the type completes. */
int MPI_Type_free(MPI_Datatype* type);
int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent);

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status);
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request);
/* Ready sends are standard sends (the standard allows it). */
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request);
/* Whether the request is done, with its status, leaving it for a wait or test. */
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status);
int MPI_Wait(MPI_Request* request, MPI_Status* status);
int MPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses);
int MPI_Waitany(int count, MPI_Request* requests, int* index, MPI_Status* status);
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status);
int MPI_Testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses);
/* *flag 1 with *index MPI_UNDEFINED when no request is active (MPI 4.0, 3.7.5). */
int MPI_Testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status);
/* *outcount MPI_UNDEFINED when no request is active. */
int MPI_Testsome(int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses);
int MPI_Waitsome(int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
/* Matched probes (MPI 4.0, 3.8.2): the message found leaves the matching queue, so no other receive can take
 * it; MPI_Mrecv/MPI_Imrecv receive exactly that message (and set *message to MPI_MESSAGE_NULL). */
/* MPI 4.1: a send and a receive in one request; its status is the receive's. _replace: the buffer's data is
 * copied when the call is made. */
int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Request* request);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status);
int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status);
int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request);

/* MPI_Barrier on MPI_COMM_WORLD is the GI barrier; on other communicators, a dissemination barrier. The
 * other collectives are binomial trees (Bcast, Reduce; Allreduce = Reduce + Bcast) and pairwise exchanges
 * of point-to-point messages, on a context of their own. */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
/* The v-collectives: Gatherv and Scatterv linear at the root, Allgatherv and Alltoallv pairwise exchanges. */
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
/* Prefix reductions: a chain of point-to-point messages in rank order (Exscan leaves rank 0's recvbuf as it is). */
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
/* A reduction at rank 0, then its blocks scattered (Scatterv). */
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm);
/* User ops (MPI 4.0, 6.9.5) on predefined types. An op made with commute = 0 combines in rank order: MPI_Reduce
 * to a root other than 0 reduces at rank 0 and sends the result on; MPI_Ireduce refuses it (MPI_ERR_OP). */
typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op);
int MPI_Op_free(MPI_Op* op);
/* inoutbuf = inbuf op inoutbuf on the calling rank alone. */
int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype type, MPI_Op op);

/* Non-blocking collectives: each is a schedule of rounds of point-to-point messages (the trees and exchanges
 * of the blocking calls, on every communicator, MPI_COMM_WORLD included) that MPI's progress engine advances
 * whenever the rank is in an MPI call; MPI_Test/Wait/Waitall/Waitany complete the request. */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request);
int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* request);
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);

/* Groups (MPI 4.0, 7.3): ordered sets of processes; MPI_Comm_group of an intercommunicator is its local group. */
int MPI_Comm_group(MPI_Comm comm, MPI_Group* group);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group);
int MPI_Group_size(MPI_Group group, int* size);
/* MPI_UNDEFINED when the calling rank is not in the group. */
int MPI_Group_rank(MPI_Group group, int* rank);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_free(MPI_Group* group);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result);
/* Collective over comm (an intracommunicator); the ranks outside the group get MPI_COMM_NULL. */
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
/* Collective over the group's members only; tag tells concurrent calls apart. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm);
/* Intercommunicators (MPI 4.0, 7.6): point-to-point messages name ranks of the remote group; MPI_Comm_dup,
 * MPI_Comm_split and MPI_Comm_create make intercommunicators of them; the blocking Barrier, Bcast, Reduce,
 * Allreduce, Gather(v), Scatter(v), Allgather(v) and Alltoall(v) run between the groups (MPI_ROOT in the root's
 * group); the other collectives are refused (MPI_ERR_COMM). */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm* newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm);
int MPI_Comm_test_inter(MPI_Comm comm, int* flag);
int MPI_Comm_remote_size(MPI_Comm comm, int* size);
int MPI_Comm_set_name(MPI_Comm comm, const char* name);
int MPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen);
/* Persistent requests (MPI 4.0, 3.9): MPI_Start begins the operation its arguments describe; a wait or test
 * completes it and leaves the request inactive, to be started again or freed with MPI_Request_free. */
int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request);
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request);
int MPI_Start(MPI_Request* request);
int MPI_Startall(int count, MPI_Request requests[]);
/* An active request is left to complete on its own (a receive still takes its message); MPI_Finalize
 * completes it. */
int MPI_Request_free(MPI_Request* request);
/* A receive is cancelled if no message has matched it yet; a send if its message still waits unmatched at
 * the receiver (asked and answered by control packets; the request completes with the answer). */
int MPI_Cancel(MPI_Request* request);
int MPI_Test_cancelled(const MPI_Status* status, int* flag);
/* Buffered sends (MPI 4.0, 3.6): the message is copied when the call is made and the call returns; each
 * takes its bytes plus MPI_BSEND_OVERHEAD of the attached buffer until it is sent (MPI_ERR_BUFFER when
 * they do not fit). MPI_Buffer_detach waits until every buffered message has gone. */
int MPI_Buffer_attach(void* buffer, int size);
int MPI_Buffer_detach(void* buffer_addr, int* size);
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request);
/* Persistent collectives (MPI 4.0, 6.13): MPI_Start begins the non-blocking collective with these arguments
 * (MPI_Ibarrier, MPI_Ibcast, ...); the ranks match them in the order of the init calls, whatever the order
 * of the starts; the info is checked and otherwise unused. */
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request* request);
int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request);
int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request);
/* Info objects (MPI 4.0, 10): (key, value) strings, kept in the order they were set; hopsim's calls take
 * MPI_INFO_NULL or any info and use none of its keys. */
int MPI_Info_create(MPI_Info* info);
int MPI_Info_set(MPI_Info info, const char* key, const char* value);
int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag);
int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag);
int MPI_Info_get_nkeys(MPI_Info info, int* nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char* key);
int MPI_Info_delete(MPI_Info info, const char* key);
int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo);
int MPI_Info_free(MPI_Info* info);
/* The send goes from a copy, so the receive may land in the same buffer. */
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status);
/* The packed form is the data in typemap order, as a message of the type carries it (MPI_PACKED is MPI_BYTE). */
int MPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int* size);
int MPI_Pack(const void* inbuf, int incount, MPI_Datatype type, void* outbuf, int outsize, int* position,
             MPI_Comm comm);
int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype type,
               MPI_Comm comm);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint* true_lb, MPI_Aint* true_extent);
int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype);
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                             MPI_Datatype oldtype, MPI_Datatype* newtype);
/* The predefined keys only: MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL (0), MPI_UNIVERSE_SIZE (the
 * ranks), MPI_APPNUM (0); any other key: *flag 0. */
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag);
int MPI_Get_version(int* version, int* subversion);
int MPI_Get_library_version(char* version, int* resultlen);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr);
int MPI_Free_mem(void* base);
int MPI_Op_commutative(MPI_Op op, int* commute);
/* Every rank has a node of its own: MPI_COMM_TYPE_SHARED gives each rank a communicator of itself alone. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler);
/* MPI 1's names of the two calls above (removed in MPI 3, still in older programs). */
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler handler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler);
int MPI_Errhandler_free(MPI_Errhandler* errhandler);
/* The non-blocking v-collectives: one round each (linear at the root; pairwise); in place as the blocking
 * calls. */
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request);
int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request);
int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request);
int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype type, int count);
int MPI_Status_set_cancelled(MPI_Status* status, int flag);
/* The non-blocking scans (the chain of MPI_Scan as rounds) and reduce-scatters (the reduction at rank 0 as
 * rounds, then a round scattering the blocks), and their persistent forms. */
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request);
int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request);
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request);
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request* request);
int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request* request);
int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request);
int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request* request);
/* A type per peer and displacements in bytes: one round of pairwise blocks (in place too). */
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm);
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request* request);
#ifdef __cplusplus
}
#endif

#endif
