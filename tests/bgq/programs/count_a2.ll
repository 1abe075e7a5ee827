; A strict-order sum of n doubles, written in LLVM IR so that its count
; under the A2's cost table (sim/bgq/pass/a2_costs.hpp) can be worked by
; hand (tests/cli/bgq.cmake, bgq.counted):
;
; entry: a jump to the next block: no instruction.
; loop (5 instructions, 1 to the FPU; compiler-scheduled, one per cycle):
;   load %x (lfd) at 0; add %i1 at 1; icmp at 2 (add -> compare: 1);
;   fadd waits for the load (lfd -> FPU: 7) at 7; the branch issues last, at
;   8 (compare -> branch: 2 is met). The block lasts 9 cycles; the chain of
;   fadds (6 from one iteration's fadd to the next's) is shorter.
; exit: ret, 1 cycle.
; So sum(v, n) counts 9 n + 1 cycles and 5 n + 1 instructions.
define double @count_sum(ptr %v, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr double, ptr %v, i64 %i
  %x = load double, ptr %p
  %acc1 = fadd double %acc, %x
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc1
}
