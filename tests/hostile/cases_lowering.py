"""Hostile inputs of the lowering area (docs/reliability.md): sizes that unroll a recurrent
layer, a repeat or a block into more ops or layers than a lowering may make, counted before
anything of that size is allocated (LayerKind::op_count in lowering and re-lowering, the
layer count of blocks and repeats in binding), through every command that lowers a network;
and `tied_to` ties that name no weight that fits."""

from hostile import Case

BIG = "100000000"  # 10^8 steps: 7-10 GB of ops before the count came first

LSTM = """name: long-lstm
description: one LSTM over a long sequence
source: test
sizes:
  steps: {default: 10000000, description: time steps}
  batch: {default: 1, description: sequences}
inputs:
  - {name: x, shape: [steps, batch, 8], dtype: fp32}
layers:
  - {name: rnn, kind: lstm, hidden_size: 8}
"""

LSTM_TRAIN = LSTM.replace(
    "  - {name: x, shape: [steps, batch, 8], dtype: fp32}\n",
    "  - {name: x, shape: [steps, batch, 8], dtype: fp32}\n"
    "  - {name: labels, shape: [steps, batch], dtype: int64}\n") + \
    "  - {name: loss, kind: softmax_cross_entropy, inputs: [rnn, labels]}\n"

# An embedding and a linear head that shares its table (GPT-2's LM head).
TIED = """name: tied
description: a tied language-model head
source: test
sizes:
  batch: {default: 4, description: sequences}
  vocab: {default: 100, description: vocabulary}
  head_out: {default: 100, description: head outputs}
inputs:
  - {name: tokens, shape: [batch, 16], dtype: int64}
  - {name: labels, shape: [batch, 16], dtype: int64}
layers:
  - {name: wte, kind: embedding, input: tokens, num_embeddings: vocab, embedding_dim: 32}
  - {name: act, kind: relu}
  - {name: head, kind: linear, out_features: head_out, bias: false, tied_to: wte}
  - {name: loss, kind: softmax_cross_entropy, inputs: [head, labels]}
"""


def tied(old, new):
    assert old in TIED
    return TIED.replace(old, new)


HEAD = "  - {name: head, kind: linear, out_features: head_out, bias: false, tied_to: wte}"

# Blocks of blocks of disabled layers, 10 wide and 12 deep: nothing is made, but expanding them
# evaluates 10^12 declarations.
NESTED = ["name: nested\ndescription: blocks of disabled blocks\nsource: test\nsizes:\n"
          "  batch: {default: 1, description: b}\n"
          "inputs:\n  - {name: x, shape: [batch, 4], dtype: fp32}\nblocks:\n"
          "  b0:\n    layers:\n      - {name: off, kind: relu, enabled: 0}\n"]
for k in range(1, 12):
    NESTED.append(f"  b{k}:\n    layers:\n" + "".join(
        f"      - {{name: u{i}, block: b{k - 1}}}\n" for i in range(10)))
NESTED.append("layers:\n  - {name: top, block: b11, enabled: 1}\n")
NESTED = "".join(NESTED)


def runs_csv(sizes):
    return ("workload,batch,mode,precision,measured_s,sizes\n"
            f"seq2seq,64,train,fp32,1.5,{sizes}\n")


ENCODER = "layer 'encoder' (lstm): its forward pass makes"
LIMIT = "more than the limit of 2000000 ops (--max-ops N raises it)"

CASES = [
    # seq2seq's encoder over 10^8 steps, through every command that lowers a network.
    Case("seq2seq_enc_len_predict",
         ["predict", "--model", "seq2seq", "--set", "enc_len=" + BIG],
         message=[ENCODER, "input [100000000, 64, 256]", LIMIT]),
    Case("seq2seq_enc_len_infer",
         ["predict", "--model", "seq2seq", "--mode", "infer", "--set", "enc_len=" + BIG],
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_graph",
         ["graph", "--model", "seq2seq", "--set", "enc_len=" + BIG],
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_breakdown",
         ["breakdown", "--model", "seq2seq", "--set", "enc_len=" + BIG],
         message=[ENCODER, LIMIT]),
    Case("seq2seq_dec_len_predict",
         ["predict", "--model", "seq2seq", "--set", "dec_len=" + BIG],
         message=["layer 'decoder' (attention_decoder): its forward pass makes", LIMIT]),
    # A sweep re-evaluates its first point's ops at the next: the count comes before the rules.
    Case("seq2seq_enc_len_sweep",
         ["sweep", "--model", "seq2seq", "--vary", "enc_len=40," + BIG],
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_validate",
         ["validate", "--measured", "runs.csv", "--system", "minsky"],
         files={"runs.csv": runs_csv("enc_len=" + BIG)},
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_validate_two_rows",
         ["validate", "--measured", "runs.csv", "--system", "minsky"],
         files={"runs.csv": runs_csv("enc_len=40") + "seq2seq,64,train,fp32,1.5,enc_len=" + BIG
                + "\n"},
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_explore",
         ["explore", "--models", "seq2seq:enc_len=" + BIG, "--system", "minsky",
          "--vary", "gpu0.memory.bandwidth=700GB/s,900GB/s"],
         message=[ENCODER, LIMIT]),
    Case("seq2seq_enc_len_explore_axis",
         ["explore", "--models", "seq2seq", "--system", "minsky", "--vary", "enc_len=40," + BIG,
          "--vary", "gpu0.memory.bandwidth=700GB/s,900GB/s"],
         message=[ENCODER, LIMIT]),
    # A YAML LSTM over 10^7 steps against --max-ops 1000 (22 s and 9 GB before its error).
    Case("lstm_max_ops", ["predict", "--graph", "lstm.yaml", "--mode", "infer", "--max-ops", "1000"],
         files={"lstm.yaml": LSTM},
         message=["lstm.yaml:10:5: layer 'rnn' (lstm): its forward pass makes 20000001 ops",
                  "more than the limit of 1000 ops"]),
    Case("lstm_train_default_limit", ["predict", "--graph", "lstm.yaml", "--set", "steps=" + BIG],
         files={"lstm.yaml": LSTM_TRAIN},
         message=["layer 'rnn' (lstm): its forward pass makes 200000001 ops", LIMIT]),
    Case("lstm_num_layers_and_steps",
         ["predict", "--graph", "lstm.yaml", "--mode", "infer", "--set", "steps=1000"],
         files={"lstm.yaml": LSTM.replace("hidden_size: 8}", "hidden_size: 8, num_layers: 1500}")},
         message=["its forward pass makes 3001500 ops", LIMIT]),
    # A backward pass is counted before it is made too: 12,001 forward ops fit the limit of
    # 20,000, the backward pass's 12,001 after them do not.
    Case("lstm_backward_count",
         ["predict", "--graph", "lstm.yaml", "--set", "steps=3000", "--max-ops", "20000"],
         files={"lstm.yaml": LSTM_TRAIN.replace("hidden_size: 8}",
                                                "hidden_size: 8, bidirectional: true}")},
         message=["layer 'rnn' (lstm): its backward pass makes 12001 ops",
                  "more than the limit of 20000 ops"]),
    # Layers: a repeat of a block is counted before any layer is made.
    Case("gpt2_layers_repeat", ["predict", "--model", "gpt2-small", "--set", "layers=1000000"],
         message=["layer 'h': block decoder_layer (repeat 'layers') expands to 10000000 layers",
                  "more than 2000000 layers"]),
    Case("nested_disabled_blocks", ["predict", "--graph", "nested.yaml", "--mode", "infer"],
         files={"nested.yaml": NESTED},
         message=["layer 'top': its blocks and repeats expand into 211111111111 layer declarations",
                  "more than 4 times the limit of 2000000 layers"]),
    # Gradient accumulation over a million micro-batches: lowering stops at the op limit.
    Case("accumulate_million", ["predict", "--model", "alexnet", "--accumulate", "1000000"],
         message="alexnet: 1000000 micro-batches of "),
    # tied_to: the weight must exist, be another layer's and fit.
    Case("tied_ok", ["predict", "--graph", "tied.yaml", "--format", "json"], exit=0,
         files={"tied.yaml": TIED},
         message='"parameters": 3200'),
    Case("tied_missing", ["predict", "--graph", "tied.yaml"],
         files={"tied.yaml": tied("tied_to: wte", "tied_to: wtx")},
         message=["tied.yaml:14:5: layer 'head' (linear): tied_to 'wtx': no layer of that name; "
                  "did you mean 'wte'"]),
    Case("tied_self", ["predict", "--graph", "tied.yaml"],
         files={"tied.yaml": tied("tied_to: wte", "tied_to: head")},
         message="tied.yaml:14:5: layer 'head' (linear): tied_to 'head' names the layer itself"),
    Case("tied_cycle", ["predict", "--graph", "tied.yaml"],
         files={"tied.yaml": tied(HEAD, HEAD.replace("tied_to: wte", "tied_to: head2") + "\n"
                                  "  - {name: head2, kind: linear, input: act, out_features: "
                                  "head_out, bias: false, tied_to: head}")},
         message="layer 'head' (linear): tied_to forms a cycle (head -> head2 -> head)"),
    Case("tied_shape", ["predict", "--graph", "tied.yaml", "--set", "head_out=50"],
         files={"tied.yaml": TIED},
         message="tied.yaml:14:5: layer 'head' (linear): tied_to 'wte': its weight is [100, 32]; "
                 "this layer needs [50, 32]"),
    Case("tied_no_weight", ["predict", "--graph", "tied.yaml"],
         files={"tied.yaml": tied("tied_to: wte", "tied_to: act")},
         message="tied_to 'act': layer 'act' (relu) has no weight to share"),
    Case("tied_to_loss_infer", ["predict", "--graph", "tied.yaml", "--mode", "infer"],
         files={"tied.yaml": tied("tied_to: wte", "tied_to: loss")},
         message="tied_to 'loss': that layer is not lowered in this mode"),
    # The shape is checked at every point of a sweep (re-evaluated, not lowered afresh).
    Case("tied_shape_sweep", ["sweep", "--graph", "tied.yaml", "--vary", "head_out=100,50"],
         files={"tied.yaml": TIED},
         message="tied_to 'wte': its weight is [100, 32]; this layer needs [50, 32]"),
]
