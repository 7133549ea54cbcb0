# The postprocessor built without PLplot (SCOPE_PROFILER_ENABLE_PLPLOT=OFF):
# no PLplot library linked, every chart request refused with exit 2 naming
# PLplot, and what draws no chart (the text outputs, the data files, the
# HTML report) works. The golden cases above run too: those that ask for
# charts expect the refusal (sp_cli_case). tests/run-all.sh builds and runs
# this configuration.
add_test(NAME postproc.noplplot.not_linked
  COMMAND sh -c "readelf -d \"$1\" | grep NEEDED && ! readelf -d \"$1\" | grep -i 'NEEDED.*plplot'"
          sh ${PPROC})
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.default RC 2 ARGS ${D}/basic.h5 ERR "built without PLplot")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.outdir RC 2 ARGS ${D}/basic.h5 -o ${OUTD}/noplplot_o
  ERR "^scope-profiler-pproc: this scope-profiler-pproc was built without PLplot \\(SCOPE_PROFILER_ENABLE_PLPLOT=OFF\\): the charts of -o DIR, --show and --plots need it")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.show RC 2 ARGS ${D}/basic.h5 --show ERR "built without PLplot")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.plots RC 2 ARGS ${D}/basic.h5 --summary -o ${OUTD}/noplplot_p --plots flame
  ERR "built without PLplot")
# Nothing is written before the refusal (-o DIR is not even created).
add_test(NAME postproc.noplplot.nothing_written
  COMMAND sh -c "rm -rf \"$2\" && ! \"$1\" \"$3\" -o \"$2\" 2>/dev/null && test ! -e \"$2\""
          sh ${PPROC} ${OUTD}/noplplot_n ${D}/basic.h5)
set_tests_properties(postproc.noplplot.nothing_written PROPERTIES FIXTURES_REQUIRED postproc_files)
# check compares two files and draws nothing: it works.
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.check RC 1
  ARGS check ${D}/basic.h5 ${D}/likwid.h5 --max-regression 1% ERR "check failed")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.export_data RC 0
  ARGS ${D}/basic.h5 -o ${OUTD}/noplplot_data --export-data --skip-plot-images
  PREFIX sh -c "rm -rf ${OUTD}/noplplot_data && \"$0\" \"$@\" && cd ${OUTD}/noplplot_data && ls"
  OUT "^call_tree.json\ndurations_data.csv\nflame_data.csv\ngantt_data.csv\nregion_statistics.json\n$")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.html RC 0 ARGS ${D}/basic.h5 --backend html -o ${OUTD}/noplplot_html
  ERR "wrote [^\n]*noplplot_html/report\\.html")
sp_add_pproc_case(GROUP postproc FIXTURE postproc_files NAME noplplot.summary RC 0 ARGS ${D}/basic.h5 --summary --format csv --include 50
  OUT "^calls,total_s,self_s,mean_s,min_s,max_s,rank_mean_s,rank_max_s,max_rank,imbalance,%,region\n1,0\\.100000000,[^\n]*,50%\n$")
