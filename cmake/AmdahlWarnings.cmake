# amdahl_set_warnings(TARGET): the project's warning flags, -Werror under AMDAHL_WERROR.
function(amdahl_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers)
  if(AMDAHL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
