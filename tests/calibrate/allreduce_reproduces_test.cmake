# The shipped DeepBench all-reduce boxes (hw/catalog/systems/deepbench-*.yaml and
# hw/catalog/links/deepbench-*.yaml) are what `amdahl calibrate allreduce -o` writes, byte for
# byte, and the catalog holds no other deepbench-* file (run by ctest as
# cli.calibrate_reproduces.allreduce). A change to the fit or the box fails here until the files
# are written again with the command in docs/calibration-collectives.md. The command runs from
# the source folder with the data folder relative to it, as the doc gives it, and writes into a
# catalog of its own whose devices/ is a copy of the shipped one.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/catalog)
file(COPY ${SOURCE}/hw/catalog/devices DESTINATION ${WORK}/catalog)
file(RELATIVE_PATH data ${SOURCE} ${SHARED}/data/deepbench)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env AMDAHL_CATALOG=${WORK}/catalog
          ${AMDAHL} calibrate allreduce --dir ${data} -o ${WORK}/catalog --force
  WORKING_DIRECTORY ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate allreduce --dir ${data} -o ${WORK}/catalog failed (${rc}): ${err}")
endif()
set(patterns systems/deepbench-*.yaml links/deepbench-*.yaml)
foreach(p ${patterns})
  list(APPEND produced_globs ${WORK}/catalog/${p})
  list(APPEND shipped_globs ${SOURCE}/hw/catalog/${p})
endforeach()
file(GLOB produced RELATIVE ${WORK}/catalog ${produced_globs})
file(GLOB shipped RELATIVE ${SOURCE}/hw/catalog ${shipped_globs})
list(SORT produced)
list(SORT shipped)
if(NOT produced STREQUAL shipped)
  message(FATAL_ERROR "the command writes [${produced}], the catalog ships [${shipped}]")
endif()
if(NOT produced)
  message(FATAL_ERROR "calibrate allreduce -o wrote no system")
endif()
foreach(f ${produced})
  file(READ ${WORK}/catalog/${f} a)
  file(READ ${SOURCE}/hw/catalog/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "hw/catalog/${f} differs from a fresh `calibrate allreduce -o` "
                        "(${WORK}/catalog/${f})")
  endif()
endforeach()
