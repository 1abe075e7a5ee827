; Counted compute: a loop whose eCore cycles are worked out by hand from the
; cost table (sim/epiphany/pass/ecore_costs.hpp). Written in LLVM IR so that
; no compiler reshapes it: the pass counts exactly these instructions.
;
; loop (8 instructions), cycle of issue:
;   0 load %v, fadd %f1 (dual issue: integer and FPU slots)
;   2 add %acc1        (load -> IALU: 2)
;   4 mul %m           (IALU -> IMUL in the FPU: 2)
;   9 xor %x           (IMUL -> IALU: 5)
;  10 add %i1          (integer slot taken at 9)
;  11 icmp %c          (IALU -> IALU: 1)
;  12 br               (takes its cycle)        -> 13 cycles
; longest chain handed to the next iteration: %i1 (10) + 1 = 11, less the
; 3-cycle refetch it overlaps: 8 < 13. A taken back branch adds 3: 16.
; exit (4 instructions): 0 fptosi, 5 add (FPU -> IALU: 5), 6 store,
;   7 ret (1 + 3 for the jump) -> 11 cycles.
; n iterations: 16 (n - 1) + 13 + 11 = 16 n + 8 cycles; 8 n + 4 instructions.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @count_kernel(i32 %n, ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %x, %loop ]
  %f = phi float [ 0.0, %entry ], [ %f1, %loop ]
  %v = load i32, ptr %p
  %f1 = fadd float %f, 1.0
  %acc1 = add i32 %acc, %v
  %m = mul i32 %acc1, 3
  %x = xor i32 %m, %i
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %fi = fptosi float %f1 to i32
  %r = add i32 %x, %fi
  store i32 %r, ptr %p
  ret void
}
