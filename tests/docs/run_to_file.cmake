# cmake -DPROG=program -DOUT=file -P run_to_file.cmake: runs PROG and writes
# its standard output to OUT; fails when PROG does.
execute_process(COMMAND ${PROG} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} failed: ${rc}")
endif()
