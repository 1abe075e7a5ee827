/* A BG/Q SPI program with its own main(), as its author would write it for
 * the machine: per-rank statics (the receive buffer and the reception
 * counter are file-scope statics, one per node), a direct put of N doubles
 * to the next rank, a polling loop on the counter, arguments from argv, and
 * odd ranks that call exit(0) before the end (ending only themselves).
 * Prints one line per rank; the line is the same in every mode. Built with
 * -DBARE_SPIN (the bare_spin test), the polling loop has no hopsim hook:
 * hopsim-mpicc's pass makes it progress in a simulated run. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/InjFifo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopsim/bgq_kernel.h"

#define N 1024
static double sendbuf[N];
static double recvbuf[N];
static volatile uint64_t counter;
static int calls; /* per rank: how often this rank's copy ran fill() */

static void fill(int rank, double scale) {
  ++calls;
  for (int i = 0; i < N; ++i) sendbuf[i] = scale * (rank * 10000 + i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double scale = argc > 1 ? atof(argv[1]) : 1.0;
  fill(rank, scale);
  counter = sizeof recvbuf;

  MUSPI_InjFifoSubGroup_t sg;
  uint32_t ids[2] = {0, 1};
  Kernel_AllocateInjFifos(0, &sg, 1, ids, NULL);
  MUSPI_BaseAddressTableSubGroup_t bat;
  Kernel_AllocateBaseAddressTable(0, &bat, 2, ids, 0);
  MUSPI_SetBaseAddress(&bat, 0, (uint64_t)recvbuf);
  MUSPI_SetBaseAddress(&bat, 1, MUSPI_GetAtomicAddress((uint64_t)&counter, MUHWI_ATOMIC_OPCODE_STORE_ADD));
  MPI_Barrier(MPI_COMM_WORLD); /* every node's table is set */

  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  const uint32_t E = p.Network_Config.Enodes, D = p.Network_Config.Dnodes, C = p.Network_Config.Cnodes,
                 B = p.Network_Config.Bnodes;
  MUSPI_Pt2PtDirectPutDescriptorInfo_t info;
  memset(&info, 0, sizeof info);
  info.Base.Payload_Address = (uint64_t)sendbuf;
  info.Base.Message_Length = sizeof sendbuf;
  info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  MUSPI_SetUpDestination(&info.Base.Dest, to / (E * D * C * B), to / (E * D * C) % B, to / (E * D) % C, to / E % D,
                         to % E);
  info.DirectPut.Rec_Payload_Base_Address_Id = 0;
  info.DirectPut.Rec_Counter_Base_Address_Id = 1;
  MUHWI_Descriptor_t d;
  MUSPI_CreatePt2PtDirectPutDescriptor(&d, &info);
  const uint64_t t0 = GetTimeBase();
  MUSPI_InjFifoInject(MUSPI_IdToInjFifo(0, &sg), &d);
#ifdef BARE_SPIN
  while (counter > 0) {
  }
#else
  while (counter > 0) HOPSIM_SPIN_WAIT();
#endif
  const uint64_t t1 = GetTimeBase();

  int wrong = 0;
  double sum = 0;
  for (int i = 0; i < N; ++i) {
    wrong += recvbuf[i] != scale * (from * 10000 + i);
    sum += recvbuf[i];
  }
  MPI_Barrier(MPI_COMM_WORLD); /* nobody still writes into another's buffer */
  printf("rank %d of %d: from rank %d, %d wrong, sum %.17g, fill ran %d time(s)\n", rank, size, from, wrong, sum,
         calls);
  fflush(stdout);
  if (t1 <= t0) return 3;
  if (rank % 2 == 1) exit(wrong ? 4 : 0);
  MPI_Finalize();
  return wrong ? 4 : 0;
}
