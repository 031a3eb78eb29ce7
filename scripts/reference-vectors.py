#!/usr/bin/env python3
"""Reference sentence vectors for the semantic tests (tests/fixtures/semantic/reference.json).

An independent reimplementation of sentence-transformers' all-MiniLM-L6-v2 pipeline in numpy
(BERT encoder, mean pooling over the attention mask, L2 normalisation), run once over the
model folder that scripts/fetch-test-model.sh unpacks. The Rust code (src/embed/) is checked
against its output; the two share nothing but the model files.

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy tokenizers safetensors
    /tmp/ref/bin/python scripts/reference-vectors.py target/test-model > tests/fixtures/semantic/reference.json
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "convert a PDF file to plain text",
    "extract the tables from scanned PDF documents",
    "knit a sweater for my grandmother",
    "I want to exchange my 1000 Russian Rubles to Chinese Yuan, how much will I get?",
    "currency exchange rates between two currencies",
    "Café déjà vu: naïve résumé",
    # Long enough to be cut at 256 tokens.
    " ".join(["the quick brown fox jumps over the lazy dog"] * 40),
]

erf = np.vectorize(math.erf)


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def linear(x, w, b):
    return x @ w.T + b


def embed(weights, config, ids):
    n = len(ids)
    heads = config["num_attention_heads"]
    hidden = config["hidden_size"]
    eps = config["layer_norm_eps"]
    head = hidden // heads
    x = (
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.position_embeddings.weight"][:n]
        + weights["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"], eps)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        w = lambda name: weights[p + name]
        q = linear(x, w("attention.self.query.weight"), w("attention.self.query.bias"))
        k = linear(x, w("attention.self.key.weight"), w("attention.self.key.bias"))
        v = linear(x, w("attention.self.value.weight"), w("attention.self.value.bias"))
        q, k, v = (t.reshape(n, heads, head).transpose(1, 0, 2) for t in (q, k, v))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
        attention = linear(context, w("attention.output.dense.weight"), w("attention.output.dense.bias"))
        x = layer_norm(x + attention, w("attention.output.LayerNorm.weight"), w("attention.output.LayerNorm.bias"), eps)
        inner = linear(x, w("intermediate.dense.weight"), w("intermediate.dense.bias"))
        inner = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2.0)))
        out = linear(inner, w("output.dense.weight"), w("output.dense.bias"))
        x = layer_norm(x + out, w("output.LayerNorm.weight"), w("output.LayerNorm.bias"), eps)
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def main():
    folder = sys.argv[1]
    config = json.load(open(f"{folder}/config.json"))
    weights = {k: v.astype(np.float64) for k, v in load_file(f"{folder}/model.safetensors").items()}
    tokenizer = Tokenizer.from_file(f"{folder}/tokenizer.json")
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    rows, vectors = [], []
    for text in SENTENCES:
        ids = tokenizer.encode(text).ids
        vector = embed(weights, config, ids)
        vectors.append(vector)
        rows.append({"text": text, "tokens": len(ids), "first": [round(float(c), 6) for c in vector[:8]]})
    cosines = [
        [round(float(a @ b), 6) for b in vectors] for a in vectors
    ]
    json.dump({"sentences": rows, "cosines": cosines}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
