# Blue Gene/Q end to end (included from tests/cli/CMakeLists.txt).
get_filename_component(CLI_BGQ_HALO ${CMAKE_CURRENT_SOURCE_DIR}/../../kernels/bgq/halo.json ABSOLUTE)
get_filename_component(CLI_BGQ_PINGPONG ${CMAKE_CURRENT_SOURCE_DIR}/../../kernels/bgq/pingpong.json ABSOLUTE)

cli_test(bgq_halo_both HAS "identical data on every rank" "communication only" LACKS "WRONG"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.args.iterations=1 --set kernel.args.msg_size=8192 --out run)
cli_test(bgq_pingpong HAS "round trip" "identical data on every rank"
  CMD ${HOPSIM} run ${CLI_BGQ_PINGPONG} --mode both --set kernel.args.iterations=3 --out run)
cli_test(bgq_unknown_param RC 2 HAS "torus_f"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set machine.torus_f=2 --out run)
cli_test(bgq_bad_torus_e RC 2 HAS "torus_e"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set machine.torus_e=3 --out run)
cli_test(bgq_bad_package RC 3 HAS "not a whole number of 3000-byte packages"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set kernel.args.package=3000 --out run)
cli_test(bgq_epiphany_kernel RC 2 HAS "not a bgq kernel"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set kernel.name=\"passing\" --out run)
cli_test(bgq_sweep HAS "package sweep" "GB/s/node"
  CMD ${HOPSIM} bgq sweep --scenario ${CLI_BGQ_HALO} --packages 1024,8192 --set kernel.args.iterations=1 --csv sweep.csv)
cli_test(bgq_sweep_bad_packages RC 2 HAS "hopsim: error: --packages: expected integers, got 'abc' (try --help)"
  CMD ${HOPSIM} bgq sweep --packages abc)
cli_test(bgq_scale HAS "packet-hops/s" "4x4x2x2x2"
  CMD ${HOPSIM} bgq scale --tori 2x2x2x2x2,4x4x2x2x2 --iterations 2)
cli_test(bgq_scale_e_extent RC 2 HAS "--tori: '2x2x2x2x3': E is 1 or 2 on a BG/Q" LACKS "packet-hops/s"
  CMD ${HOPSIM} bgq scale --tori 2x2x2x2x3)
cli_test(bgq_scale_six_extents RC 2 HAS "--tori: '2x2x2x2x2x2' is not AxBxCxDxE (five positive integers)"
  LACKS "packet-hops/s" CMD ${HOPSIM} bgq scale --tori 2x2x2x2x2x2)
cli_test(bgq_scale_msg_negative RC 2 HAS "--msg: '-1' is not a number >= 1" LACKS "18446744073709551615"
  CMD ${HOPSIM} bgq scale --msg -1)
cli_test(bgq_scale_progress HAS "bgq scale: torus 1/2 2x2x2x2x2, " "ETA" "bgq scale: torus 2/2 4x2x2x2x2, "
  CMD ${HOPSIM} bgq scale --tori 2x2x2x2x2,4x2x2x2x2 --iterations 1 --progress lines)
cli_test(bgq_scale_flow_control RC 2 HAS "bgq-flow.json: torus_flow_control=1: bgq scale times the link-calendar torus"
  LACKS "scale benchmark:"
  CMD env HOPSIM_PRESET_PATH=${CLI_DATA}/presets ${HOPSIM} bgq scale --machine bgq-flow --tori 2x2x2x2x2 --iterations 1)
cli_test(bgq_scale_bad_torus RC 2 HAS "is not AxBxCxDxE"
  CMD ${HOPSIM} bgq scale --tori 2x2x2)
cli_test(bgq_gibarrier HAS "gi barrier" "identical data on every rank" LACKS "WRONG"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.name=\"gibarrier\" --set "kernel.args={\"iterations\":5}"
      --out run)
# A torus too big for the memory a run may use is refused before it is built.
cli_test(bgq_too_big_for_limit RC 2
  HAS "machine.torus_a..torus_e: a 16x8x8x8x2 torus needs about 0.25 GiB (16384 ranks of at least 16 KiB each, before the program's own memory), more than the 0.0977 GiB HOPSIM_MEMORY_LIMIT allows"
  CMD env HOPSIM_MEMORY_LIMIT=100MiB ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set machine.torus_a=16 --set machine.torus_b=8
      --set machine.torus_c=8 --set machine.torus_d=8 --out run)
cli_test(bgq_arg_out_of_range RC 2 HAS "kernel.args.threads: 65 is out of range [1, 64]"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set kernel.args.threads=65 --out run)
cli_test(bgq_arg_wrong_type RC 2 HAS "kernel.args.threads: expected an integer, got"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set kernel.args.threads=\"four\" --out run)
cli_test(bgq_param_wrong_type RC 2 HAS "machine.torus_a: 'x' is not a quantity"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set machine.torus_a=\"x\" --out run)
cli_test(bgq_list_params HAS "mu_rx_bandwidth" "calibrated"
  CMD ${HOPSIM} list params bgq)
add_test(NAME cli.bgq_validate COMMAND bash ${CLI_DIR}/bgq_validate.sh ${HOPSIM} ${CLI_BGQ_HALO} ${CLI_WORK}/bgq_validate
  ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.bgq_validate PROPERTIES TIMEOUT 120 LABELS cli)
cli_test(bgq_trace HAS "trace: " "identical data" LACKS "WRONG"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.args.iterations=1 --set kernel.args.msg_size=4096 --trace halo.db --out run)
# Native runs with a process per rank over a host copy transport (machine.transport).
cli_test(bgq_halo_cma HAS "identical data on every rank" "a process each, data moved by cma" LACKS "WRONG" "FALLBACK"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.args.iterations=1 --set kernel.args.msg_size=8192
      --set machine.transport=cma --out run)
cli_test(bgq_halo_double HAS "identical data on every rank" "a process each, data moved by double" LACKS "WRONG"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.args.iterations=1 --set kernel.args.msg_size=8192
      --set machine.transport=double --out run)
cli_test(bgq_halo_cma_refused HAS "identical data on every rank" "FALLBACK: cma requested" "CMA refused"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set kernel.args.iterations=1 --set kernel.args.msg_size=4096
      --set machine.transport=cma --set machine.deny_cma=true --out run)
cli_test(bgq_bad_transport RC 2 HAS "machine.transport: unknown transport 'shm' (expected threads, double or cma)"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode native --set machine.transport=shm --out run)
cli_test(bgq_zero_transport RC 2 HAS "machine.transport: zero copy cannot carry BG/Q direct puts"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode native --set machine.transport=zero --out run)
cli_test(compare.bgq_cma HAS "hopsim compare | kernel halo" "data: identical in both modes"
  CMD ${HOPSIM} compare ${CLI_BGQ_HALO} --set kernel.args.iterations=1 --set kernel.args.msg_size=4096
      --set machine.transport=cma --out run)
# Programs with their own main() (tests/bgq/programs, built by hopsim-mpicc).
set(CLI_BGQ_PROGS ${CMAKE_BINARY_DIR}/tests/bgq/programs)
cli_test(bgq_exec_own_main HAS "printed the same 32 lines" "rank 5 of 32: from rank 4, 0 wrong" "fill ran 1 time(s)"
  LACKS "DIFFERENT" "failed"
  CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/own_main 2)
cli_test(bgq_exec_own_main_cma HAS "printed the same 64 lines" "rank 63 of 64: from rank 62, 0 wrong"
  CMD ${HOPSIM} bgq exec --torus 4x2x2x2x2 --transport cma --out exec ${CLI_BGQ_PROGS}/own_main 2)
cli_test(bgq_exec_exit_status RC 3 HAS "sim run failed (exit 7)" "native run failed (exit 7)"
  "hopsim: rank 3 ended with status 7"
  CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/exit_status)
cli_test(bgq_exec_missing RC 2 HAS "no-such-program: no such program"
  CMD ${HOPSIM} bgq exec ./no-such-program)
cli_test(bgq_exec_not_bgq RC 2 HAS "not a BG/Q program (build it with hopsim-mpicc" LACKS "[native]"
  CMD ${HOPSIM} bgq exec /bin/true)
cli_test(bgq_exec_not_executable RC 2 HAS "not a BG/Q program" CMD ${HOPSIM} bgq exec ${CMAKE_CURRENT_SOURCE_DIR}/bgq.cmake)
# The machine is resolved before --out is touched: an unknown preset, another family's, a torus over the limit.
cli_test(bgq_exec_unknown_machine RC 2 HAS "--machine: unknown machine preset 'nope'" LACKS "[native]"
  CMD ${HOPSIM} bgq exec --machine nope --out exec ${CLI_BGQ_PROGS}/own_main 2)
cli_test(bgq_exec_other_family RC 2 HAS "--machine: e16g301 is a epiphany machine, not a bgq one" LACKS "[native]"
  CMD ${HOPSIM} bgq exec --machine e16g301 --out exec ${CLI_BGQ_PROGS}/own_main 2)
cli_test(bgq_exec_bad_torus RC 2 HAS "--torus: expected AxBxCxDxE"
  CMD ${HOPSIM} bgq exec --torus 2x2x2 ${CLI_BGQ_PROGS}/own_main)
cli_test(bgq_program_both_refused RC 2 HAS "HOPSIM_MODE: sim or native"
  CMD env HOPSIM_MODE=both ${CLI_BGQ_PROGS}/own_main)
# --help prints the leading comment, to its last sentence, and none of the script.
cli_test(bgq_mpicc_help HAS "hopsim-mpicc" "-c compiles" "driver's paths (spi/include/..., hwi/include/..., mpi.h)."
  LACKS "set -eu" "CC=" CMD ${HOPSIM_BGQ_TREE}/bin/hopsim-mpicc --help)
cli_test(bgq_mpicc_unknown_option RC 2 HAS "hopsim-mpicc: unknown option --frob (see hopsim-mpicc --help)"
  CMD ${HOPSIM_BGQ_TREE}/bin/hopsim-mpicc --frob x.c)
cli_test(bgq_mpicc_no_input RC 2 HAS "hopsim-mpicc: no input files" CMD ${HOPSIM_BGQ_TREE}/bin/hopsim-mpicc -c -O2)
cli_test(bgq_exec_bare_spin HAS "printed the same 32 lines" "rank 7 of 32: from rank 6, 0 wrong" LACKS "DIFFERENT" "failed"
  TIMEOUT 60 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/bare_spin 2)
cli_test(bgq_exec_mpi_setup HAS "printed the same 39 lines" "provided 3, 1 process(es) per node"
  "dims_create(32, 4): rc 0 -> 4 2 2 2" "dims_create(12, 3): rc 0 -> 3 2 2" "dims_create(36, 3): rc 0 -> 4 3 3"
  "dims_create(12, 2) with 5 fixed: rc 12"
  "rank 31 on bgq-node-31 (1,1,1,1,1) (23 chars): delay ok, wtime ok, sum 15984000, ring ok" LACKS "SHORT" "BACKWARDS"
  "WRONG"
  CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/mpi_setup)
# Collectives on the MU (tests/bgq/programs/collective.c): allreduce by
# direct put and into a reception FIFO on the comm-world class route, an
# allreduce on a route the program sets, a broadcast; both modes.
cli_test(bgq_exec_collective HAS "printed the same 32 lines"
  "rank 0 of 32: allreduce add 0 wrong, fifo max 0 wrong, route 1 min right, broadcast 0 wrong"
  "rank 31 of 32: allreduce add 0 wrong, fifo max 0 wrong, route 1 not a member, broadcast 0 wrong"
  LACKS "DIFFERENT" "failed" "WRONG"
  TIMEOUT 120 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/collective)
cli_test(bgq_exec_collective_full_fifo HAS "printed the same 32 lines"
  "rank 0 of 32: allreduce add 0 wrong, fifo max 0 wrong, route 1 min right, broadcast 0 wrong"
  LACKS "DIFFERENT" "failed" "WRONG"
  TIMEOUT 120 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/collective 4)
cli_test(bgq_exec_collective_unset_route RC 3 HAS "collective on class route 5, which this node has not set"
  "sim run failed" "native run failed"
  TIMEOUT 60 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/collective 1)
cli_test(bgq_exec_collective_mismatch RC 3 HAS "class route 0, collective 0: node 0 injected an allreduce of 16 bytes"
  "an allreduce of 8 bytes" "sim run failed" "native run failed"
  TIMEOUT 60 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/collective 2)
cli_test(bgq_exec_collective_bad_route RC 3 HAS "Kernel_SetCollectiveClassRoute returned 1"
  TIMEOUT 60 CMD ${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/collective 3)
cli_test(bgq_exec_collective_processes RC 3 HAS "collective descriptors run in simulation and natively on machine.transport=threads"
  TIMEOUT 60 CMD ${HOPSIM} bgq exec --mode native --transport double --out exec ${CLI_BGQ_PROGS}/collective)

# A rank that crashes (tests/bgq/programs/crash.c: rank 5 stores through a
# null pointer, aborts or overflows its stack while the others wait in a
# barrier): one line naming the rank and the signal, exit 128 + the signal,
# no other rank passes the barrier, no core file. Ranks on host threads
# (native), in fibers (sim) and in processes of their own (machine.transport).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bgq-double.json "{\"machine\": {\"preset\": \"bgq\", \"transport\": \"double\"}}\n")
foreach(c "null;11;SIGSEGV" "abort;6;SIGABRT" "stack;11;SIGSEGV")
  list(GET c 0 how)
  list(GET c 1 sig)
  list(GET c 2 name)
  math(EXPR rc "128 + ${sig}")
  cli_test(bgq_crash_${how}.native RC ${rc} NO_CORE HAS "hopsim: rank 5: the device program crashed: signal ${sig} (${name}"
    LACKS "passed the barrier" CMD env HOPSIM_MODE=native ${CLI_BGQ_PROGS}/crash ${how})
  cli_test(bgq_crash_${how}.process RC ${rc} NO_CORE HAS "hopsim: rank 5: the device program crashed: signal ${sig} (${name}"
    "hopsim: rank 5: killed by signal ${sig}" LACKS "passed the barrier"
    CMD env HOPSIM_MODE=native HOPSIM_SCENARIO=${CMAKE_CURRENT_BINARY_DIR}/bgq-double.json ${CLI_BGQ_PROGS}/crash ${how})
  cli_test(bgq_crash_${how}.sim RC ${rc} NO_CORE HAS "hopsim: rank 5: the device program crashed: signal ${sig} (${name}"
    LACKS "passed the barrier" CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/crash ${how})
endforeach()
cli_test(bgq_crash_stack_names_overflow NO_CORE RC 139 HAS ": a stack overflow"
  CMD env HOPSIM_MODE=native ${CLI_BGQ_PROGS}/crash stack)
# In simulation a rank's fiber stack has a guard page below it.
cli_test(bgq_crash_stack_names_overflow.sim NO_CORE RC 139 HAS "hopsim: rank 5: the device program crashed" ": a stack overflow"
  CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/crash stack)

# Counted compute (compute.model = counted): the A2's count of count_a2.ll
# worked by hand (tests/bgq/counted.sh), the halo's computation counted on
# 1 and 64 threads, a trace with the instructions, the refusals.
add_test(NAME bgq.counted COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/../bgq/counted.sh ${CLI_BGQ_PROGS}/count_a2 100 901)
set_tests_properties(bgq.counted PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "bgq counted: PASSED")
add_test(NAME bgq.counted.one_iteration COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/../bgq/counted.sh ${CLI_BGQ_PROGS}/count_a2 1 10)
set_tests_properties(bgq.counted.one_iteration PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "bgq counted: PASSED")
cli_test(bgq_counted_halo HAS "counted compute: " "identical data on every rank" LACKS "WRONG"
  CMD ${HOPSIM} run ${CLI_BGQ_HALO} --mode both --set compute.model=counted --set kernel.args.iterations=1
  --set kernel.args.msg_size=8192 --out run)
add_test(NAME cli.bgq_counted_trace COMMAND sh -c
  "rm -rf run && ${HOPSIM} run ${CLI_BGQ_HALO} --mode sim --set compute.model=counted --set kernel.args.iterations=1 --set kernel.args.msg_size=8192 --out run --trace run/run.db && ${HOPSIM} trace stats run/run.db"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.bgq_counted_trace PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION
  "per PE.*node 31 \\(1,1,1,1,1\\): [0-9]+ instructions")
cli_test(bgq_counted_pingpong RC 2 HAS "the built-in kernel 'pingpong' was compiled without it"
  CMD ${HOPSIM} run ${CLI_BGQ_PINGPONG} --mode sim --set compute.model=counted --out run)
cli_test(bgq_counted_bad_env RC 2 HAS "HOPSIM_COMPUTE=measured: a BG/Q program follows annotated or counted"
  CMD env HOPSIM_COMPUTE=measured ${CLI_BGQ_PROGS}/count_a2 10)

# MPI over the MU (tests/bgq/programs/mpi_features.c): point to point around
# the eager/rendezvous cut-off, wildcards, ordering across protocols,
# synchronous sends, probes, every collective, communicators, a truncated
# receive under MPI_ERRORS_RETURN; both modes, data checked, and over CMA
# processes. Then the errors a user makes, each named with rank and call.
cli_test(bgq_exec_mpi_features HAS "printed the same 390 lines"
  "rank 0: 2049 bytes from rank 31: 0 wrong, count 2049, source 31"
  "rank 0: 65536 bytes from rank 31: 0 wrong, count 65536, source 31" "wildcards: 31 senders seen, 0 wrong"
  "ordering: 1 (4096 ints) 2 (8 ints) 3 (3000 ints) 4 (100 ints)" "rank 2: synchronous sends done, request freed"
  "rank 3: probed 3 ints with tag 1: 7 8 9, then 7 8"
  "rank 7: bcast 1.5 4.5, max 31, min 0, dsum 512.0, xor 32, scatter 70, gather ok, allgather ok, alltoall ok"
  "reduce at 2: 496 992" "rank 5: half 13 of 16, sum 256, token 31, split null ok, cart (1,1) from 4"
  "rank 1: truncated receive returned MPI_ERR_TRUNCATE, first 0 last 9"
  LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/mpi_features && cat exec/sim.stdout exec/native.stdout")
cli_test(bgq_exec_mpi_features_cma HAS "printed the same 390 lines" "wildcards: 31 senders seen, 0 wrong"
  LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --transport cma --out exec ${CLI_BGQ_PROGS}/mpi_features && cat exec/native.stdout")
foreach(mode sim native)
  cli_test(bgq_mpi_truncate.${mode} RC 5
    HAS "hopsim: rank 1: MPI_Recv: rank 0 sent 400 bytes with tag 9 into a 40-byte receive buffer (MPI_ERR_TRUNCATE)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_features truncate)
  cli_test(bgq_mpi_freed_comm.${mode} RC 5 HAS "MPI_Barrier: communicator 2 does not exist or was freed (MPI_ERR_COMM)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_features freed)
  cli_test(bgq_mpi_mismatched_bcast.${mode} RC 5
    HAS "MPI_Bcast: rank 0 of the communicator sent 32 bytes where this rank expects 16: the ranks' calls do not match (MPI_ERR_TRUNCATE)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_features bcast)
endforeach()
cli_test(bgq_mpi_deadlock.sim RC 6 HAS "deadlock: 2 of 32 ranks can never continue"
  "rank 0 waits in MPI_Recv (rank 1, tag 4)" "rank 1 waits in MPI_Recv (rank 0, tag 4)"
  CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/mpi_features deadlock)
cli_test(bgq_mpi_deadlock.native RC 6 HAS "deadlock: nothing moved for 3 s while every rank waits"
  "rank 1 in MPI_Recv (rank 0, tag 4)" "rank 0 in MPI_Recv (rank 1, tag 4)" "(30 finished)"
  TIMEOUT 60 CMD env HOPSIM_MODE=native ${CLI_BGQ_PROGS}/mpi_features deadlock)
# MPI_THREAD_MULTIPLE: threads a rank makes with pthread_create call MPI
# (tests/bgq/programs/mpi_threads.c), on host threads, on a process per rank
# and simulated as fibers of the rank; the lock's cost and the overlap of
# the threads' exchanges in simulated cycles; a deadlock naming a thread;
# a join of a thread that is not one.
foreach(transport threads double)
  cli_test(bgq_exec_mpi_threads.${transport} HAS "printed the same 3 lines"
    "provided MPI_THREAD_MULTIPLE (queried the same: yes)"
    "32 ranks: 467616 values checked, 0 wrong, 128 parts returned, mutex counter 128"
    "parts outside the rank's own thread: 128"
    LACKS "DIFFERENT" "WRONG"
    TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --transport ${transport} --out exec ${CLI_BGQ_PROGS}/mpi_threads && cat exec/sim.stdout exec/native.stdout")
endforeach()
cli_test(bgq_mpi_threads_cost HAS "the four parts: 31537 cycles (mean over ranks)" "MPI_Iprobe: 200 cycles per call"
  CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/mpi_threads)
cli_test(bgq_mpi_threads_cost_single HAS "provided MPI_THREAD_SINGLE (queried the same: yes)"
  "32 ranks: 467616 values checked, 0 wrong, 128 parts returned, mutex counter 128"
  "parts outside the rank's own thread: 0" "the four parts: 61770 cycles (mean over ranks)"
  "MPI_Iprobe: 40 cycles per call"
  CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/mpi_threads single)
cli_test(bgq_mpi_threads_deadlock.sim RC 6 HAS "deadlock: 32 of 32 ranks can never continue"
  "rank 0 waits for a thread to end (pthread_join) at cycle" "rank 0 thread 2 waits in MPI_Recv (rank 1, tag 77)"
  CMD env HOPSIM_MODE=sim ${CLI_BGQ_PROGS}/mpi_threads deadlock)
cli_test(bgq_mpi_threads_deadlock.native RC 6 HAS "deadlock: nothing moved for 3 s while every rank waits"
  "in MPI_Recv (rank 0, tag 77)" "in MPI_Recv (rank 1, tag 77)"
  TIMEOUT 60 CMD env HOPSIM_MODE=native ${CLI_BGQ_PROGS}/mpi_threads deadlock)
foreach(mode sim native)
  cli_test(bgq_mpi_threads_badjoin.${mode} RC 5 HAS "hopsim: rank 0: pthread_join of a thread that is not"
    TIMEOUT 60 CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_threads badjoin)
endforeach()
# Native runs over Open MPI (hopsim-mpicc --openmpi; tests/cli/bgq_openmpi.sh):
# each path of the SPI, SPI with MPI, and an MPI program whose calls go to
# Open MPI, each printing what the simulated run prints; over TCP with Open
# MPI's two-sided emulation of one-sided operations (as across machines);
# then what is refused. The runtime library must define no MPI function but
# the three the start and the end go through.
if(TARGET hopsim_bgq_ompi)
  set(CLI_BGQ_OMPI ${CMAKE_CURRENT_SOURCE_DIR}/bgq_openmpi.sh ${HOPSIM} ${CLI_BGQ_PROGS})
  cli_test(bgq_openmpi_spi HAS "spi_paths: Open MPI and simulated runs printed the same 4 lines"
    "rank 2 of 4: put from rank 1, 0 wrong, sum 620688384" "memory FIFO from rank 3, 3000 bytes, 0 wrong"
    "remote get from rank 3, 0 wrong"
    "hopsim: bgq native run over Open MPI of 4 ranks (torus 2x2x1x1x1)" "24192 checked values, none wrong"
    "\"transport\":\"openmpi\"" LACKS "DIFFERENT"
    TIMEOUT 120 CMD ${CLI_BGQ_OMPI} spi)
  cli_test(bgq_openmpi_own_main HAS "own_main: Open MPI and simulated runs printed the same 4 lines"
    "rank 3 of 4: from rank 2, 0 wrong" LACKS "DIFFERENT" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} own_main)
  cli_test(bgq_openmpi_mpi HAS "mpi_features: Open MPI and simulated runs printed the same 54 lines"
    "rank 1: truncated receive returned MPI_ERR_TRUNCATE, first 0 last 9" "wildcards: 3 senders seen, 0 wrong"
    LACKS "DIFFERENT" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} mpi)
  cli_test(bgq_openmpi_threads HAS "mpi_threads: Open MPI and simulated runs printed the same 3 lines"
    "provided MPI_THREAD_MULTIPLE (queried the same: yes)"
    "4 ranks: 58452 values checked, 0 wrong, 16 parts returned, mutex counter 16"
    "parts outside the rank's own thread: 16" LACKS "DIFFERENT" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} threads)
  cli_test(bgq_openmpi_tcp HAS "spi_paths: Open MPI and simulated runs printed the same 4 lines"
    "\"direct_puts\":\"one-sided\"" LACKS "DIFFERENT" "no one-sided transport" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} tcp)
  cli_test(bgq_openmpi_messages HAS "own_main: Open MPI and simulated runs printed the same 4 lines"
    "spi_paths: Open MPI and simulated runs printed the same 4 lines"
    "hopsim: Open MPI has no one-sided transport for these processes" "direct puts go as messages"
    "\"direct_puts\":\"messages\"" LACKS "DIFFERENT" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} messages)
  cli_test(bgq_openmpi_collective HAS "exit status 2"
    "collective descriptors run in simulation and natively on machine.transport=threads, not over Open MPI"
    TIMEOUT 120 CMD ${CLI_BGQ_OMPI} collective)
  cli_test(bgq_openmpi_torus HAS "exit status 2"
    "hopsim: rank 0: the torus 2x2x2x2x2 has 32 nodes, but mpirun started 4 processes: one process per node"
    LACKS "rank 1:" TIMEOUT 120 CMD ${CLI_BGQ_OMPI} torus)
  # One mpirun at a time: concurrent Open MPI jobs on a loaded machine can fail to start.
  set_tests_properties(cli.bgq_openmpi_spi cli.bgq_openmpi_own_main cli.bgq_openmpi_mpi cli.bgq_openmpi_threads
                       cli.bgq_openmpi_tcp cli.bgq_openmpi_messages cli.bgq_openmpi_collective cli.bgq_openmpi_torus
                       PROPERTIES RESOURCE_LOCK mpirun)
  cli_test(bgq_openmpi_symbols HAS "MPI_Finalize" "MPI_Init" "MPI_Init_thread" LACKS "MPI_Send" "MPI_Comm_rank" "MPI_Barrier"
    CMD sh -c "nm -D --defined-only $<TARGET_FILE:hopsim_bgq_ompi> | grep -o ' [TW] P*MPI_[A-Za-z_]*'")
endif()
# Derived datatypes and non-blocking collectives (tests/bgq/programs/mpi_types.c):
# type layouts, derived types in point to point on both sides of the eager
# cut-off and in every collective, counts of partial receives, every
# non-blocking collective; both modes, data checked, and over CMA processes.
# Then a type not committed, a freed type, an op a type does not have and a
# derived type in a reduction, each stopping the run.
cli_test(bgq_exec_mpi_types HAS "printed the same 332 lines"
  "type vector(4, 2, 5 int): size 32, lb 0, extent 68" "type hvector(3, 1, -16 B double): size 24, lb -32, extent 40"
  "type indexed({2,1,3} at {4,0,9} int): size 24, lb 0, extent 48"
  "type indexed_block(3, 2 at {1,5,3} short): size 12, lb 2, extent 12"
  "type struct{int,double,char[3]}: size 15, lb 0, extent 24" "type struct{int,char}: size 5, lb 0, extent 8"
  "type vector(2, 1, 2 struct): size 30, lb 0, extent 72" "types freed: null handles"
  "rank 0: column of 300 doubles from rank 31: 0 wrong, count 1, elements 300, as contiguous: 0 wrong, count 300"
  "rank 9: column of 16 doubles from rank 8: 0 wrong, count 1, elements 16, as contiguous: 0 wrong, count 16"
  "rank 4: 1000 records from rank 3 (15000 bytes), type freed before the wait: 0 wrong"
  "rank 6: 3 structs: 0 wrong, count 3, elements 15, 5 ints into pairs: count MPI_UNDEFINED, elements 5, 1 2 3 4 5 0, 1000 pairs: 0 wrong"
  "rank 2: triangle of 820 ints from rank 1: 0 wrong"
  "derived collectives: bcast of a column 0 wrong, gather of records 0 wrong, scatter of columns 0 wrong, allgather spread 0 wrong, alltoall strided 0 wrong"
  "rank 4: ibcast 1.25 2.50 3.75, iallreduce 528, allreduce between 31, iscatter 28, igather ok, iallgather 0 wrong, ialltoall 0 wrong"
  "ireduce at 7: 496" "rank 3: half 1: iallreduce 264.0, test returned done, ibcast of a column 0 wrong, request freed"
  "rank 30: in place: iallgather 0 wrong, allgather 0 wrong"
  LACKS "DIFFERENT" "WRONG" "LEFT" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/mpi_types && cat exec/sim.stdout exec/native.stdout")
cli_test(bgq_exec_mpi_types_cma HAS "printed the same 332 lines" "ireduce at 7: 496"
  "rank 0: 1000 records from rank 31 (15000 bytes), type freed before the wait: 0 wrong"
  "rank 0: column of 300 doubles from rank 31: 0 wrong, count 1, elements 300, as contiguous: 0 wrong, count 300"
  "rank 6: 3 structs: 0 wrong, count 3, elements 15, 5 ints into pairs: count MPI_UNDEFINED, elements 5, 1 2 3 4 5 0, 1000 pairs: 0 wrong"
  "rank 2: triangle of 820 ints from rank 1: 0 wrong"
  "derived collectives: bcast of a column 0 wrong, gather of records 0 wrong, scatter of columns 0 wrong, allgather spread 0 wrong, alltoall strided 0 wrong"
  "rank 4: ibcast 1.25 2.50 3.75, iallreduce 528, allreduce between 31, iscatter 28, igather ok, iallgather 0 wrong, ialltoall 0 wrong"
  "rank 3: half 1: iallreduce 264.0, test returned done, ibcast of a column 0 wrong, request freed"
  "rank 30: in place: iallgather 0 wrong, allgather 0 wrong"
  LACKS "DIFFERENT" "WRONG" "LEFT" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --transport cma --out exec ${CLI_BGQ_PROGS}/mpi_types && cat exec/native.stdout")
foreach(mode sim native)
  cli_test(bgq_mpi_uncommitted_type.${mode} RC 5
    HAS "hopsim: rank 0: MPI_Send: datatype 0x10000 is not committed (MPI_ERR_TYPE)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_types uncommitted)
  cli_test(bgq_mpi_freed_type.${mode} RC 5 HAS "hopsim: rank 0: MPI_Send: datatype 0x10000 was freed (MPI_ERR_TYPE)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_types freed)
  cli_test(bgq_mpi_invalid_op.${mode} RC 5 HAS "MPI_Allreduce: op 6 on datatype 0x308 (MPI_ERR_OP)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_types badop)
  cli_test(bgq_mpi_derived_reduction.${mode} RC 5
    HAS "MPI_Allreduce: datatype 0x10000 is derived: reductions take predefined types (and derived ones with a user op) (MPI_ERR_TYPE)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_types derivedop)
endforeach()
# The halo exchange in MPI (kernels/bgq/mpi_halo.c, Qspi NonBlocking.c's
# shape): data checked in both modes; the calibration check of the MPI
# software cycles (hardware.md: about 2.2 us = 3520 cycles nearest-neighbour
# latency) and its control, with the software cycles at 0.
set(CLI_MPI_HALO ${CMAKE_BINARY_DIR}/kernels/bgq/mpi_halo)
cli_test(bgq_mpi_halo HAS "printed the same 8 lines"
  "bcast from rank 3 on MPI_COMM_WORLD (collective network): 0 ranks wrong"
  "bcast from rank 3 on a duplicate (point to point): 0 ranks wrong" "mpi halo, 1024 bytes per neighbour: 0 wrong of 262144"
  "allreduce on MPI_COMM_WORLD (collective network): sum 496" "allreduce on a duplicate (point to point): sum 496"
  "reduce to rank 3 on MPI_COMM_WORLD (collective network): sum 496" "reduce to rank 3 on a duplicate (point to point): sum 496"
  "mpi halo, 4096 bytes per neighbour: 0 wrong of 1048576" LACKS "DIFFERENT"
  CMD ${HOPSIM} bgq exec --out exec ${CLI_MPI_HALO} 1 1024 4096)
cli_test(bgq_mpi_halo_only HAS "printed the same 1 lines" "mpi halo, 4096 bytes per neighbour: 0 wrong of 1048576"
  LACKS "DIFFERENT" "allreduce" "ping-pong" CMD ${HOPSIM} bgq exec --out exec ${CLI_MPI_HALO} --halo-only 1 4096)
cli_test(bgq_mpi_latency_calibration HAS "zero-byte ping-pong with a neighbour: 3501 cycles per half round trip"
  "MPI_Allreduce of one double on MPI_COMM_WORLD (collective network): 4083 cycles"
  "MPI_Reduce of one double to rank 3 on MPI_COMM_WORLD (collective network): 3734 cycles at the root"
  "MPI_Reduce of one double to rank 3 on a duplicate (point to point): 8484 cycles at the root"
  "MPI_Bcast of 4 doubles from rank 3 on MPI_COMM_WORLD (collective network): 1746 cycles at the last rank"
  "MPI_Bcast of 4 doubles from rank 3 on a duplicate (point to point): 8573 cycles at the last rank"
  CMD env HOPSIM_MODE=sim ${CLI_MPI_HALO} 1 1024)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bgq-no-mpi-software.json
  "{\"machine\": {\"preset\": \"bgq\", \"mpi_send_cycles\": 0, \"mpi_recv_cycles\": 0}}\n")
cli_test(bgq_mpi_latency_calibration_control HAS "zero-byte ping-pong with a neighbour: 554 cycles per half round trip"
  CMD env HOPSIM_MODE=sim HOPSIM_SCENARIO=${CMAKE_CURRENT_BINARY_DIR}/bgq-no-mpi-software.json ${CLI_MPI_HALO} 1 1024)
# The calls MPICH's test programs need beyond those (tests/bgq/programs/mpi_calls.c):
# v-collectives, Scan/Exscan, Reduce_scatter(_block), Error_class, a probe
# of MPI_PROC_NULL, bitwise ops on MPI_BYTE, user ops, Waitsome/Testsome/
# Testany, Rsend/Irsend, Request_get_status, Cart_get, Reduce_local, a 2 GiB
# message refused; both modes, data checked.
cli_test(bgq_exec_mpi_calls HAS "printed the same 70 lines" "mpi_calls: 32 ranks, all checks passed"
  "rendezvous of 100000 bytes into a receive posted before MPI_Barrier: 0 wrong" "MPI_DATATYPE_NULL from MPI_PROC_NULL: ok"
  "rsend 100, irsend 121, get_status source 10, cart_get 8x4 (1,0) at (2,3), reduce_local (1, 4): ok"
  "user ops: reduce at 5 (100, 231), allreduce sum 496, ordered ireduce at 5 refused: 10: ok"
  "waitsome/testsome/testany: 3 receives from 10: 10000 10001 10002: ok"
  "rank 31: gatherv at 3, scatterv from 5, allgatherv, alltoallv (48 ints in): ok"
  "rank 7: scan 36 16, exscan 28, reduce_scatter 816 848, reduce_scatter_block 434 465: ok"
  "error class 15, probe of MPI_PROC_NULL: flag 1 count 0, bytes bor 0xff band 0xf0, 2 GiB send: 2"
  LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/mpi_calls && cat exec/sim.stdout exec/native.stdout")
# Groups, MPI_Comm_create(_group), intercommunicators (point to point,
# merge, dup), persistent requests, a cancelled receive, buffered sends
# (tests/bgq/programs/mpi_groups.c): both modes, data checked, on the
# default 32 ranks, on 6 (odd halves), and a process per rank; each
# mistake stops the run naming the rank, the call and the error.
set(CLI_MPI_GROUPS_LINES "groups: world 32, even 16, rest 8 from 31, comm_create allreduce 240: ok"
  "intercomm: 16 and 16 ranks, merged rank 16 of 32, allreduce 496, scan refused, the other half's sum 376, reduced 376: ok"
  "persistent: 3 rounds of the ring (4 and 5000 ints) sum 84007500, inactive requests, cancelled receive, cancelled sends 1 1, received send 0: ok"
  "persistent collectives: bcast (20, 21, 22), allreduce 992, barrier, twice, in init order, v-collectives, scans, reduce-scatters, non-blocking and persistent, alltoallw, info 'hint' = 'some': ok"
  "user ops on derived types: matrix product 496 and 992, strided sum (496, 4960, 32) gaps (-1, -1), alltoall in place: ok"
  "common calls: maxloc at 9, minloc at 0, 2int (2, 2), sendrecv_replace, pack 16 bytes, subarray 6 of 20 (true extent 32 at 28), hindexed, tag_ub, MPI 3, alloc_mem, split_type 1, complex sum (496, 64) and product (1, 0): ok"
  "buffered: 25 + 3000 + 3000 ints through a 24292-byte buffer, one too many refused (class 1): ok"
  "matched probes: 8 and 5000 ints from rank 31, a wildcard receive left for a later message; isendrecv of 3000 ints and isendrecv_replace around the ring: ok"
  "mpi_groups: 32 ranks, all checks passed")
cli_test(bgq_exec_mpi_groups HAS "printed the same 9 lines" ${CLI_MPI_GROUPS_LINES} LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --out exec ${CLI_BGQ_PROGS}/mpi_groups && cat exec/sim.stdout exec/native.stdout")
cli_test(bgq_exec_mpi_groups_cma HAS "printed the same 9 lines" ${CLI_MPI_GROUPS_LINES} LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --transport cma --out exec ${CLI_BGQ_PROGS}/mpi_groups && cat exec/native.stdout")
# The same MPI program on the flow-controlled torus (VC routers with credits).
cli_test(bgq_exec_mpi_groups_flow HAS "printed the same 9 lines" ${CLI_MPI_GROUPS_LINES} LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "HOPSIM_PRESET_PATH=${CLI_DATA}/presets ${HOPSIM} bgq exec --machine bgq-flow --out exec ${CLI_BGQ_PROGS}/mpi_groups && cat exec/sim.stdout")
cli_test(bgq_exec_mpi_groups_6 HAS "printed the same 9 lines" "groups: world 6, even 3, rest 2 from 5, comm_create allreduce 6: ok"
  "intercomm: 3 and 3 ranks, merged rank 3 of 6, allreduce 15, scan refused, the other half's sum 12, reduced 12: ok" "mpi_groups: 6 ranks, all checks passed"
  LACKS "DIFFERENT" "WRONG" "failed"
  TIMEOUT 120 CMD sh -c "${HOPSIM} bgq exec --torus 1x2x3x1x1 --out exec ${CLI_BGQ_PROGS}/mpi_groups && cat exec/sim.stdout")
foreach(mode sim native)
  cli_test(bgq_mpi_group_badrank.${mode} RC 5 HAS "hopsim: rank 0: MPI_Group_incl: rank 32 of a group of 32 (MPI_ERR_RANK)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups badrank)
  cli_test(bgq_mpi_restart.${mode} RC 5 HAS "MPI_Start: request 0 is active already (started, not completed) (MPI_ERR_REQUEST)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups restart)
  cli_test(bgq_mpi_nobuffer.${mode} RC 5
    HAS "MPI_Bsend: a buffered message of 4 bytes needs 68 bytes of the attached buffer, which has 0 of 0 bytes free (MPI_ERR_BUFFER)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups nobuffer)
  cli_test(bgq_mpi_intercomm_collective.${mode} RC 5
    HAS "MPI_Scan: communicator 4 is an intercommunicator: its collectives are not supported (MPI_ERR_COMM)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups intercoll)
  cli_test(bgq_mpi_complex_max.${mode} RC 5 HAS "MPI_Allreduce: op 1 on datatype 0x510 (MPI_ERR_OP)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups complexmax)
  cli_test(bgq_mpi_no_message.${mode} RC 5
    HAS "MPI_Mrecv: message 12345 is not one a matched probe returned, or was received (MPI_ERR_ARG)"
    CMD env HOPSIM_MODE=${mode} ${CLI_BGQ_PROGS}/mpi_groups nomessage)
endforeach()
# The side-by-side benchmark against SimGrid's SMPI (tests/bench/smpi_halo.sh)
# needs SimGrid, which CI has not: its help and its message for a build
# without the program.
set(CLI_SMPI_HALO ${CMAKE_SOURCE_DIR}/tests/bench/smpi_halo.sh)
cli_test(bgq_smpi_halo_help HAS "tests/bench/smpi_halo.sh [-b BUILD] [--halo-only]" CMD sh ${CLI_SMPI_HALO} --help)
cli_test(bgq_smpi_halo_no_build RC 2 HAS "smpi_halo.sh: /nonexistent/kernels/bgq/mpi_halo not built"
  CMD sh ${CLI_SMPI_HALO} -b /nonexistent)
# MPICH's test programs (tests/external/mpich_tests.sh) need a checkout of
# MPICH, which CI has not: its argument checks only.
set(CLI_MPICH_TESTS ${CMAKE_SOURCE_DIR}/tests/external/mpich_tests.sh)
cli_test(bgq_mpich_tests_no_checkout RC 2 HAS "usage:" CMD bash ${CLI_MPICH_TESTS})
cli_test(bgq_mpich_tests_not_mpich RC 2 HAS "no MPICH test/mpi here" CMD bash ${CLI_MPICH_TESTS} ${CMAKE_SOURCE_DIR}/docs)
cli_test(bgq_mpich_tests_bad_ranks RC 2 HAS "--ranks takes a positive number, got 'x'"
  CMD bash ${CLI_MPICH_TESTS} ${CMAKE_SOURCE_DIR}/docs --ranks x)
