# Checks that PREFIX holds every file of EXPECTED (a ;-list of paths
# relative to PREFIX, glob patterns allowed) and none of UNEXPECTED.
# Usage: cmake -DPREFIX=... -DEXPECTED=a;b -DUNEXPECTED=c -P check_layout.cmake
# The lists come '|'-separated (a ';' list would split the -D argument).
string(REPLACE "|" ";" EXPECTED "${EXPECTED}")
string(REPLACE "|" ";" UNEXPECTED "${UNEXPECTED}")
set(_missing "")
foreach(_f IN LISTS EXPECTED)
  file(GLOB _hits "${PREFIX}/${_f}")
  if(NOT _hits)
    list(APPEND _missing "${_f}")
  endif()
endforeach()
set(_extra "")
foreach(_f IN LISTS UNEXPECTED)
  file(GLOB _hits "${PREFIX}/${_f}")
  if(_hits)
    list(APPEND _extra "${_f}")
  endif()
endforeach()
if(_missing OR _extra)
  file(GLOB_RECURSE _all RELATIVE "${PREFIX}" "${PREFIX}/*")
  list(JOIN _all "\n  " _all)
  message(FATAL_ERROR "install layout in ${PREFIX}:\n missing: ${_missing}\n "
                      "unexpected: ${_extra}\n installed:\n  ${_all}")
endif()
list(LENGTH EXPECTED _n)
message(STATUS "install layout: ${_n} expected paths present")
