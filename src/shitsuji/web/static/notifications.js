// The notifications page, live: when the household's event stream says something changed (the
// scheduler added a notification, say), the list is read again from /api/notifications.
"use strict";
(function () {
  const list = document.getElementById("notifications");
  if (!list || !window.EventSource) return;
  const late = list.dataset.late;
  const render = function (items) {
    if (!items.length) return;
    list.replaceChildren(...items.map(function (n) {
      const row = document.createElement("li");
      if (!n.read) row.className = "unread";
      const text = document.createElement("span");
      text.className = "note-text";
      text.textContent = n.text;
      const when = document.createElement("span");
      when.className = "muted";
      when.textContent = n.when + (n.late ? " · " + late : "");
      row.append(text, when);
      return row;
    }));
  };
  const refresh = function () {
    fetch("/api/notifications", { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (data) { if (data) render(data.notifications); });
  };
  const events = new EventSource("/api/events");
  events.addEventListener("household", refresh);
})();
