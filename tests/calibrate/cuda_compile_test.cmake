# Configures and builds calibrate/cuda (amdahl-cudabench) on its own with the given nvcc:
# the CUDA sources must compile on a machine without a GPU. Run with
#   cmake -DSOURCE=calibrate/cuda -DBUILD=dir -DNVCC=/path/nvcc -P cuda_compile_test.cmake
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -DCMAKE_CUDA_COMPILER=${NVCC}
          -DCMAKE_BUILD_TYPE=Release -DAMDAHL_CUDA_ARCHITECTURES=90
  RESULT_VARIABLE configure_result)
if(NOT configure_result EQUAL 0)
  message(FATAL_ERROR "configuring ${SOURCE} failed (${configure_result})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} -j 2 RESULT_VARIABLE build_result)
if(NOT build_result EQUAL 0)
  message(FATAL_ERROR "building amdahl-cudabench failed (${build_result})")
endif()
execute_process(COMMAND ${BUILD}/amdahl-cudabench --help RESULT_VARIABLE help_result
                OUTPUT_QUIET)
if(NOT help_result EQUAL 0)
  message(FATAL_ERROR "amdahl-cudabench --help failed (${help_result})")
endif()
