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
endif()
