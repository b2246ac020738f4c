# The shipped H200 device and PCIe 5 link files are what `amdahl calibrate torch` writes from
# shared/data/h200, byte for byte (run by ctest as cli.calibrate_reproduces.h200). A model change
# that moves the fit fails here until the files are refitted with the command in
# docs/calibration-h200.md.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(device ${SOURCE}/hw/catalog/devices/h200-sxm.yaml)
set(link ${SOURCE}/hw/catalog/links/pcie5-x16.yaml)
execute_process(
  COMMAND ${AMDAHL} calibrate torch ${SHARED}/data/h200 --base ${device}
          --out ${WORK}/h200-sxm.yaml --link-base ${link} --link-out ${WORK}/pcie5-x16.yaml
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate torch ${SHARED}/data/h200 failed (${rc}): ${err}")
endif()
foreach(pair "h200-sxm.yaml;${device}" "pcie5-x16.yaml;${link}")
  list(GET pair 0 name)
  list(GET pair 1 shipped_path)
  file(READ ${WORK}/${name} produced)
  file(READ ${shipped_path} shipped)
  if(NOT produced STREQUAL shipped)
    message(FATAL_ERROR "${shipped_path} differs from a fresh calibration from "
                        "${SHARED}/data/h200 (${WORK}/${name})")
  endif()
endforeach()
