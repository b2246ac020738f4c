# -o DIR and standard output: files written atomically, a non-empty folder refused without
# --force, every command with -o writes its files, a failed run or a failed write of standard
# output is an error (exit 2) that leaves nothing behind. Run by ctest with -DAMDAHL=<binary>
# -DWORK=<scratch folder>.

include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(expect_files dir)
  foreach(name ${ARGN})
    if(NOT EXISTS ${dir}/${name})
      message(FATAL_ERROR "-o ${dir}: ${name} was not written")
    endif()
  endforeach()
endfunction()

# Each command that takes -o writes its fixed files.
expect_run(0 "wrote" predict --model alexnet --batch 2 -o ${WORK}/predict)
expect_files(${WORK}/predict prediction.json timeline.json config.json)
expect_run(0 "wrote" graph --model alexnet --batch 2 -o ${WORK}/graph)
expect_files(${WORK}/graph graph.dot graph.json)
expect_run(0 "wrote" whatif --model alexnet --batch 2 --speedup conv=2 -o ${WORK}/whatif)
expect_files(${WORK}/whatif whatif.json whatif.csv)
expect_run(0 "wrote" whatif --model alexnet --batch 2 --runtime graph --system h200
           -o ${WORK}/whatif-runtime)
expect_files(${WORK}/whatif-runtime whatif.json whatif.csv)

# A non-empty folder is refused, and left as it was; --force replaces amdahl's files.
file(WRITE ${WORK}/predict/prediction.json "mine")
expect_run(2 "the folder is not empty; give --force" predict --model alexnet -o ${WORK}/predict)
file(READ ${WORK}/predict/prediction.json kept)
if(NOT kept STREQUAL "mine")
  message(FATAL_ERROR "a refused -o changed prediction.json")
endif()
expect_run(0 "wrote" predict --model alexnet --batch 2 -o ${WORK}/predict --force)
file(READ ${WORK}/predict/prediction.json replaced)
string(JSON step GET "${replaced}" step_time_s)

# A run that fails writes nothing: no folder, no temporary.
expect_run(2 "--batch" predict --model alexnet --batch 0 -o ${WORK}/failed)
expect_run(2 "has no size 'imgae'" predict --model alexnet --set imgae=10 -o ${WORK}/failed)
if(EXISTS ${WORK}/failed)
  message(FATAL_ERROR "a failed run created its -o folder")
endif()
file(GLOB leftovers ${WORK}/predict/.*)
if(leftovers)
  message(FATAL_ERROR "temporaries left behind: ${leftovers}")
endif()
expect_run(2 "exists and is not a folder" predict --model alexnet -o ${WORK}/predict/config.json)

# Standard output that cannot be written (a full disk) is exit 2 with the reason.
if(EXISTS /dev/full)
  execute_process(COMMAND ${AMDAHL} predict --model alexnet OUTPUT_FILE /dev/full
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "cannot write the output to standard output")
    message(FATAL_ERROR "predict > /dev/full: exit ${rc} (expected 2)\n${err}")
  endif()
endif()

# whatif --device with a path that does not exist names the file, not a missing option.
expect_run(2 "missing.yaml: cannot open device file (no such file)" whatif --model alexnet
           --device ${WORK}/missing.yaml)
