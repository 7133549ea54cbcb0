# Silent loss and destruction (issue 36, items 1-10): a status of 0 means
# the data is at the path, and no file we did not create is destroyed.
# test_publish (serial) and test_publish_mpi run one case each and check
# every profile they write with check_publish.py (h5py), so they need it.
if(TARGET scope-profiler-merge AND SP_H5PY_PYTHON)
  set(SP_CHECK_PUBLISH ${CMAKE_CURRENT_SOURCE_DIR}/check_publish.py)
  add_executable(test_publish test_publish.c)
  target_link_libraries(test_publish PRIVATE scope_profiler sp_test_util Threads::Threads
    sp_warnings)
  # Its pwrite() stands in for libc's in the library (end_cut_before_publish).
  set_target_properties(test_publish PROPERTIES ENABLE_EXPORTS ON)
  set(D ${CMAKE_CURRENT_BINARY_DIR}/publish)
  file(MAKE_DIRECTORY ${D})
  sp_test_cases_of(_publish_cases test_publish.c)
  foreach(case IN LISTS _publish_cases)
    set(t reliability.publish.${case})
    add_test(NAME ${t}
      COMMAND test_publish ${case} ${SP_H5PY_PYTHON} ${SP_CHECK_PUBLISH}
              $<TARGET_FILE:scope-profiler-merge>
      WORKING_DIRECTORY ${D})
    set_tests_properties(${t} PROPERTIES LABELS reliability TIMEOUT 180 SKIP_RETURN_CODE 77)
  endforeach()
  # 100,000 regions: 6 s alone, 30 s on the shared 2-core VM; more under ASan.
  set_tests_properties(reliability.publish.end_regions_100000 PROPERTIES TIMEOUT 900)
endif()

# The cases that need ranks; FINALIZE_TIMEOUT 20 so that a rank left waiting
# (profiling on one rank only: it waited the whole 600 s) fails quickly.
if(TARGET scope-profiler-merge AND SP_H5PY_PYTHON AND SCOPE_PROFILER_ENABLE_MPI)
  add_executable(test_publish_mpi test_publish_mpi.c)
  target_link_libraries(test_publish_mpi PRIVATE scope_profiler sp_test_util MPI::MPI_C sp_warnings)
  set(D ${CMAKE_CURRENT_BINARY_DIR}/publish_mpi)
  file(MAKE_DIRECTORY ${D})
  # case:ranks:check_publish.py options ("-" for none: no file is written)
  foreach(spec "rank0_only:4:--ranks@4@--calls@100@--empty-rank@1@--empty-rank@2@--empty-rank@3"
          "rank1_only:2:--ranks@2@--calls@100@--empty-rank@0"
          "none_active:2:-"
          "per_rank_path:2:--ranks@2@--calls@21")
    string(REPLACE ":" ";" spec "${spec}")
    list(GET spec 0 case)
    list(GET spec 1 np)
    list(GET spec 2 opts)
    set(t reliability.publish.${case}.np${np})
    sp_add_mpi_test(NAME ${t} NP ${np} COMMAND $<TARGET_FILE:test_publish_mpi> ${case}
      WORKING_DIRECTORY ${D})
    set_tests_properties(${t} PROPERTIES FIXTURES_SETUP ${t} LABELS reliability TIMEOUT 120
      ENVIRONMENT "${SP_MPI_TEST_ENV};SCOPE_PROFILER_FINALIZE_TIMEOUT=20")
    if(NOT opts STREQUAL "-")
      string(REPLACE "@" ";" opts "${opts}")
      add_test(NAME ${t}.h5py COMMAND ${SP_H5PY_PYTHON} ${SP_CHECK_PUBLISH} ${case}.h5 ${opts}
        WORKING_DIRECTORY ${D})
      set_tests_properties(${t}.h5py PROPERTIES FIXTURES_REQUIRED ${t} LABELS reliability)
    endif()
  endforeach()
endif()
