"""This process's counters and histograms, written out in Prometheus' text format (``/metrics``).

The text format is a few lines per series, so it is written here rather than pulled in as a
dependency. Labels only ever hold names chosen by the code — a channel, a mode, a kind of error
or token, a reason — never a member's words, a memory or an id: a scrape is safe to ship to a
monitoring system. Counters may be bumped from any thread (a lock guards them); gauges are read
when scraped, by functions the app registers (``Registry.gauge``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence

Labels = tuple[str, ...]
Sample = tuple[dict[str, str], float]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: Sequence[str], values: Iterable[str], extra: str = "") -> str:
    pairs = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class Counter:
    def __init__(self, name: str, help: str, labels: Labels, lock: threading.Lock) -> None:
        self.name, self.help, self.labelnames = name, help, labels
        self._values: dict[Labels, float] = {}
        self._lock = lock

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        key = tuple(labels[n] for n in self.labelnames)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def value(self, **labels: str) -> float:
        return self._values.get(tuple(labels[n] for n in self.labelnames), 0.0)

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        with self._lock:
            items = sorted(self._values.items())
        return lines + [f"{self.name}{_labels(self.labelnames, k)} {_number(v)}" for k, v in items]


class Histogram:
    def __init__(
        self, name: str, help: str, labels: Labels, buckets: Sequence[float], lock: threading.Lock
    ) -> None:
        self.name, self.help, self.labelnames = name, help, labels
        self.buckets = (*sorted(buckets), math.inf)
        self._series: dict[Labels, tuple[list[int], list[float]]] = {}  # counts per bucket, [sum]
        self._lock = lock

    def observe(self, value: float, **labels: str) -> None:
        key = tuple(labels[n] for n in self.labelnames)
        with self._lock:
            counts, total = self._series.setdefault(key, ([0] * len(self.buckets), [0.0]))
            total[0] += value
            for i, upper in enumerate(self.buckets):
                if value <= upper:
                    counts[i] += 1

    def count(self, **labels: str) -> int:
        found = self._series.get(tuple(labels[n] for n in self.labelnames))
        return found[0][-1] if found else 0

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        with self._lock:
            items = sorted((k, (list(c), s[0])) for k, (c, s) in self._series.items())
        for key, (counts, total) in items:
            for upper, n in zip(self.buckets, counts, strict=True):
                le = f'le="{_number(upper)}"'
                lines.append(f"{self.name}_bucket{_labels(self.labelnames, key, le)} {n}")
            lines.append(f"{self.name}_sum{_labels(self.labelnames, key)} {_number(total)}")
            lines.append(f"{self.name}_count{_labels(self.labelnames, key)} {counts[-1]}")
        return lines


Gauge = Callable[[], list[Sample]]


class Registry:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._metrics: list[Counter | Histogram] = []
        self._gauges: dict[str, tuple[str, Gauge]] = {}

    def counter(self, name: str, help: str, labels: Labels = ()) -> Counter:
        made = Counter(name, help, labels, self._lock)
        self._metrics.append(made)
        return made

    def histogram(self, name: str, help: str, labels: Labels, buckets: Sequence[float]) -> Histogram:
        made = Histogram(name, help, labels, buckets, self._lock)
        self._metrics.append(made)
        return made

    def gauge(self, name: str, help: str, read: Gauge) -> None:
        """A value read at each scrape (say, a queue's depth from the database); replaces one of that name."""
        self._gauges[name] = (help, read)

    def forget_gauges(self) -> None:
        self._gauges.clear()

    def render(self) -> str:
        lines: list[str] = []
        for metric in self._metrics:
            lines += metric.render()
        for name, (help, read) in sorted(self._gauges.items()):
            lines += [f"# HELP {name} {help}", f"# TYPE {name} gauge"]
            for labels, value in read():
                lines.append(f"{name}{_labels(list(labels), labels.values())} {_number(value)}")
        return "\n".join(lines) + "\n"


REGISTRY = Registry()
TURN_SECONDS = REGISTRY.histogram(
    "shitsuji_turn_seconds",
    "Chat turns by channel and mode, from claim to answer (or failure).",
    ("channel", "mode", "outcome"),
    (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0),
)
MODEL_ERRORS = REGISTRY.counter(
    "shitsuji_model_errors_total", "Turns that failed on the model, by kind of error.", ("kind",)
)
MODEL_RETRIES = REGISTRY.counter(
    "shitsuji_model_retries_total", "Model requests the client sent again (timeouts, 429, 5xx, overloaded)."
)
MODEL_TOKENS = REGISTRY.counter(
    "shitsuji_model_tokens_total",
    "Tokens the model counted: input, output, cache_read (input read from the prompt cache), cache_write.",
    ("kind",),
)
SIGN_IN_REFUSALS = REGISTRY.counter(
    "shitsuji_sign_in_refusals_total",
    "Refused sign-ins: wrong user or password, or rate-limited.",
    ("reason",),
)
LOOP_LAG = REGISTRY.histogram(
    "shitsuji_event_loop_lag_seconds",
    "How late the event loop woke a short sleep (every 50 ms): how long something held the loop.",
    (),
    (0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
)
