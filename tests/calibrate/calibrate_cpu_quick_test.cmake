# The issue's acceptance command, end to end on this machine: `calibrate cpu --quick`
# measures the CPU (oneDNN, OpenMP and PyTorch kernels), fits it and writes a system that
# loads and predicts (run by ctest as cli.calibrate_cpu_quick).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${AMDAHL} calibrate cpu --quick --out ${WORK}/cpu.yaml
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/cpu.device.yaml OR NOT EXISTS ${WORK}/cpu.csv)
  message(FATAL_ERROR "calibrate cpu --quick failed (${rc}): ${out}\n${err}")
endif()
if(NOT out MATCHES "\nconv +[0-9]+ +[0-9]+ ")
  message(FATAL_ERROR "calibrate cpu --quick fitted no conv entry: ${out}")
endif()
execute_process(COMMAND ${AMDAHL} predict --model resnet18 --batch 1 --system ${WORK}/cpu.yaml
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "step time")
  message(FATAL_ERROR "the quick CPU system does not load and predict (${rc}): ${out}\n${err}")
endif()
