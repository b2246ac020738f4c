# expect_run(RC TEXT ARGS...): runs ${AMDAHL} ARGS and fails unless it exits RC and its
# standard output or error contains TEXT.

function(expect_run expected_rc expected_text)
  execute_process(COMMAND ${AMDAHL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "amdahl ${ARGN}: exit ${rc}, expected ${expected_rc}\n${out}\n${err}")
  endif()
  string(FIND "${out}${err}" "${expected_text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "amdahl ${ARGN}: output lacks '${expected_text}'\n${out}\n${err}")
  endif()
endfunction()
