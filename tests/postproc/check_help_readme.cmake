# check_help_readme.cmake - postproc/README.md must show exactly the --help text.
# -DPPROC=exe -DREADME=path
execute_process(COMMAND ${PPROC} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
file(READ ${README} text)
# The first block after the heading (a <!-- snippet: skip --> marker may precede it).
string(FIND "${text}" "## Options (`scope-profiler-pproc --help`)\n" at)
if(rc OR at LESS 0)
  message(FATAL_ERROR "--help failed (${rc}) or README has no Options block")
endif()
string(SUBSTRING "${text}" ${at} -1 text)
string(FIND "${text}" "```\n" open)
math(EXPR open "${open} + 4")
string(SUBSTRING "${text}" ${open} -1 text)
string(FIND "${text}" "```" close)
string(SUBSTRING "${text}" 0 ${close} block)
if(NOT block STREQUAL help)
  message(FATAL_ERROR "postproc/README.md Options block differs from --help:\n--- README ---\n${block}\n--- --help ---\n${help}")
endif()
