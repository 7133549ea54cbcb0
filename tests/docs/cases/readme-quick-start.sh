# README.md quick start: the first command, run as written from a checkout
# (here: examples/ of the source tree, linked), against this build. It must
# end with something to look at: the summary of the profile it wrote and
# the path of a Gantt chart that exists.
ln -sfn "$SP_SRC/examples" examples
snippet readme-quick-start | sed "s|run-c-example.sh|run-c-example.sh \"$SP_BUILD\"|" > quick.sh
grep -q 'bash examples/run-c-example.sh' quick.sh
bash -e quick.sh > out.txt 2> err.txt || { cat out.txt err.txt; exit 1; }
cat out.txt
check_profile profiling_data.h5 --ranks 4
# The summary's header and the example's regions.
grep -q 'calls' out.txt
grep -q 'imbalance' out.txt
for r in compute halo; do grep -q "$r" out.txt || { echo "no region $r in the summary"; exit 1; }; done
chart=$(sed -n 's/^Gantt chart: //p' out.txt)
test -n "$chart"
test "$chart" = "$PWD/figures/gantt_plot.png"
# A PNG (its signature), not an empty file.
test "$(head -c 8 "$chart" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
