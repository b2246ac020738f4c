#!/usr/bin/python3
"""Exports the real networks the ONNX import tests read, into OUT_DIR (default build/testdata).

Random weights (no download): only shapes matter to amdahl. Every model has a dynamic batch
axis named "batch"; the LSTM language model and the transformer also a dynamic "seq_len".
Models are exported in training mode (torch.onnx.TrainingMode.TRAINING) so that batch
normalization stays a BatchNormalization node (eval-mode export folds it into the
convolutions, which changes the parameter count). Opsets vary on purpose (9 to 17) and so
does the storage of the weights: inline initializers, external data files (vgg16, alexnet),
and initializers also listed as graph inputs (alexnet).

Also writes OUT_DIR/params.txt: "name parameters" as torch counts them
(sum(p.numel() for p in model.parameters())).

Run with Debian's python3 (torch 1.13, torchvision 0.14, onnx 1.12):
  /usr/bin/python3 tests/data/export_onnx_models.py build/testdata [name ...]
"""
import os
import sys
import warnings

import onnx
import torch
import torch.nn as nn
import torchvision

warnings.filterwarnings("ignore")
torch.manual_seed(0)


class LstmLanguageModel(nn.Module):
    """Word-level LSTM language model (as PyTorch's word_language_model example):
    embedding 10000 x 650, 2 LSTM layers of 650, decoder 650 -> 10000. Input [seq_len, batch]."""

    def __init__(self, vocab=10000, hidden=650, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, layers)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.decoder(out)


class TransformerEncoderModel(nn.Module):
    """nn.TransformerEncoder, 2 layers, d_model 256, 4 heads, feed-forward 1024, over an
    input [seq_len, batch, 256]."""

    def __init__(self, d_model=256, heads=4, ff=1024, layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.1)
        self.encoder = nn.TransformerEncoder(layer, layers)

    def forward(self, x):
        return self.encoder(x)


def image_model(factory, size=224, **kwargs):
    return lambda: (factory(weights=None, **kwargs), torch.randn(2, 3, size, size),
                    {0: "batch"})


# name -> (builder, opset, weights storage)
MODELS = {
    "resnet50": (image_model(torchvision.models.resnet50), 14, "inline"),
    "vgg16": (image_model(torchvision.models.vgg16), 13, "external"),
    "alexnet": (image_model(torchvision.models.alexnet), 9, "inputs+external"),
    "mobilenet_v2": (image_model(torchvision.models.mobilenet_v2), 12, "inline"),
    "inception_v3": (image_model(torchvision.models.inception_v3, size=299, aux_logits=False,
                                 init_weights=False), 11, "inline"),
    "lstm_lm": (lambda: (LstmLanguageModel(), torch.randint(0, 10000, (35, 2)),
                         {0: "seq_len", 1: "batch"}), 14, "inline"),
    "transformer_encoder": (lambda: (TransformerEncoderModel(), torch.randn(35, 2, 256),
                                     {0: "seq_len", 1: "batch"}), 17, "inline"),
}


def export(name, out_dir):
    builder, opset, storage = MODELS[name]
    model, example, axes = builder()
    model.train()
    path = os.path.join(out_dir, name + ".onnx")
    output_axes = axes if name != "lstm_lm" else {0: "seq_len", 1: "batch"}
    if name not in ("lstm_lm", "transformer_encoder"):
        output_axes = {0: "batch"}
    torch.onnx.export(model, example, path, opset_version=opset,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": axes, "output": output_axes},
                      keep_initializers_as_inputs=storage.startswith("inputs"))
    if storage.endswith("external"):
        proto = onnx.load(path)
        onnx.save_model(proto, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name + ".onnx.data", size_threshold=1024)
    return sum(p.numel() for p in model.parameters())


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "build/testdata"
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out_dir, exist_ok=True)
    counts = {}
    params_path = os.path.join(out_dir, "params.txt")
    if os.path.exists(params_path):
        with open(params_path) as f:
            for line in f:
                key, value = line.split()
                counts[key] = int(value)
    for name in names:
        counts[name] = export(name, out_dir)
        print(f"exported {name}: {counts[name]} parameters", flush=True)
    with open(params_path, "w") as f:
        for key in sorted(counts):
            f.write(f"{key} {counts[key]}\n")


if __name__ == "__main__":
    main()
