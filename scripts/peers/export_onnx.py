#!/usr/bin/env python3
"""Export all-MiniLM-L6-v2 (local safetensors folder) to ONNX fp32 for the onnxruntime peer.

Graph = BertModel + masked mean pooling + L2 normalisation, as shared/baselines/scripts/export_onnx.py
(the plain `model.onnx` of anchor E1): TorchScript exporter (dynamo=False), opset 17, inputs
input_ids / attention_mask / token_type_ids (int64 [batch, seq]), output sentence_embedding
(float32 [batch, 384]). No graph fusion, no quantisation.
"""
import argparse
from pathlib import Path

import torch
from transformers import AutoModel


class Embedder(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=token_type_ids).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        s = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(s, p=2, dim=1)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--out", required=True, help="the .onnx file to write")
    return ap.parse_args()


def main():
    a = parse_args()
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    bert = AutoModel.from_pretrained(a.model_dir, attn_implementation="eager").eval()
    model = Embedder(bert).eval()
    ids = torch.randint(1000, 2000, (2, 16), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes["sentence_embedding"] = {0: "batch"}
    tmp = out.with_suffix(".onnx.partial")
    with torch.no_grad():
        torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
                          input_names=names, output_names=["sentence_embedding"], dynamic_axes=axes,
                          opset_version=17, dynamo=False)
    tmp.replace(out)
    print(f"exported {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
