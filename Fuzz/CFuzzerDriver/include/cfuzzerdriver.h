#pragma once
#include <stddef.h>
#include <stdint.h>
#include <malloc.h>  // mallopt, which Swift's Glibc module leaves out

/// libFuzzer's entry point for programs that have their own main (linked only with -sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
