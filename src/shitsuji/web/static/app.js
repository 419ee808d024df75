// shitsuji web: progressive enhancement over the server-rendered pages.
// Chat replies stream (server-sent events over fetch), cards are decided in place,
// panels open without a reload and refresh when the household changes.
"use strict";

// first run: the household's time zone defaults to the browser's
(function () {
  const picker = document.querySelector("select[data-browser-zone]:not([data-chosen])");
  if (!picker || !window.Intl) return;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (Array.from(picker.options).some((o) => o.value === zone)) picker.value = zone;
})();

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

  function scrollDown() {
    messages.scrollTop = messages.scrollHeight;
  }

  // what the tools do, in the page's language (as _i18n.Words.tools writes it)
  function toolWords(names) {
    const shown = [];
    for (const name of names) {
      const word = words["tool_" + name] || name;
      if (shown.indexOf(word) < 0) shown.push(word);
    }
    return shown.join(document.body.dataset.lang === "ja" ? "・" : ", ");
  }

  function showProgress(text) {
    progress.hidden = !text;
    progress.textContent = text || "";
  }

  // a chat failure in the page's language; the server's own (technical, English) words stay folded
  // under "details", so a Japanese page reads Japanese
  function errorLine(text, detail) {
    const li = el("li", "msg error");
    const bubble = el("div", "bubble", text);
    if (detail && detail !== text) {
      const folded = el("details", "detail");
      folded.appendChild(el("summary", "", words.details));
      folded.appendChild(el("small", "", detail));
      bubble.appendChild(folded);
    }
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

  // a card as the server renders one (_card.html), from its "view": the words are the server's,
  // in the page's language and the household's time zone
  function detailsNode(p) {
    const details = el("details", "args");
    details.appendChild(el("summary", "", words.details));
    const ids = el("p", "muted");
    ids.appendChild(el("code", "", p.tool));
    ids.appendChild(document.createTextNode(" · "));
    ids.appendChild(el("code", "", p.id));
    details.appendChild(ids);
    details.appendChild(el("pre", "", JSON.stringify(p.input, null, 2)));
    if (p.view.detail) details.appendChild(el("pre", "detail", p.view.detail));
    return details;
  }

  function cardNode(p) {
    const v = p.view;
    const article = el("article", "proposal state-" + v.state);
    article.dataset.proposal = p.id;
    const header = el("header");
    header.appendChild(el("span", "tag", words.confirm));
    header.appendChild(document.createTextNode(" "));
    header.appendChild(el("strong", "title", v.title));
    article.appendChild(header);
    if (v.fields.length) {
      const dl = el("dl", "fields");
      for (const f of v.fields) {
        dl.appendChild(el("dt", "", f.label));
        dl.appendChild(el("dd", "", f.value));
      }
      article.appendChild(dl);
    }
    const footer = el("footer");
    const expiry = el("span", "muted expiry", words.expires + " ");
    const time = el("time", "", v.expires);
    time.setAttribute("datetime", p.expires_at);
    expiry.appendChild(time);
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
    article.appendChild(detailsNode(p));
    return article;
  }

  // the card as the server renders a decided one: state, who and when, the outcome
  function settle(article, data) {
    const p = data.proposal;
    const v = p.view;
    article.className = "proposal state-" + v.state;
    const footer = article.querySelector("footer");
    footer.textContent = "";
    footer.appendChild(el("span", "status", v.state_text));
    if (v.decided) footer.appendChild(el("span", "muted decided", v.decided));
    const note = data.done ? v.outcome : data.reason_text;
    if (note) footer.appendChild(el("p", "result", note));
    article.querySelector("details.args").replaceWith(detailsNode(p));
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

  // one key per composed message: sending the same words again after a failure reuses it, so the
  // server stores them once. The words stay in the box until the reply has come.
  let draft = { text: null, key: null };

  function keyFor(text) {
    if (draft.text !== text) {
      const bytes = new Uint8Array(12);
      crypto.getRandomValues(bytes);
      draft = { text: text, key: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") };
    }
    return draft.key;
  }

  function showMine(text, key, sending) {
    if (messages.querySelector('[data-key="' + key + '"]')) return; // a retry: shown already
    const mine = el("li", "msg user");
    mine.dataset.key = key;
    const bubble = el("div", "bubble");
    if (sending.length) {
      const row = el("div", "pictures");
      for (const p of sending) {
        const img = el("img", "picture");
        img.src = p.url;
        img.alt = p.file.name || words.attach_picture;
        row.appendChild(img);
      }
      bubble.appendChild(row);
    }
    if (text) bubble.appendChild(document.createTextNode(text));
    mine.appendChild(bubble);
    messages.appendChild(mine);
  }

  // -- pictures ----------------------------------------------------------------
  // photos wait in the composer (the ＋写真 button, paste, or drag and drop) and go with the words. The
  // page refuses another type, a file over 5 MB or a fifth picture in its own words; the server checks
  // again, by the bytes (a damaged file, too many pixels). Nothing is cleared until the reply has come.

  const PICTURE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
  const PICTURE_MAX_MB = 5;
  const MAX_PICTURES = 4;
  const attachments = document.getElementById("attachments");
  const picker = document.getElementById("picture-input");
  const attach = document.getElementById("attach");
  const box = composer.querySelector("textarea");
  let pictures = []; // { file, url } in the order they were added

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  function addPictures(files) {
    for (const file of files) {
      if (PICTURE_TYPES.indexOf(file.type) < 0) {
        errorLine(fill(words.picture_type, { name: file.name || file.type }));
      } else if (file.size > PICTURE_MAX_MB * 1024 * 1024) {
        errorLine(fill(words.picture_size, { mb: (file.size / 1024 / 1024).toFixed(1), limit: PICTURE_MAX_MB }));
      } else if (pictures.length >= MAX_PICTURES) {
        errorLine(fill(words.picture_many, { limit: MAX_PICTURES }));
        break;
      } else pictures.push({ file: file, url: URL.createObjectURL(file) });
    }
    showPictures();
  }

  function showPictures() {
    attachments.textContent = "";
    pictures.forEach(function (p, i) {
      const li = el("li");
      const img = el("img");
      img.src = p.url;
      img.alt = p.file.name || words.attach_picture;
      const remove = el("button", "remove", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", words.remove_picture);
      remove.addEventListener("click", function () {
        URL.revokeObjectURL(p.url);
        pictures.splice(i, 1);
        showPictures();
      });
      li.appendChild(img);
      li.appendChild(remove);
      attachments.appendChild(li);
    });
    attachments.hidden = pictures.length === 0;
    box.required = pictures.length === 0; // a photo alone may be sent
  }

  function picturesSigned(sending) {
    return sending.map((p) => [p.file.name, p.file.size, p.file.lastModified].join(":")).join("|");
  }

  function upload(text, key, sending) {
    const form = new FormData();
    form.append("message", text);
    if (conversation) form.append("conversation", conversation);
    form.append("key", key);
    for (const p of sending) form.append("pictures", p.file, p.file.name || "picture");
    return fetch("/api/chat/picture", {
      method: "POST",
      headers: { "X-CSRF-Token": csrf, Accept: "application/json" },
      body: form,
      credentials: "same-origin",
    });
  }

  attach.hidden = false;
  attach.addEventListener("click", () => picker.click());
  picker.addEventListener("change", function () {
    addPictures(Array.from(picker.files));
    picker.value = "";
  });
  box.addEventListener("paste", function (event) {
    const files = Array.from((event.clipboardData && event.clipboardData.files) || []);
    if (!files.length) return;
    if (!event.clipboardData.getData("text")) event.preventDefault();
    addPictures(files);
  });
  function carriesFiles(event) {
    return event.dataTransfer && Array.from(event.dataTransfer.types).indexOf("Files") >= 0;
  }
  composer.addEventListener("dragover", function (event) {
    if (!carriesFiles(event) || box.disabled) return;
    event.preventDefault();
    composer.classList.add("dropping");
  });
  composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
  composer.addEventListener("drop", function (event) {
    composer.classList.remove("dropping");
    if (!carriesFiles(event) || box.disabled) return;
    event.preventDefault();
    addPictures(Array.from(event.dataTransfer.files));
  });

  composer.addEventListener("submit", async function (event) {
    event.preventDefault();
    const button = composer.querySelector("button[type=submit]");
    const text = box.value.trim();
    const sending = pictures.slice();
    if ((!text && !sending.length) || box.readOnly) return;
    const key = keyFor(text + "\n" + picturesSigned(sending));
    const hint = messages.querySelector(".hint");
    if (hint) hint.remove();
    showMine(text, key, sending);
    box.readOnly = true;
    button.disabled = true;
    showProgress(words.thinking);
    let reply = null;
    let streamed = false;
    let finished = false;
    scrollDown();
    try {
      const response = sending.length
        ? await upload(text, key, sending)
        : await api("POST", "/api/chat", { message: text, conversation: conversation, key: key });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        const problem = sending.length && response.status === 413 ? words.picture_413 : chatProblem(response.status);
        errorLine(data.message || problem, data.error);
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
            showProgress(words.running_tools.replace("{tools}", toolWords(data.names)));
            const li = el("li", "msg assistant");
            li.appendChild(el("div", "tools muted", "⚙ " + toolWords(data.names)));
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
            finished = true;
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
    } finally {
      if (finished) {
        box.value = "";
        draft = { text: null, key: null };
        pictures = pictures.filter((p) => sending.indexOf(p) < 0); // added while it ran: kept
        showPictures();
      }
      box.readOnly = false;
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

  // the budget panel's month stays as chosen across live refreshes
  let month = null;

  async function loadPanel(name, keep) {
    const query = name === "budget" && month ? "?month=" + month : "";
    const response = await fetch("/panels/" + name + query, { credentials: "same-origin" });
    if (!response.ok) return;
    const html = await response.text();
    // what is typed is read when the panel is redrawn, not when it was asked for: a live refresh asked
    // for during the member's own add would otherwise bring back the fields of the add just made
    const content = document.getElementById("panel-content");
    const typing = keep ? typed(content) : [];
    content.innerHTML = html;
    retype(content, typing);
  }

  // A live refresh redraws the panel because something changed elsewhere (the spouse, LINE):
  // what this person was typing in its forms, and where, stays. A form is known again by what
  // it does (its action and hidden fields), not by its place: rows come and go around it.
  function formKey(form) {
    const hidden = [...form.querySelectorAll("input[type=hidden]")]
      .filter((input) => input.name !== "csrf" && input.name !== "back")
      .map((input) => input.name + "=" + input.value);
    return form.getAttribute("action") + "?" + hidden.join("&");
  }

  function typed(root) {
    const kept = [];
    for (const form of root.querySelectorAll("form")) {
      for (const field of form.elements) {
        if (!field.name || field.type === "hidden" || field.type === "submit") continue;
        const focused = field === document.activeElement;
        const changed = field.type === "checkbox" || field.type === "radio"
          ? field.checked !== field.defaultChecked
          : field.tagName === "SELECT"
            ? [...field.options].some((option) => option.selected !== option.defaultSelected)
            : field.value !== field.defaultValue;
        if (!changed && !focused) continue;
        let start = null, end = null;
        try { start = field.selectionStart; end = field.selectionEnd; } catch (err) { /* no caret here */ }
        kept.push({ form: formKey(form), name: field.name, value: field.value, checked: field.checked,
          focused: focused, start: start, end: end });
      }
    }
    return kept;
  }

  function retype(root, kept) {
    if (!kept.length) return;
    const forms = new Map([...root.querySelectorAll("form")].map((form) => [formKey(form), form]));
    for (const k of kept) {
      const form = forms.get(k.form);
      let field = form && form.elements.namedItem(k.name);
      // a box per choice under one name (a recurring to-do's weekdays): the one with this value
      if (field instanceof RadioNodeList) field = [...field].find((one) => one.value === k.value) || null;
      if (!field) continue;
      if (field.type === "checkbox" || field.type === "radio") field.checked = k.checked;
      else field.value = k.value;
      if (k.focused) {
        field.focus();
        try { if (k.start !== null) field.setSelectionRange(k.start, k.end); } catch (err) { /* no caret here */ }
      }
    }
  }

  // a person's own change on a panel (tick, complete, delete, add): sent as JSON, then the panel
  // is drawn again; the spouse's page hears of it through /api/events
  async function act(form) {
    const body = {};
    // a field with a box per choice (a recurring to-do's weekdays) is a list, even of one
    const many = new Set(Array.from(form.querySelectorAll("[data-many]"), (field) => field.name));
    for (const name of many) body[name] = [];
    for (const [name, value] of new FormData(form)) {
      if (name === "csrf" || name === "back" || value === "") continue;
      if (many.has(name)) body[name].push(value);
      else body[name] = value;
    }
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    let problem = null;
    try {
      const response = await api("POST", "/api/panel-actions", body);
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        // the server's reason in the page's language when it has one (a recurring to-do's rule)
        problem = data.message || (words["panel_" + response.status] || words.error + " " + response.status) +
          (data.error ? " (" + data.error + ")" : "");
      }
    } catch (err) {
      problem = words.error + ": " + err;
    }
    await loadPanel(side.dataset.open, problem !== null);  // a refused add keeps what was typed
    if (problem) {
      const note = el("p", "alert panel-problem", problem);
      note.setAttribute("role", "alert");
      document.getElementById("panel-content").prepend(note);
    } else {
      const first = document.querySelector("#panel-content .adder input:not([type=hidden])");
      if (first && form.classList.contains("adder")) first.focus();
    }
  }

  side.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-act")) return;
    event.preventDefault();
    act(form);
  });

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
    const link = event.target.closest("a[data-month]");
    if (link) {
      event.preventDefault();
      month = link.dataset.month;
      loadPanel("budget");
      return;
    }
    const button = event.target.closest("button");
    // a panel's own forms: its actions (data-act) and the forms that make a card (data-card: NISA)
    if (!button || button.closest("[data-act], [data-card]")) return;
    event.preventDefault();
    if (button.hasAttribute("data-panel-close")) openPanel(null);
    else openPanel(side.dataset.open === button.dataset.panel ? null : button.dataset.panel);
  });

  // live updates: the server says when the household's lists changed. "hello" starts every
  // connection (and reconnection): a change made before it would otherwise go unseen.
  if (window.EventSource) {
    const events = new EventSource("/api/events");
    const refresh = function () {
      if (side.dataset.open) loadPanel(side.dataset.open, true);  // keeps what is being typed
    };
    events.addEventListener("hello", refresh);
    events.addEventListener("household", refresh);
  }
  scrollDown();
})();
