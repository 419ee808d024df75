"""Every labelled prompt's vector under the first model (``use``) and the second (e5), for nearest-prompt
rules: ``hk28_prompt_vectors.py OUT.pkl`` -> {prompt: (use vector, e5 vector)}."""

from __future__ import annotations

import pickle
import sys

from shitsuji.hooks._second import SECOND_MODEL
from shitsuji.memory import load_embedder

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hk28_hook_null_dump import every_prompt

prompts = every_prompt()
first, second = load_embedder("use"), load_embedder(SECOND_MODEL)
out = {p: (first.embed_query(p), second.embed_query(p)) for p in prompts}
with open(sys.argv[1], "wb") as f:
    pickle.dump(out, f)
print(len(out))
