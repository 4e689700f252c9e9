"""PyTorch models run by ONNX Runtime: the claim checker's and the sentence embedder's forward
passes, faster on a CPU than PyTorch's with the same numbers (the checker 2.5x on two cores,
its probabilities within 3e-6 on 332 answer-point pairs). Each graph is exported from the
loaded model in memory when first needed (about a second), so no second copy of the weights
ships or is cached on disk; where ONNX Runtime or the exporter is missing or fails, PyTorch
runs the model as before.
"""

from __future__ import annotations

import io
import logging
import warnings
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_session(model: Any, tokenizer: Any, output: str, what: str) -> Any | None:
    """An ONNX Runtime session computing `model`'s `output` (batch first; token states also
    tokens second) from the three BERT inputs, or None (PyTorch runs `what`)."""
    try:
        import onnxruntime as ort
        import torch
    except ImportError:
        log.warning("onnxruntime is not installed: the %s runs in PyTorch (slower)", what)
        return None
    example = tokenizer(["a b"], ["c"], return_tensors="pt")
    buf = io.BytesIO()
    axes = {k: {0: "batch", 1: "tokens"} for k in (*INPUTS, output)}
    if output == "logits":
        axes[output] = {0: "batch"}
    try:
        with warnings.catch_warnings(), torch.inference_mode(False):
            warnings.simplefilter("ignore")  # the exporter's tracer notes
            torch.onnx.export(
                model,
                tuple(example[k] for k in INPUTS),
                buf,  # type: ignore[arg-type]  # a file object: nothing on disk
                input_names=list(INPUTS),
                output_names=[output],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
    except Exception as e:  # an exporter that cannot trace this build: PyTorch runs it
        log.warning("the %s could not be exported to ONNX (%s): using PyTorch", what, e)
        return None
    options = ort.SessionOptions()
    # As many threads as PyTorch would use; no spinning between calls, which would take the
    # cores from the other model and numpy between batches.
    options.intra_op_num_threads = torch.get_num_threads()
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return ort.InferenceSession(buf.getvalue(), options, providers=["CPUExecutionProvider"])


def run(session: Any, encoded: Any) -> np.ndarray:
    """The session's output for a tokenized batch (numpy or torch tensors)."""
    feed = {k: np.asarray(encoded[k], dtype=np.int64) for k in INPUTS}
    return session.run(None, feed)[0]
