# examples/fortran/README.md: the Gantt chart commands of the installed
# postprocessor on the example's profile.
heat_build
cd build-heat
"$MPIEXEC" -n 4 ./heat --steps 50 --output-every 25
PATH=$SP_PREFIX/bin:$PATH
snippet heat-pproc > pproc.sh
sh -e pproc.sh
test -s figures/gantt_plot.png
