// What Tests/update/test-boot-selection.sh puts in each root slot as /boot/vmlinuz: an arm64 Image that U-Boot's
// booti starts like Linux, which says which slot it came from on QEMU virt's PL011 and powers the machine off
// (PSCI SYSTEM_OFF, through the hypervisor call QEMU answers). SLOT is replaced by the slot's name.
    .text
    .globl _start
_start:
    b       start                   // code0
    .long   0                       // code1
    .quad   0                       // text_offset
    .quad   image_end - _start      // image_size
    .quad   0xa                     // flags: little-endian, 4 KiB pages, anywhere in memory
    .quad   0, 0, 0                 // reserved
    .ascii  "ARM\x64"               // magic
    .long   0                       // reserved (no PE header)
start:
    adr     x1, message
    movz    x2, #0x0900, lsl #16    // virt's PL011 at 0x09000000, data register at offset 0
1:  ldrb    w3, [x1], #1
    cbz     w3, 2f
    str     w3, [x2]
    b       1b
2:  movz    w0, #0x0008             // PSCI SYSTEM_OFF, 0x84000008
    movk    w0, #0x8400, lsl #16
    hvc     #0
3:  b       3b
message:
    .asciz  "\r\nplayola stand-in kernel: slot SLOT\r\n"
    .balign 8
image_end:
