# amdahl_set_warnings(TARGET): the project's warning flags, -Werror under AMDAHL_WERROR.
function(amdahl_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
  # GCC 12 reports moving a boost::container::small_vector that holds its elements in place
  # (graphs::Shape) as reading past them: its memmove of the in-place buffer is bounded by the
  # size, which the warning does not see (a false positive of -Wstringop-overread at -O2).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local -Wno-stringop-overread)
  endif()
  if(AMDAHL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
