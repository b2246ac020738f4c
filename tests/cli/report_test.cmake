# amdahl report (docs/report.md): the files it writes, and every step time and sweep point in its
# CSVs equal to what `predict` and `sweep` print for the same inputs. Run by ctest with
# -DAMDAHL=<binary> -DWORK=<scratch dir> -DSHARED=<../shared> -DSOURCE=<the source tree>.

cmake_policy(SET CMP0007 NEW)  # list(POP_FRONT/GET) keep empty elements
include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)

file(REMOVE_RECURSE ${WORK})
set(out ${WORK}/fathom)
expect_run(0 "wrote" report --suite fathom --system minsky -o ${out})
foreach(f report.html report.md summary.csv classes.csv bounds.csv accelerability.csv
          batch_sweep.csv host_link.csv scaling.csv whatif.csv figures/classes_train.csv
          figures/classes_train.gp figures/batch_speedup_infer.gp figures/scaling.csv)
  if(NOT EXISTS ${out}/${f})
    message(FATAL_ERROR "report -o: ${f} missing")
  endif()
endforeach()

# Fails with `why` unless `file` contains `text`.
function(expect_in_file file text why)
  file(READ ${file} content)
  string(FIND "${content}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${why} (${file} lacks '${text}')")
  endif()
endfunction()

# Column `name` of a CSV line whose header is `header` (no quoted cells in these files).
function(csv_cell header line name result)
  string(REPLACE "," ";" keys "${header}")
  string(REPLACE "," ";" cells "${line}")
  list(FIND keys ${name} at)
  list(GET cells ${at} cell)
  set(${result} "${cell}" PARENT_SCOPE)
endfunction()

# Every summary row: its step time is `predict`'s, to the digit.
file(READ ${out}/classes.csv classes_csv)
file(READ ${out}/bounds.csv bounds_csv)
set(compared_shares 0)
file(STRINGS ${out}/summary.csv summary)
list(POP_FRONT summary summary_header)
list(LENGTH summary rows)
if(NOT rows EQUAL 16)
  message(FATAL_ERROR "summary.csv: ${rows} rows, expected 16 (8 workloads x train, infer)")
endif()
foreach(line IN LISTS summary)
  csv_cell("${summary_header}" "${line}" workload workload)
  csv_cell("${summary_header}" "${line}" mode mode)
  csv_cell("${summary_header}" "${line}" step_s step)
  execute_process(COMMAND ${AMDAHL} predict --model ${workload} --system minsky --mode ${mode}
                          --format csv
                  OUTPUT_VARIABLE predicted RESULT_VARIABLE rc)
  string(REPLACE "\n" ";" predicted "${predicted}")
  list(GET predicted 0 p_header)
  list(GET predicted 1 p_line)
  csv_cell("${p_header}" "${p_line}" step_time_s p_step)
  if(NOT rc EQUAL 0 OR NOT step STREQUAL p_step)
    message(FATAL_ERROR "report: ${workload} ${mode} step ${step}, predict says ${p_step}")
  endif()
  # Every op class's and bound's critical-path seconds: breakdown's.
  execute_process(COMMAND ${AMDAHL} breakdown --model ${workload} --system minsky --mode ${mode}
                          --format csv
                  OUTPUT_VARIABLE broken RESULT_VARIABLE rc)
  string(REPLACE "\n" ";" broken "${broken}")
  foreach(b IN LISTS broken)
    if(b MATCHES "^(class|bound),([^,]+),([^,]+),")
      set(key ${CMAKE_MATCH_2})
      set(seconds ${CMAKE_MATCH_3})
      if(CMAKE_MATCH_1 STREQUAL "class")
        set(want "\n${workload},${mode},accelerator,${key},${seconds},")
        set(in "${classes_csv}")
      else()
        set(want "\n${workload},${mode},${key},${seconds},")
        set(in "${bounds_csv}")
      endif()
      string(FIND "${in}" "${want}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "report: ${workload} ${mode} ${CMAKE_MATCH_1} ${key}: breakdown "
                            "says ${seconds} s, not in the report's CSV")
      endif()
      math(EXPR compared_shares "${compared_shares} + 1")
    endif()
  endforeach()
endforeach()
if(compared_shares LESS 100)
  message(FATAL_ERROR "report: only ${compared_shares} class and bound times compared")
endif()

# Every batch-sweep point of one workload: `sweep`'s step time and CPU step time.
execute_process(COMMAND ${AMDAHL} sweep --model alexnet --system minsky --mode train
                        --vary batch=1..256:x2
                OUTPUT_VARIABLE swept RESULT_VARIABLE rc)
string(REPLACE "\n" ";" swept "${swept}")
list(POP_FRONT swept s_header)
file(STRINGS ${out}/batch_sweep.csv points)
list(POP_FRONT points b_header)
set(compared 0)
foreach(line IN LISTS points)
  if(NOT line MATCHES "^alexnet,train,")
    continue()
  endif()
  list(GET swept ${compared} s_line)
  foreach(pair "step_s;step_time_s" "cpu_step_s;cpu_step_time_s" "batch;batch")
    list(GET pair 0 ours)
    list(GET pair 1 theirs)
    csv_cell("${b_header}" "${line}" ${ours} a)
    csv_cell("${s_header}" "${s_line}" ${theirs} b)
    if(NOT a STREQUAL b)
      message(FATAL_ERROR "report: alexnet batch point ${compared}: ${ours} ${a}, sweep ${b}")
    endif()
  endforeach()
  math(EXPR compared "${compared} + 1")
endforeach()
if(NOT compared EQUAL 9)
  message(FATAL_ERROR "report: ${compared} alexnet training batch points, expected 9")
endif()

# Bad input: nothing written, the valid names listed; a non-empty folder needs --force, which
# keeps the files the report did not write.
expect_run(2 "unknown suite 'fathm'; did you mean 'fathom'" report --suite fathm -o ${WORK}/bad)
expect_run(2 "unknown model 'alexnt'; did you mean 'alexnet'" report --models autoenc,alexnt
           -o ${WORK}/bad)
if(EXISTS ${WORK}/bad)
  message(FATAL_ERROR "report: a failed report left ${WORK}/bad")
endif()
expect_run(2 "not empty" report --models autoenc -o ${out})
file(WRITE ${out}/notes.txt "mine")
expect_run(0 "wrote" report --models autoenc -o ${out} --force)
if(NOT EXISTS ${out}/notes.txt)
  message(FATAL_ERROR "report --force removed a file it did not write")
endif()

# Without gnuplot the report still writes every CSV and script, and says how to draw them.
set(no_plot ${WORK}/no_gnuplot)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=/nonexistent
                        ${AMDAHL} report --models alexnet --system minsky -o ${no_plot}
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
string(FIND "${e}" "gnuplot is not installed" at)
if(NOT rc EQUAL 0 OR at EQUAL -1 OR NOT EXISTS ${no_plot}/figures/classes_train.gp
   OR EXISTS ${no_plot}/figures/classes_train.svg)
  message(FATAL_ERROR "report without gnuplot: exit ${rc}\n${e}")
endif()
expect_in_file(${no_plot}/report.md
               "render it with `gnuplot classes_train.gp` in the figures folder"
               "report without gnuplot: report.md does not say how to draw the figures")

# --measured: the validation section, its points and its figure.
set(validated ${WORK}/validated)
expect_run(0 "wrote" report --models resnet50 --system h200
           --measured ${SHARED}/data/h200/networks/steps.csv -o ${validated})
foreach(f validation.csv figures/validation.csv figures/validation.gp)
  if(NOT EXISTS ${validated}/${f})
    message(FATAL_ERROR "report --measured: ${f} missing")
  endif()
endforeach()
expect_in_file(${validated}/report.md "| all | 52 |"
               "report --measured: no summary of the 52 measured runs")
# Without --measured, the system file's `measured_runs` (h200.yaml names the same runs).
expect_run(0 "wrote" report --models resnet50 --system h200 -o ${WORK}/own_runs)
expect_in_file(${WORK}/own_runs/report.md "| all | 52 |"
               "report on h200: the system's measured runs were not used")

# sweep --plot and validate --plot: the figure's SVG, PNG, CSV and script beside FILE; an
# existing one is kept unless --force.
expect_run(0 "wrote ${WORK}/sweep_plot.gp" sweep --model alexnet --system minsky
           --vary batch=1,2,4 --plot ${WORK}/sweep_plot.svg)
expect_run(2 "sweep_plot.svg: exists; give --force to replace it" sweep --model alexnet
           --system minsky --vary batch=1,2,4 --plot ${WORK}/sweep_plot.svg)
expect_run(2 "expected a file name ending in .svg" sweep --model alexnet --system minsky
           --vary batch=1,2 --plot ${WORK}/sweep_plot.png)
expect_run(0 "wrote ${WORK}/validate_plot.csv" validate --system h200
           --measured ${SHARED}/data/h200/networks/steps.csv --plot ${WORK}/validate_plot.svg)
file(STRINGS ${WORK}/validate_plot.csv plotted)
list(LENGTH plotted plotted_count)
if(NOT plotted_count EQUAL 53)
  message(FATAL_ERROR "validate --plot: ${plotted_count} CSV lines, expected 53 (52 runs)")
endif()
# Runs on several GPUs are coloured by their count as well.
expect_run(0 "wrote ${WORK}/validate_gpus_plot.csv" validate --system dgx1-p100
           --measured ${SOURCE}/validate/cases/tf-benchmarks-dgx1-p100-2017-05-synthetic.csv
           --plot ${WORK}/validate_gpus_plot.svg)
expect_in_file(${WORK}/validate_gpus_plot.csv "train fp32, 8 GPUs"
               "validate --plot: no group for the 8-GPU runs")
