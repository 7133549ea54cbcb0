# examples/fortran/README.md: the example built on its own against the
# installed prefix (the block's placeholder path replaced by it).
heat_build
test -x build-heat/heat
