// shitsuji web: progressive enhancement over the server-rendered pages.
// Chat replies stream (server-sent events over fetch), cards are decided in place,
// panels open without a reload and refresh when the household changes.
"use strict";

(function () {
  const csrf = document.body.dataset.csrf || "";
  const chat = document.querySelector(".chat");
  if (!chat) return;
  const words = JSON.parse(document.getElementById("i18n").innerHTML);
  const messages = document.getElementById("messages");
  const progress = document.getElementById("progress");
  const composer = document.getElementById("composer");
  const side = document.getElementById("panels");
  const panel = document.getElementById("panel");
  let conversation = chat.dataset.conversation;

  function api(method, url, body) {
    return fetch(url, {
      method: method,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // dates as the server writes them (_i18n.Words.when): "12月1日(火) 06:48" / "Tue 01 Dec 06:48"
  function when(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return "";
    const pad = (n) => String(n).padStart(2, "0");
    const time = pad(d.getHours()) + ":" + pad(d.getMinutes());
    if (document.body.dataset.lang === "ja") {
      return (d.getMonth() + 1) + "月" + d.getDate() + "日(" + "日月火水木金土"[d.getDay()] + ") " + time;
    }
    const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    return days[d.getDay()] + " " + pad(d.getDate()) + " " + months[d.getMonth()] + " " + time;
  }

  function scrollDown() {
    messages.scrollTop = messages.scrollHeight;
    window.scrollTo(0, document.body.scrollHeight);
  }

  function showProgress(text) {
    progress.hidden = !text;
    progress.textContent = text || "";
  }

  // a chat failure in the page's language, with the server's own words underneath
  function errorLine(text, detail) {
    const li = el("li", "msg error");
    const bubble = el("div", "bubble", text);
    if (detail && detail !== text) bubble.appendChild(el("small", "detail", detail));
    li.appendChild(bubble);
    messages.appendChild(li);
    scrollDown();
  }

  function chatProblem(status, kind) {
    if (kind === "InternalError") return words.chat_internal;
    if (kind && kind.indexOf("Model") === 0) return words.chat_model_failed;
    return words["chat_" + status] || words.error + " " + status;
  }

  // -- cards -----------------------------------------------------------------

  function cardNode(p) {
    const article = el("article", "proposal state-" + p.state);
    article.dataset.proposal = p.id;
    const header = el("header");
    header.appendChild(el("span", "tag", words.confirm));
    header.appendChild(document.createTextNode(" "));
    header.appendChild(el("strong", "", p.summary));
    article.appendChild(header);
    const details = el("details", "args");
    const summary = el("summary", "", words.arguments + " · ");
    summary.appendChild(el("code", "", p.tool));
    details.appendChild(summary);
    details.appendChild(el("pre", "", JSON.stringify(p.input, null, 2)));
    article.appendChild(details);
    const footer = el("footer");
    const expiry = el("span", "muted expiry", words.expires + " ");
    expiry.appendChild(el("time", "", when(p.expires_at)));
    footer.appendChild(expiry);
    for (const verb of ["approve", "reject"]) {
      const form = el("form", "inline");
      form.method = "post";
      form.action = "/proposals/" + p.id + "/" + verb;
      form.dataset.decide = verb;
      const button = el("button", verb === "approve" ? "primary" : "", words[verb]);
      button.type = "submit";
      form.appendChild(button);
      footer.appendChild(form);
    }
    article.appendChild(footer);
    return article;
  }

  // the card as the server renders a decided one (_card.html): state, who and when, the result
  function settle(article, data) {
    const p = data.proposal;
    article.className = "proposal state-" + p.state;
    const footer = article.querySelector("footer");
    footer.textContent = "";
    footer.appendChild(el("span", "status", words["status_" + p.state] || p.state));
    if (p.decided_by) {
      const who = el("span", "muted", words.decided_by.replace("{who}", p.decided_by) + " · ");
      who.appendChild(el("time", "", when(p.decided_at)));
      footer.appendChild(who);
    }
    const note = data.done ? p.result : data.reason;
    if (note) footer.appendChild(el("p", "result", note));
    // an approved open_panel card: the server opened the panel in the card's conversation
    if (data.panel && side && p.conversation === conversation) openPanel(data.panel);
  }

  document.addEventListener("submit", async function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.decide) return;
    event.preventDefault();
    const article = form.closest("[data-proposal]");
    const buttons = article.querySelectorAll("button");
    for (const b of buttons) b.disabled = true;
    let data = {};
    try {
      const response = await api("POST", "/api/proposals/" + article.dataset.proposal + "/" + form.dataset.decide);
      data = await response.json().catch(() => ({ error: words.error + " " + response.status }));
    } catch (err) {
      data = { error: words.error + ": " + err };
    }
    if (data.proposal) settle(article, data);
    else {
      for (const b of buttons) b.disabled = false;
      errorLine(data.error || words.error);
    }
  });

  // -- chat ------------------------------------------------------------------

  function parseEvents(buffer, handle) {
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) handle(name, JSON.parse(data.join("\n")));
    }
    return buffer;
  }

  composer.addEventListener("submit", async function (event) {
    event.preventDefault();
    const box = composer.querySelector("textarea");
    const button = composer.querySelector("button");
    const text = box.value.trim();
    if (!text) return;
    const hint = messages.querySelector(".hint");
    if (hint) hint.remove();
    const mine = el("li", "msg user");
    mine.appendChild(el("div", "bubble", text));
    messages.appendChild(mine);
    box.value = "";
    button.disabled = true;
    showProgress(words.thinking);
    let reply = null;
    let streamed = false;
    scrollDown();
    try {
      const response = await api("POST", "/api/chat", { message: text, conversation: conversation });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        errorLine(chatProblem(response.status), data.error);
        box.value = text;
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer = parseEvents(buffer + decoder.decode(chunk.value, { stream: true }), function (name, data) {
          if (name === "conversation") conversation = data.id;
          else if (name === "tools") {
            showProgress(words.running_tools.replace("{tools}", data.names.join(", ")));
            const li = el("li", "msg assistant");
            li.appendChild(el("div", "tools muted", "⚙ " + data.names.join(", ")));
            messages.appendChild(li);
            reply = null;
          }
          else if (name === "text") {
            if (!reply) {
              const li = el("li", "msg assistant");
              reply = el("div", "bubble");
              li.appendChild(reply);
              messages.appendChild(li);
            }
            reply.textContent += data.text;
            streamed = true;
            showProgress("");
          } else if (name === "proposal") {
            const li = el("li", "msg card-item");
            li.appendChild(cardNode(data));
            messages.appendChild(li);
            reply = null;
          } else if (name === "panel") openPanel(data.open_panel);
          else if (name === "done") {
            if (!streamed && data.text) {
              const li = el("li", "msg assistant");
              li.appendChild(el("div", "bubble", data.text));
              messages.appendChild(li);
            }
          } else if (name === "error") errorLine(chatProblem(0, data.kind), data.error);
          scrollDown();
        });
      }
    } catch (err) {
      errorLine(words.error + ": " + err);
      box.value = text;
    } finally {
      button.disabled = false;
      showProgress("");
      box.focus();
    }
  });

  composer.querySelector("textarea").addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });

  // -- panels ----------------------------------------------------------------

  async function loadPanel(name) {
    const response = await fetch("/panels/" + name, { credentials: "same-origin" });
    if (response.ok) document.getElementById("panel-content").innerHTML = await response.text();
  }

  function markTabs(name) {
    for (const button of side.querySelectorAll("[data-panel]")) {
      const on = button.dataset.panel === name;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.form.querySelector("[name=name]").value = on ? "" : button.dataset.panel;
    }
  }

  async function openPanel(name) {
    const response = await api("PUT", "/api/panel", { name: name, conversation: conversation });
    if (!response.ok) return;
    side.dataset.open = name || "";
    markTabs(name);
    if (!name) {
      panel.hidden = true;
      return;
    }
    document.getElementById("panel-title").textContent = words["panel_" + name];
    await loadPanel(name);
    panel.hidden = false;
  }

  side.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button) return;
    event.preventDefault();
    if (button.hasAttribute("data-panel-close")) openPanel(null);
    else openPanel(side.dataset.open === button.dataset.panel ? null : button.dataset.panel);
  });

  // live updates: the server says when the household's lists changed. "hello" starts every
  // connection (and reconnection): a change made before it would otherwise go unseen.
  if (window.EventSource) {
    const events = new EventSource("/api/events");
    const refresh = function () {
      if (side.dataset.open) loadPanel(side.dataset.open);
    };
    events.addEventListener("hello", refresh);
    events.addEventListener("household", refresh);
  }
  scrollDown();
})();
