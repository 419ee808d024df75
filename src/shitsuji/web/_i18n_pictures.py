"""The words of pictures in the chat (attach, remove, and why one is refused), ja and en.

Kept apart from ``_i18n.TEXT`` like the domains' words; ``_i18n`` merges them in. The refusals
are the server's (``_pictures``) and the page's own checks before an upload, in the same words.
"""

from __future__ import annotations

PICTURE_TEXT: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "picture": ("写真", "Photo"),
    # the member's words when a photo comes alone: what LINE's channel says then (line/_words.py; two
    # channels borrow nothing from each other, so each keeps its own sentence)
    "picture_said": (
        "（写真を送りました。レシートなら支出に、リストなら買い物リストに追加を提案してください。）",
        "(I sent a photo. If it is a receipt, propose the expense; if it is a list, propose the items.)",
    ),
    "attach_picture": ("写真を添付", "Attach a picture"),
    "remove_picture": ("この写真を外す", "Remove this picture"),
    "picture_drop": ("ここに写真をドロップ", "Drop the picture here"),
    "picture_type": (
        "送れる写真は JPEG・PNG・GIF・WebP だけです（{name}）。",
        "Only JPEG, PNG, GIF or WebP pictures can be sent ({name}).",
    ),
    "picture_size": (
        "写真が大きすぎます（{mb} MB）。1枚 {limit} MB までにしてください。",
        "The picture is too large ({mb} MB): {limit} MB each at most.",
    ),
    "picture_side": (
        "写真の画素数が多すぎます（{width}×{height}）。一辺 {limit} ピクセルまでです。",
        "The picture has too many pixels ({width}×{height}): at most {limit} on a side.",
    ),
    "picture_corrupt": (
        "写真が壊れているか途中で切れているため読めません（{name}）。保存し直してから送ってください。",
        "The picture is damaged or cut off and cannot be read ({name}): save it again and resend.",
    ),
    "picture_many": (
        "一度に送れる写真は {limit} 枚までです。",
        "At most {limit} pictures can be sent at once.",
    ),
    "picture_413": (
        "写真が大きすぎて送れません。1枚 5 MB・一度に 4 枚までです。",
        "The pictures are too large to send: 5 MB each, 4 at once at most.",
    ),
}
