# Warning and sanitizer flags, applied per target through an interface library
# so that nothing leaks into the installed targets.
add_library(sp_warnings INTERFACE)
target_compile_options(sp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wshadow -Wpointer-arith -Wformat=2>
  $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes -Wmissing-prototypes>
  $<$<COMPILE_LANGUAGE:Fortran>:-Wall -Wno-maybe-uninitialized>)
if(SCOPE_PROFILER_WERROR)
  target_compile_options(sp_warnings INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:Fortran>:-Werror>)
endif()

if(SCOPE_PROFILER_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(SCOPE_PROFILER_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT SCOPE_PROFILER_SANITIZE STREQUAL "")
  message(FATAL_ERROR "SCOPE_PROFILER_SANITIZE must be '', 'address' or 'thread', not '${SCOPE_PROFILER_SANITIZE}'")
endif()
