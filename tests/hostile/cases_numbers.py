"""Hostile inputs of the numbers area (docs/reliability.md): absurd numbers on the command line
and in the CSVs validate and calibrate read, and precisions the model does not cost. Each is a
located error (exit 2), never a printed 300-digit number, and calibrate writes nothing."""

from hostile import Case

# Numbers that parse as a double but are no measurement: too small, too large, not finite,
# negative zero, subnormal, hexadecimal.
ABSURD = {"tiny": "1e-300", "huge": "1e308", "nan": "nan", "inf": "inf", "negzero": "-0",
          "subnormal": "1e-320", "hex": "0x1p-1000"}


def no_long_number(folder, result):
    """No run of 30 or more digits in the output (a 300-digit percentage or time)."""
    text = result.out + result.err
    run = 0
    for c in text:
        run = run + 1 if c.isdigit() else 0
        if run >= 30:
            return "the output holds a number of 30 or more digits"
    return None


CASES = []


def case(name, args, message, files=None, absent=None, exit=2):
    CASES.append(Case(name=name, args=args, exit=exit, message=message, files=files or {},
                      absent=absent or [], check=no_long_number))


# --- speed-up factors on the command line (analysis/whatif.h kMinSpeedupFactor..kMaxSpeedupFactor)
for label, value in [("tiny", "1e-300"), ("huge", "1e300"), ("nan", "nan"), ("infinity", "infinity"),
                     ("subnormal", "1e-320"), ("negzero", "-0"), ("hex", "0x1p-1000"),
                     ("neginf", "-inf")]:
    case(f"whatif_speedup_{label}", ["whatif", "--model", "alexnet", "--speedup", f"conv={value}"],
         f"--speedup conv={value}: the factor")
for label, value in [("tiny", "1e-300"), ("huge", "1e300"), ("nan", "nan"), ("inf", "inf")]:
    case(f"whatif_k_{label}",
         ["whatif", "--model", "alexnet", "--speedup", "conv=2", "--k", value], "--k")
# Inside the factor range, the step-time cap still holds on the what-if path.
case("whatif_speedup_step_cap",
     ["whatif", "--model", "alexnet", "--batch", "100000000", "--speedup",
      "conv=1e-6,gemm=1e-6"], "beyond the 1e+09 s amdahl reports")
# 'inf' (zero cost) and the range's ends stay valid.
case("whatif_speedup_inf_valid", ["whatif", "--model", "alexnet", "--speedup", "conv=inf"],
     "new step time", exit=0)
case("whatif_speedup_edge_valid", ["whatif", "--model", "alexnet", "--speedup",
                                   "conv=1e6,gemm=1e-6"], "new step time", exit=0)

# --- precisions: the ones a step is costed at (util/precision.h workload_precisions)
for p in ["int8", "fp8", "FP32", "fp64"]:
    case(f"predict_precision_{p}", ["predict", "--model", "alexnet", "--precision", p],
         f"unknown precision '{p}'")
    case(f"explore_precision_{p}",
         ["explore", "--models", "alexnet", "--precision", p, "--vary",
          "gpu0.memory.bandwidth=0.5,1TB/s"],
         f"unknown precision '{p}'")
    case(f"explore_models_precision_{p}",
         ["explore", "--models", f"alexnet:precision={p}", "--vary",
          "gpu0.memory.bandwidth=0.5,1TB/s"],
         f"unknown precision '{p}'")
for cmd in ["breakdown", "whatif", "sweep", "graph"]:
    extra = {"whatif": ["--speedup", "conv=2"], "sweep": ["--vary", "batch=16,32"]}.get(cmd, [])
    case(f"{cmd}_precision_int8", [cmd, "--model", "alexnet", "--precision", "int8"] + extra,
         "unknown precision 'int8'")

AMDAHL_RUNS = "workload,batch,mode,precision,measured_s\nalexnet,16,train,{p},{t}\n"
PYTORCH_RUNS = "model,batch,precision,mode,median_us\nalexnet,16,{p},train,{t}\n"
THROUGHPUT_RUNS = "workload,batch,mode,precision,samples_per_s\nalexnet,16,train,fp32,{t}\n"
PROFILE = ("model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
           "alexnet,16,{p},volta_sgemm_128x64_nn,{c},{t},0,3\n")
for p in ["int8", "fp8", "FP32"]:
    case(f"validate_runs_precision_{p}",
         ["validate", "--measured", "runs.csv"],
         [f"runs.csv:2: column precision: unknown precision '{p}'"],
         files={"runs.csv": AMDAHL_RUNS.format(p=p, t="0.1")})
    case(f"validate_profile_precision_{p}",
         ["validate", "--profile", "profile.csv"],
         [f"profile.csv:2: column precision: unknown precision '{p}'"],
         files={"profile.csv": PROFILE.format(p=p, c=10, t=100)})

# --- measured numbers in validate's CSVs (hw::measured_range through CsvTable::measured)
for label, value in ABSURD.items():
    case(f"validate_runs_time_{label}", ["validate", "--measured", "runs.csv"],
         "runs.csv:2: column measured_s: expected a time from 1 ns",
         files={"runs.csv": AMDAHL_RUNS.format(p="fp32", t=value)})
for label in ["tiny", "huge", "nan", "subnormal"]:
    case(f"validate_pytorch_time_{label}", ["validate", "--measured", "steps.csv"],
         "steps.csv:2: column median_us: expected a time from 1 ns",
         files={"steps.csv": PYTORCH_RUNS.format(p="fp32", t=ABSURD[label])})
case("validate_throughput_huge", ["validate", "--measured", "runs.csv"],
     "runs.csv:2: column samples_per_s: expected a throughput giving a step of a time from 1 ns",
     files={"runs.csv": THROUGHPUT_RUNS.format(t="1e308")})
case("validate_throughput_tiny", ["validate", "--measured", "runs.csv"],
     "runs.csv:2: column samples_per_s: expected a throughput giving a step",
     files={"runs.csv": THROUGHPUT_RUNS.format(t="1e-300")})
for label in ["huge", "nan", "subnormal", "tiny"]:
    case(f"validate_profile_time_{label}", ["validate", "--profile", "profile.csv"],
         "profile.csv:2: column self_device_us: expected 0 or a time from 1 ns",
         files={"profile.csv": PROFILE.format(p="fp32", c=10, t=ABSURD[label])})
case("validate_profile_calls_huge", ["validate", "--profile", "profile.csv"],
     "profile.csv:2: column calls: expected a whole number",
     files={"profile.csv": PROFILE.format(p="fp32", c="1e308", t=100)})

# --- measured numbers in calibrate's CSVs: an error at the cell, and no file written
BASE = "{fixtures}/hw/valid_device.yaml"
MEASUREMENTS = ("bench,op_class,precision,shape,flops,bytes,time_s,reps\n"
                "gemm,gemm,{p},m=1024;n=1024;k=1024;ta=N;tb=N,{f},12582912,{t},50\n")
for label, value in ABSURD.items():
    case(f"calibrate_measurements_time_{label}",
         ["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "out.yaml"],
         "m.csv:2: column time_s: expected a time from 1 ns",
         files={"m.csv": MEASUREMENTS.format(p="fp32", f="2147483648", t=value)},
         absent=["out.yaml"])
for label in ["huge", "nan", "tiny"]:
    case(f"calibrate_measurements_flops_{label}",
         ["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "out.yaml"],
         "m.csv:2: column flops: expected 0 or FLOP from",
         files={"m.csv": MEASUREMENTS.format(p="fp32", f=ABSURD[label], t="0.000123")},
         absent=["out.yaml"])
for p in ["int8", "fp8", "FP32"]:
    case(f"calibrate_measurements_precision_{p}",
         ["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "out.yaml"],
         f"m.csv:2: column precision: unknown precision '{p}'",
         files={"m.csv": MEASUREMENTS.format(p=p, f="2147483648", t="0.000123")},
         absent=["out.yaml"])

TORCH_HEADERS = {
    "gemm": "precision,m,n,k,transA,transB,median_us,min_us,tflops\n",
    "conv": "precision,N,C,H,W,K,R,S,stride,pad,fwd_us,bwd_data_us,bwd_filter_us\n",
    "rnn": "cell,hidden,batch,timesteps,layers,fwd_us,fwd_bwd_us\n",
    "micro": "bench,bytes_or_elems,median_us,min_us\n",
}
TORCH_ROWS = {
    "gemm": "{p},1024,1024,1024,N,N,{t},30,1\n",
    "conv": "{p},32,64,56,56,64,1,1,1,0,{t},127,165\n",
    "rnn": "lstm,512,16,25,1,{t},1904\n",
    "micro": "d2d_copy,1048576,{t},13\n",
}
TORCH_COLUMNS = {"gemm": "median_us", "conv": "fwd_us", "rnn": "fwd_us", "micro": "median_us"}


def torch_files(kind, p, t):
    files = {"h200/info.json": "{}"}
    for k, header in TORCH_HEADERS.items():
        files[f"h200/kernels/{k}.csv"] = header + (TORCH_ROWS[k].format(p=p, t=t) if k == kind
                                                   else "")
    return files


for kind in TORCH_HEADERS:
    for label in ["tiny", "huge"]:
        case(f"calibrate_torch_{kind}_{label}",
             ["calibrate", "torch", "h200", "--base", BASE, "--out", "out.yaml"],
             f"{kind}.csv:2: column {TORCH_COLUMNS[kind]}: expected a time from 1 ns",
             files=torch_files(kind, "fp32", ABSURD[label]), absent=["out.yaml"])
for p in ["int8", "FP32"]:
    case(f"calibrate_torch_precision_{p}",
         ["calibrate", "torch", "h200", "--base", BASE, "--out", "out.yaml"],
         f"gemm.csv:2: column precision: unknown precision '{p}'",
         files=torch_files("gemm", p, "31.8"), absent=["out.yaml"])

ALLREDUCE = ("dataset,gpu,sheet,precision,cuda,cudnn,application,size_floats,size_bytes,n_gpus,"
             "n_nodes_col,mean_us,std_us,gbytes_per_s_sheet,algorithm\n"
             "toy,Toy GPU,Results,fp32,,,,100000,{b},2,,{t},1.7,7.8,NCCL 2.0 MPI\n")
for label in ["tiny", "huge"]:
    case(f"calibrate_allreduce_time_{label}", ["calibrate", "allreduce", "--dir", "db", "-o", "out"],
         "deepbench_allreduce.csv:2: column mean_us: expected a time from 1 ns",
         files={"db/deepbench_allreduce.csv": ALLREDUCE.format(b=400000, t=ABSURD[label])},
         absent=["out"])
    case(f"calibrate_allreduce_bytes_{label}", ["calibrate", "allreduce", "--dir", "db", "-o", "out"],
         "deepbench_allreduce.csv:2: column size_bytes: expected bytes from 1 B",
         files={"db/deepbench_allreduce.csv": ALLREDUCE.format(b=ABSURD[label], t=101.9)},
         absent=["out"])

DB_DATASETS = ("dataset,repo,path,read_at_commit,last_modified_commit,last_modified_date,gpu_model,"
               "cpu_model,cuda,cudnn,driver,kernel,motherboard,mpi,sheets\n"
               "P100_baidu_2018,r,p,c,c,2018-05-21,P100,cpu,8,6,375,k,m,mpi,s\n")
DB_HEAD = "dataset,gpu,sheet,precision,cuda,cudnn,application,"
DB_GEMM = (DB_HEAD + "m,n,k,transA,transB,time_us,tflops_sheet,tflops_2mnk,note\n"
           "P100_baidu_2018,P100,Results,fp32,8,6,,{m},16,1760,N,N,{t},1.8,1.8,\n")
DB_CONV = (DB_HEAD + "W,H,C,N,K,R,S,pad_h,pad_w,stride_h,stride_w,out_h,out_w,fwd_us,bwd_data_us,"
           "bwd_filter_us,total_us,flops_fwd,tflops_fwd_calc,tflops_bwd_data_calc,"
           "tflops_bwd_filter_calc,fwd_algo,sheet_P,sheet_Q,tflops_fwd_sheet,"
           "tflops_bwd_data_sheet,tflops_bwd_filter\n")
DB_RNN = (DB_HEAD + "rnn_type,hidden,batch,timesteps,fwd_us,bwd_us_combined,bwd_data_us,"
          "bwd_weights_us,total_us,tflops_fwd_sheet,tflops_bwd_sheet,tflops_bwd_weights_sheet\n")


def deepbench_files(m, t):
    return {"db/deepbench_datasets.csv": DB_DATASETS, "db/deepbench_gemm.csv":
            DB_GEMM.format(m=m, t=t), "db/deepbench_conv.csv": DB_CONV,
            "db/deepbench_rnn.csv": DB_RNN}


DB_ARGS = ["calibrate", "deepbench", "--dir", "db", "--dataset", "P100_baidu_2018",
           "--measured-device", "{source}/hw/catalog/devices/p100-pcie.yaml",
           "--base", "{source}/hw/catalog/devices/p100-pcie.yaml", "--out", "out.yaml"]
for label in ["tiny", "huge", "nan"]:
    case(f"calibrate_deepbench_time_{label}", DB_ARGS,
         "deepbench_gemm.csv:2: column time_us: expected a time from 1 ns",
         files=deepbench_files(1760, ABSURD[label]), absent=["out.yaml"])
for label in ["huge", "hex"]:
    case(f"calibrate_deepbench_dim_{label}", DB_ARGS,
         "deepbench_gemm.csv:2: column m: expected a whole number",
         files=deepbench_files(ABSURD[label], 55), absent=["out.yaml"])
