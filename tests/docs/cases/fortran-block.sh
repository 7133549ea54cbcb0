# docs/fortran.md, the block API: the exit in the fifth iteration still
# closes its call (five calls, none open: check_profile checks nesting).
snippet fortran-block > blocks.f90
fortran_build blocks.f90 blocks
./blocks 2> err.txt
test ! -s err.txt
check_profile blocks.h5 --ranks 1 --region iteration --count iteration=5
