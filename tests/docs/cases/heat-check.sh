# examples/fortran/README.md: the output does not depend on the number of
# ranks (the block's cmp fails otherwise).
heat_build
cd build-heat
snippet heat-check > check.sh
sh -e check.sh
