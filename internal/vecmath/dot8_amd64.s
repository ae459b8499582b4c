//go:build amd64 && !purego

#include "textflag.h"

// func dotInt8RowsAsm(q, rows *int8, dim, n int, out *int32)
// out[r] is the dot product of q and row r for r < n, the rows following one
// another; dim must be a positive multiple of 32 and n positive. Neither may
// hold -128. Per 32 bytes: the signs of q move onto the row (VPSIGNB), q
// becomes |q| (VPABSB), pairs of |q|·row are added into int16 (VPMADDUBSW:
// at most 2·127·127, no saturation), pairs of those into int32 (VPMADDWD by
// ones), and two accumulators sum them. Every step is exact.
TEXT ·dotInt8RowsAsm(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), R8
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ out+32(FP), R11
	MOVL $0x00010001, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15

row:
	MOVQ R8, SI
	MOVQ R9, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

rloop64:
	CMPQ CX, $64
	JL   rloop32
	VMOVDQU (SI), Y2
	VMOVDQU (DI), Y3
	VMOVDQU 32(SI), Y4
	VMOVDQU 32(DI), Y5
	VPSIGNB Y2, Y3, Y3
	VPABSB Y2, Y2
	VPSIGNB Y4, Y5, Y5
	VPABSB Y4, Y4
	VPMADDUBSW Y3, Y2, Y6
	VPMADDUBSW Y5, Y4, Y7
	VPMADDWD Y15, Y6, Y6
	VPMADDWD Y15, Y7, Y7
	VPADDD Y6, Y0, Y0
	VPADDD Y7, Y1, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JMP  rloop64

rloop32:
	CMPQ CX, $32
	JL   rreduce
	VMOVDQU (SI), Y2
	VMOVDQU (DI), Y3
	VPSIGNB Y2, Y3, Y3
	VPABSB Y2, Y2
	VPMADDUBSW Y3, Y2, Y6
	VPMADDWD Y15, Y6, Y6
	VPADDD Y6, Y0, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  rloop32

rreduce:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R11)
	ADDQ $4, R11
	DECQ R10
	JNZ  row
	VZEROUPPER
	RET
