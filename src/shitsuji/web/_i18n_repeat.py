"""The words of the to-do panel's "repeat" choice (a recurring to-do, a garbage day) and of its
refusals, ja and en.

Kept apart from ``_i18n.TEXT`` like the domains' words; ``_i18n`` merges them in. The refusal
keys are those ``household.panel_rule`` raises.
"""

from __future__ import annotations

REPEAT_TEXT: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "repeat_none": ("繰り返さない", "Does not repeat"),
    "repeat_weekly": ("毎週", "Weekly"),
    "repeat_monthly_weekday": ("毎月 第◯◯曜日", "Monthly: nth weekday"),
    "repeat_monthly_day": ("毎月 ◯日", "Monthly: a day"),
    "repeat_weekdays": ("曜日", "Weekdays"),
    "repeat_weeks": ("週", "Weeks of the month"),
    "repeat_week_names": ("第1,第2,第3,第4,第5", "1st,2nd,3rd,4th,5th"),
    "repeat_day": ("日にち", "Day of the month"),
    "repeat_last_day": ("末日", "Last day"),
    "repeat_weekday_names": ("月,火,水,木,金,土,日", "Mon,Tue,Wed,Thu,Fri,Sat,Sun"),
    "repeat_no_weekday": ("繰り返す曜日を選んでください。", "Choose the weekdays it repeats on."),
    "repeat_bad_weekday": (
        "曜日「{value}」はわかりません。月〜日から選んでください。",
        "The weekday “{value}” is not known: choose from Mon to Sun.",
    ),
    "repeat_no_week": (
        "毎月第何週か（第1〜第5）を選んでください。",
        "Choose which weeks of the month (1st to 5th).",
    ),
    "repeat_bad_week": (
        "第何週かは1〜5で選んでください（「{value}」は選べません）。",
        "The week of the month must be from 1 to 5 (not “{value}”).",
    ),
    "repeat_no_day": (
        "毎月何日かを選んでください（末日も選べます）。",
        "Choose the day of the month (or the last day).",
    ),
    "repeat_bad_day": (
        "日にちは1〜31で選んでください（31は末日。「{value}」は選べません）。",
        "The day of the month must be from 1 to 31 (31: the last day; not “{value}”).",
    ),
    "todo_bad_time": (
        "時刻「{value}」はわかりません。07:30 のように入れてください。",
        "The time “{value}” is not a time of day: use HH:MM, e.g. 07:30.",
    ),
    "field_time": ("時刻", "Time"),
}
