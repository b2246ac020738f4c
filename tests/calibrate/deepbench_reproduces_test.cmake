# The shipped device files fitted from DeepBench are what `amdahl calibrate deepbench` writes
# from them, byte for byte (run by ctest as cli.calibrate_reproduces.DATASET, one per file whose
# provenance names a DeepBench dataset). A model change that moves a fit fails here until the file is
# refitted with the command in docs/calibration.md.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(
  COMMAND ${AMDAHL} calibrate deepbench --dir ${SHARED}/data/deepbench --dataset ${DATASET}
          --base ${SOURCE}/hw/catalog/devices/${DEVICE}.yaml --out ${WORK}/${DEVICE}.yaml
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate deepbench --dataset ${DATASET} failed (${rc}): ${err}")
endif()
file(READ ${WORK}/${DEVICE}.yaml produced)
file(READ ${SOURCE}/hw/catalog/devices/${DEVICE}.yaml shipped)
if(NOT produced STREQUAL shipped)
  message(FATAL_ERROR "hw/catalog/devices/${DEVICE}.yaml differs from a fresh calibration from "
                      "DeepBench ${DATASET} (${WORK}/${DEVICE}.yaml)")
endif()
