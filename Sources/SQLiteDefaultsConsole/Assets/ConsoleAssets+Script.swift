#if Console
extension ConsoleAssets {
    /// The page's script: plain JavaScript, no framework, no build step. Every key and value
    /// reaches the page through `textContent` and attribute setters, never as markup. It asks
    /// `api/session` who it is: a `read` token gets no edit, remove or add controls; a `write`
    /// token gets them only on the keys it may change (the API refuses the others anyway).
    /// A save sends the reason typed beside it and `If-Match` with the version the editor was
    /// opened on; a 412 shows the newer value and who made it (`[data-role=conflict]`) and
    /// keeps the edit, so a second save (on the new version) or cancel is the operator's
    /// choice. A secret shows masked; an admin gets `[data-role=reveal]`.
    ///
    /// The list is read a page at a time (`api/keys?limit=…&afterHex=…`), the next page when
    /// the end of the drawn rows scrolls into view, so a file of a million keys shows its first
    /// rows as fast as one of ten. The filter boxes ask the server: `#prefix` for keys that start
    /// with the text, `#filter` for keys that contain it (ASCII letters in either case); their
    /// text only ever travels percent-encoded in a query.
    static let script = #"""
    "use strict";
    (() => {
      const rows = document.getElementById("rows");
      const status = document.getElementById("status");
      const filter = document.getElementById("filter");
      const prefixBox = document.getElementById("prefix");
      const more = document.getElementById("more");
      // Keys a page of the list holds; the next page is read when `#more` scrolls into view.
      const PAGE = 200;
      // The server's cursor after the last page read (nextHex); null once the list is complete.
      let nextHex = null;
      // The filter the drawn rows were read with, and a counter that makes a stale answer moot.
      let listed = { prefix: "", contains: "" };
      let generation = 0;
      let loadingMore = false;
      let historyAvailable = false;
      let historyKey = null;
      let source = null;
      // Who the page is (api/session): no role for the owner of a console without a token.
      let session = null;
      const entries = new Map();

      // A key travels in the query, never in the path: a browser resolves "." and ".." in a
      // path (even as %2E) before sending it, and a query is sent as it is. A key that is not
      // UTF-8 is named by its bytes (keyHex), as the API lists it.
      const address = (entry) => "api/keys?" + (entry.keyHex ? "keyHex=" + entry.keyHex : "key=" + encodeURIComponent(entry.key));
      const el = (tag, attrs, text) => {
        const node = document.createElement(tag);
        for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
        if (text !== undefined && text !== null) node.textContent = text;
        return node;
      };
      // Whether this session may change or remove a key: the list says so for each key it
      // sends; a key first seen in the event stream is judged by the same rule as the server
      // (a plain prefix of the name; a string prefix is a byte prefix of its UTF-8).
      const mayWrite = (key) => {
        if (!session || !session.role || session.role === "admin") return true;
        if (session.role !== "write") return false;
        return session.prefixes.length === 0 || session.prefixes.some((prefix) => key.startsWith(prefix));
      };
      const writable = (entry) => (typeof entry.writable === "boolean" ? entry.writable : mayWrite(entry.key));
      const rowOf = (key) => {
        for (const row of rows.children) if (row.dataset.key === key) return row;
        return null;
      };
      // As the server filters: a prefix of the key's UTF-8, and a substring with ASCII letters
      // folded (other characters exactly).
      const asciiLower = (text) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
      const matches = (key) => key.startsWith(listed.prefix) && asciiLower(key).includes(asciiLower(listed.contains));
      // Key order as the server sorts: by the UTF-8 bytes.
      const encoder = new TextEncoder();
      const byteOrder = (a, b) => {
        const x = encoder.encode(a), y = encoder.encode(b);
        for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
        return x.length - y.length;
      };
      // Whether a key changed by an event belongs among the drawn rows: it matches the filter
      // and sorts before the end of what was read (later keys come with a later page).
      const inWindow = (key) => {
        if (!matches(key)) return false;
        if (nextHex === null) return true;
        const last = rows.lastElementChild;
        return last !== null && byteOrder(key, last.dataset.key) <= 0;
      };
      const listURL = (after) => {
        let url = "api/keys?limit=" + PAGE;
        if (listed.prefix !== "") url += "&prefix=" + encodeURIComponent(listed.prefix);
        if (listed.contains !== "") url += "&contains=" + encodeURIComponent(listed.contains);
        if (after) url += "&afterHex=" + after;
        return url;
      };

      // A failed request throws an Error with the status and the JSON body (a 412's "current").
      async function request(method, url, body, headers) {
        const options = { method, credentials: "same-origin", headers: Object.assign({}, headers || {}) };
        if (body !== undefined) { options.headers["Content-Type"] = "application/json"; options.body = JSON.stringify(body); }
        const response = await fetch(url, options);
        const text = await response.text();
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
        if (!response.ok) {
          const failure = new Error((json && json.error) || (response.status + " " + response.statusText));
          failure.status = response.status; failure.body = json;
          throw failure;
        }
        return json;
      }
      // Whether this session may reveal a secret: an admin, or the owner of a console without a token.
      const mayReveal = () => !session || !session.role || session.role === "admin";
      const MASK = "••••••";

      // What an editor's text must look like before it is sent; the server checks again.
      function check(type, text) {
        switch (type) {
          case "int": if (!/^[-+]?\d+$/.test(text.trim())) return "expected a whole number";
            try { const n = BigInt(text.trim()); if (n > 9223372036854775807n || n < -9223372036854775808n) return "outside the 64-bit range"; } catch (_) { return "expected a whole number"; }
            return null;
          case "double": return text.trim() !== "" && Number.isFinite(Number(text)) ? null : "expected a finite number such as 0.5";
          case "json": try { JSON.parse(text); return null; } catch (e) { return "not valid JSON: " + e.message; }
          case "url": try { new URL(text); return /\s/.test(text) ? "a URL has no spaces" : null; } catch (_) { return "expected an absolute URL"; }
          case "data": return /^[A-Za-z0-9+/]*={0,2}$/.test(text.trim()) && text.trim().length % 4 === 0 ? null : "expected base64";
          case "date": return text.trim().toLowerCase() === "now" || !Number.isNaN(Date.parse(text)) ? null : "expected an ISO 8601 date";
          default: return null;
        }
      }

      function editorFor(entry) {
        const type = entry.type;
        let editor;
        if (entry.allowed) {
          editor = el("select");
          for (const option of entry.allowed) editor.appendChild(el("option", { value: option }, option));
          editor.value = entry.text ?? entry.allowed[0];
        } else if (type === "bool") {
          editor = el("input", { type: "checkbox" });
          editor.checked = entry.text === "true" || entry.text === "1";
        } else if (type === "int" || type === "double") {
          editor = el("input", { type: "text", inputmode: type === "int" ? "numeric" : "decimal" });
          editor.value = entry.text ?? "";
        } else if (type === "json" || type === "data" || (entry.text && (entry.text.length > 60 || entry.text.includes("\n")))) {
          editor = el("textarea", { spellcheck: "false" });
          editor.value = entry.text ?? "";
        } else {
          editor = el("input", { type: type === "url" ? "url" : "text" });
          editor.value = entry.text ?? "";
        }
        editor.setAttribute("data-role", "editor");
        editor.setAttribute("aria-label", "New value of " + entry.key);
        return editor;
      }

      function showError(row, message) {
        const error = row.querySelector("[data-role=error]");
        error.textContent = message || "";
        error.hidden = !message;
      }

      function showConflict(row, current) {
        let conflict = row.querySelector("[data-role=conflict]");
        if (!current) { if (conflict) conflict.remove(); return; }
        if (!conflict) {
          conflict = el("div", { class: "conflict", "data-role": "conflict" });
          row.querySelector("td.value-cell").append(conflict);
        }
        const changed = current.changed || {};
        const who = changed.actor || writerText(changed.writer) || "someone";
        const value = current.secret ? MASK : (current.text ?? "(removed)");
        conflict.textContent = "Changed meanwhile by " + who + (changed.reason ? " (" + changed.reason + ")" : "") + ": now " + value +
          " (version " + current.seq + "). Save again to replace it with your value, or cancel.";
        conflict.setAttribute("data-seq", String(current.seq));
      }

      // The key's entry as the server has it now, when an event changed it since the list was read
      // (events carry no version): the editor then compares against what it shows.
      async function freshEntry(key) {
        const json = await request("GET", "api/keys?limit=1&prefix=" + encodeURIComponent(key));
        const entry = json.keys.find((item) => item.key === key);
        if (entry) render(entry);
        return entry;
      }

      async function openEditor(row) {
        let entry = entries.get(row.dataset.key);
        const cell = row.querySelector("td.value-cell");
        if (cell.querySelector("[data-role=editor]")) return;
        if (entry.stale && !entry.keyHex) {
          try { entry = (await freshEntry(entry.key)) || entry; } catch (error) { showError(row, error.message); return; }
          if (cell.querySelector("[data-role=editor]")) return;
        }
        // The version this edit is based on: sent as If-Match, moved on only by a conflict.
        let basis = entry.seq;
        const editor = editorFor(entry);
        const box = el("span", { class: "editor-box" });
        const reason = el("input", { type: "text", "data-role": "reason", placeholder: "reason (optional)", "aria-label": "Reason for changing " + entry.key });
        const save = el("button", { type: "button", "data-role": "save" }, "Save");
        const cancel = el("button", { type: "button", "data-role": "cancel" }, "Cancel");
        box.append(editor, reason, save, cancel);
        cell.querySelector("[data-role=value]").hidden = true;
        cell.insertBefore(box, cell.querySelector("[data-role=error]"));
        editor.focus();
        const close = () => { box.remove(); cell.querySelector("[data-role=value]").hidden = false; showError(row, ""); showConflict(row, null); };
        cancel.addEventListener("click", close);
        editor.addEventListener("keydown", (event) => {
          if (event.key === "Escape") close();
          if (event.key === "Enter" && editor.tagName !== "TEXTAREA") save.click();
        });
        save.addEventListener("click", async () => {
          const text = editor.type === "checkbox" ? (editor.checked ? "true" : "false") : editor.value;
          const problem = entry.allowed ? null : check(entry.type, text);
          if (problem) { showError(row, problem); return; }
          save.disabled = true;
          const body = entry.keyHex ? { value: text } : { value: text, type: entry.type };
          if (reason.value !== "") body.reason = reason.value;
          const headers = typeof basis === "number" && !entry.keyHex ? { "If-Match": '"' + basis + '"' } : {};
          try {
            const updated = await request("PUT", address(entry), body, headers);
            close();
            render(updated);
          } catch (error) {
            if (error.status === 412 && error.body) {
              // Someone else changed it: show theirs, keep this edit, and compare the next save
              // against the version now shown.
              const current = error.body.current;
              showError(row, "");
              if (current) { render(current); basis = current.seq; } else { basis = 0; }
              showConflict(row, current || { seq: 0, text: null, changed: null });
            } else {
              showError(row, error.message);
            }
          } finally { save.disabled = false; }
        });
      }

      // A writer of `prefs history --json` in words: "library prefs pid 12 ada@host", "sql", "fleet from host".
      function writerText(writer) {
        if (!writer) return "";
        if (writer.kind === "sql") return "sql";
        if (writer.kind === "fleet") return writer.host ? "fleet from " + writer.host : "fleet";
        const parts = [writer.kind];
        if (writer.program) parts.push(writer.program);
        if (writer.pid !== undefined) parts.push("pid " + writer.pid);
        if (writer.user || writer.host) parts.push((writer.user || "") + (writer.host ? "@" + writer.host : ""));
        return parts.join(" ");
      }

      // The last change: a history entry (from api/keys) or an event seen since the page loaded.
      function changedText(entry) {
        if (!entry.changed) return "";
        const when = new Date(entry.changed.time);
        const who = entry.changed.actor || writerText(entry.changed.writer) || entry.changed.origin || "";
        return when.toLocaleString() + (who ? " · " + who : "");
      }

      function fill(row, entry) {
        row.querySelector("[data-role=type]").textContent = entry.type + (entry.declared ? "" : " (" + (entry.storage || "unset") + ")");
        const value = row.querySelector("[data-role=value]");
        if (entry.secret) {
          // A secret's value never reaches the page unless an admin reveals it.
          const isSet = entry.set !== false;
          value.textContent = isSet ? MASK : "";
          value.classList.toggle("unset", !isSet);
          value.setAttribute("data-secret", "true");
          if (!isSet) value.setAttribute("data-unset", "true"); else value.removeAttribute("data-unset");
        } else {
          value.removeAttribute("data-secret");
          // As `prefs read` prints it: an unset declared key reads as its default (shown as unset).
          value.textContent = entry.text ?? entry.defaultText ?? "";
          value.classList.toggle("unset", entry.text === null || entry.text === undefined);
          if (entry.text === null || entry.text === undefined) value.setAttribute("data-unset", "true"); else value.removeAttribute("data-unset");
        }
        row.querySelector("[data-role=default]").textContent = entry.defaultText ?? "";
        row.querySelector("[data-role=summary]").textContent = entry.summary ?? "";
        row.querySelector("[data-role=changed]").textContent = changedText(entry);
      }

      function build(entry) {
        const row = el("tr");
        row.dataset.key = entry.key;
        const key = el("td", { class: "key" });
        key.append(el("span", { "data-role": "key" }, entry.key), el("div", { class: "summary", "data-role": "summary" }));
        const valueCell = el("td", { class: "value-cell" });
        valueCell.append(el("span", { class: "value", "data-role": "value" }), el("span", { class: "error", "data-role": "error", hidden: "" }));
        if (entry.secret && mayReveal()) {
          const reveal = el("button", { type: "button", "data-role": "reveal" }, "Reveal");
          reveal.addEventListener("click", async () => {
            try {
              const secret = await request("GET", "api/secret?key=" + encodeURIComponent(row.dataset.key));
              const value = row.querySelector("[data-role=value]");
              value.textContent = secret.text ?? "(unset)";
              value.setAttribute("data-revealed", "true");
            } catch (error) { showError(row, error.message); }
          });
          valueCell.insertBefore(reveal, valueCell.querySelector("[data-role=error]"));
        }
        const actions = el("td", { class: "actions" });
        // Only the keys this session may change get edit and remove controls.
        if (writable(entry)) {
          const edit = el("button", { type: "button", "data-role": "edit" }, "Edit");
          const remove = el("button", { type: "button", "data-role": "remove" }, "Remove");
          actions.append(edit, remove);
          edit.addEventListener("click", () => { openEditor(row).catch((error) => showError(row, error.message)); });
          remove.addEventListener("click", async () => {
            const entry = entries.get(row.dataset.key) || { key: row.dataset.key };
            const headers = typeof entry.seq === "number" && !entry.keyHex && !entry.stale ? { "If-Match": '"' + entry.seq + '"' } : {};
            try { await request("DELETE", address(entry), undefined, headers); } catch (error) { showError(row, error.message); }
          });
        }
        if (historyAvailable) {
          const history = el("button", { type: "button", "data-role": "history" }, "History");
          history.addEventListener("click", () => openHistory(entry.key));
          actions.append(history);
        }
        row.append(key, el("td", { class: "type" }, null), valueCell, el("td", { class: "default" }), el("td", { class: "changed" }), actions);
        row.children[1].append(el("span", { "data-role": "type" }));
        row.children[3].append(el("span", { class: "value", "data-role": "default" }));
        row.children[4].append(el("span", { "data-role": "changed" }));
        return row;
      }

      // A row the server listed matches; one an event brought may not (the filter changed
      // since): hidden until the next read.
      function applyFilter(row) {
        row.hidden = !matches(row.dataset.key);
      }

      function render(entry, fresh) {
        const previous = entries.get(entry.key);
        if (!entry.changed && previous && previous.changed) entry.changed = previous.changed;
        entries.set(entry.key, entry);
        let row = rowOf(entry.key);
        if (!row) {
          row = build(entry);
          let before = null;
          for (const other of rows.children) if (byteOrder(other.dataset.key, entry.key) > 0) { before = other; break; }
          rows.insertBefore(row, before);
        }
        fill(row, entry);
        applyFilter(row);
        if (fresh) markFresh(row);
        document.getElementById("empty").hidden = rows.children.length > 0;
      }

      function markFresh(row) {
        row.classList.add("fresh");
        row.setAttribute("data-fresh", "true");
        const key = row.querySelector("td.key");
        if (!key.querySelector(".badge")) key.append(el("span", { class: "badge", "data-role": "new" }, "new"));
        clearTimeout(row.freshTimer);
        row.freshTimer = setTimeout(() => {
          row.classList.remove("fresh"); row.removeAttribute("data-fresh");
          const badge = key.querySelector(".badge"); if (badge) badge.remove();
        }, 10000);
      }

      // Draws the entries of one page of the list after the rows already drawn.
      function append(json) {
        const fragment = document.createDocumentFragment();
        for (const entry of json.keys) {
          if (entries.has(entry.key) && rowOf(entry.key)) continue;
          entries.set(entry.key, entry); const row = build(entry); fill(row, entry); fragment.appendChild(row);
        }
        rows.appendChild(fragment);
        nextHex = typeof json.nextHex === "string" ? json.nextHex : null;
        more.hidden = nextHex === null;
      }

      // The next page, when the end of the drawn rows is in view and one is not being read.
      async function loadMore() {
        if (nextHex === null || loadingMore) return;
        loadingMore = true;
        const mine = generation;
        try {
          const json = await request("GET", listURL(nextHex));
          if (mine === generation) append(json);
        } catch (error) { status.textContent = error.message; }
        finally { loadingMore = false; }
        if (mine === generation && nextHex !== null && moreInView()) loadMore();
      }
      const moreInView = () => !more.hidden && more.getBoundingClientRect().top < window.innerHeight + 400;

      async function load() {
        listed = { prefix: prefixBox ? prefixBox.value : "", contains: filter.value };
        const mine = ++generation;
        const [who, json] = await Promise.all([request("GET", "api/session"), request("GET", listURL(null))]);
        if (mine !== generation) return;
        session = who;
        // A read-only session adds nothing: the form is taken out of the page.
        const add = document.getElementById("add");
        if (add && session.role === "read") add.remove();
        const identity = document.getElementById("identity");
        if (identity) identity.textContent = session.name ? session.name + " · " + session.role : "";
        historyAvailable = json.history === true;
        rows.replaceChildren();
        entries.clear();
        append(json);
        document.getElementById("empty").hidden = json.keys.length > 0;
        // When the rows were in the page, in ms since navigation began (measured by the tests).
        requestAnimationFrame(() => {
          document.documentElement.setAttribute("data-loaded-ms", performance.now().toFixed(0));
          if (moreInView()) loadMore();
        });
      }

      function onEvent(event) {
        const change = JSON.parse(event.data);
        // A key that is not UTF-8 reaches the stream with U+FFFD for its bytes: the list names
        // it by its escaped address, so read the list again.
        if (change.key.includes("\uFFFD")) { load().catch((error) => { status.textContent = error.message; }); return; }
        const old = entries.get(change.key);
        // A key outside the drawn window (filtered out, or in a page not read yet) is shown
        // when that page is read.
        if (!old && !inWindow(change.key)) return;
        const changed = { time: change.time, writer: change.writer, origin: change.origin, actor: change.actor, reason: change.reason };
        if (historyKey === change.key) openHistory(change.key);
        if (change.value === null && !change.secret && !(old && old.declared)) {
          entries.delete(change.key);
          const row = rowOf(change.key);
          if (row) row.remove();
          document.getElementById("empty").hidden = rows.children.length > 0;
          return;
        }
        const entry = Object.assign({ key: change.key, declared: false, default: null, defaultText: null, summary: null, allowed: null }, old || {});
        entry.value = change.value; entry.text = change.text; entry.storage = change.storage; entry.changed = changed;
        // Events carry no version: the next edit reads the key's version first.
        entry.stale = true;
        if (change.secret) { entry.secret = true; entry.set = true; }
        else if (entry.secret) entry.set = change.value !== null;
        // A declared bool reads as true/false, as the list sends it.
        if (entry.declared && entry.type === "bool" && (change.text === "1" || change.text === "0")) entry.text = change.text === "1" ? "true" : "false";
        if (!entry.declared && !change.secret) entry.type = { integer: "int", real: "double", blob: "data" }[change.storage] || "string";
        render(entry, true);
      }

      function connect() {
        if (source) source.close();
        source = new EventSource("api/events");
        source.addEventListener("open", () => {
          status.textContent = "live"; status.classList.add("live");
          load().catch((error) => { status.textContent = error.message; });
        });
        source.addEventListener("message", onEvent);
        // The server ended a stream that fell too far behind: EventSource reconnects by itself,
        // sending the id of the last event it received (Last-Event-ID), and the server sends
        // every change after it from the file's history.
        source.addEventListener("overflow", () => { status.textContent = "catching up…"; });
        // The history no longer keeps what this page missed: read the whole list again.
        source.addEventListener("compacted", () => load().catch((error) => { status.textContent = error.message; }));
        // A key was declared or undeclared: its type, default and summary changed.
        source.addEventListener("declarations", () => load().catch((error) => { status.textContent = error.message; }));
        source.addEventListener("error", () => { status.textContent = "reconnecting…"; status.classList.remove("live"); });
      }

      async function openHistory(key) {
        historyKey = key;
        const panel = document.getElementById("history-panel");
        document.getElementById("history-title").textContent = key;
        const list = document.getElementById("history-entries");
        const chart = document.getElementById("history-chart");
        list.replaceChildren(); chart.replaceChildren();
        panel.hidden = false;
        let history;
        try { history = await request("GET", "api/history?key=" + encodeURIComponent(key) + "&limit=200"); }
        catch (error) { list.append(el("li", { class: "error" }, error.message)); return; }
        if (historyKey !== key) return;
        list.replaceChildren(); chart.replaceChildren();
        if (history.length === 0) list.append(el("li", { class: "empty" }, "No change kept."));
        for (const item of history) {
          const writer = writerText(item.writer);
          const value = item.secret ? "changed (secret" + (item.digest ? ", digest " + item.digest.slice(0, 12) : "") + ")"
            : item.omitted !== undefined ? "(" + item.omitted + " bytes, not kept)"
            : item.value === null ? "removed" : (typeof item.value === "string" ? item.value : JSON.stringify(item.value));
          const li = el("li", { "data-role": "history-entry", "data-seq": String(item.seq) });
          li.append(el("strong", { "data-role": "history-value" }, value),
                    el("div", { class: "changed" }, "#" + item.seq + " · " + new Date(item.time).toLocaleString() + (writer ? " · " + writer : "")));
          // Who and why, as text (a reason may hold markup, newlines, 16 KiB).
          if (item.actor) li.append(el("div", { class: "actor", "data-role": "history-actor" }, "by " + item.actor));
          if (item.reason) li.append(el("div", { class: "reason", "data-role": "history-reason" }, item.reason));
          list.append(li);
        }
        drawChart(chart, history.filter((item) => typeof item.value === "number").reverse());
      }

      function drawChart(chart, points) {
        if (points.length < 2) return;
        const ns = "http://www.w3.org/2000/svg";
        const width = 460, height = 140, pad = 24;
        const times = points.map((p) => Date.parse(p.time)), values = points.map((p) => p.value);
        const t0 = Math.min(...times), t1 = Math.max(...times), v0 = Math.min(...values), v1 = Math.max(...values);
        const x = (t) => pad + (t1 === t0 ? 0.5 : (t - t0) / (t1 - t0)) * (width - 2 * pad);
        const y = (v) => height - pad - (v1 === v0 ? 0.5 : (v - v0) / (v1 - v0)) * (height - 2 * pad);
        const svg = document.createElementNS(ns, "svg");
        svg.setAttribute("viewBox", "0 0 " + width + " " + height);
        svg.setAttribute("data-role", "history-chart");
        const line = document.createElementNS(ns, "polyline");
        line.setAttribute("points", points.map((p, i) => x(times[i]) + "," + y(values[i])).join(" "));
        svg.append(line);
        points.forEach((p, i) => { const c = document.createElementNS(ns, "circle"); c.setAttribute("cx", x(times[i])); c.setAttribute("cy", y(values[i])); c.setAttribute("r", 3); svg.append(c); });
        for (const [v, label] of [[v1, String(v1)], [v0, String(v0)]]) { const t = document.createElementNS(ns, "text"); t.setAttribute("x", 2); t.setAttribute("y", y(v) + 3); t.textContent = label; svg.append(t); }
        chart.append(svg);
      }

      document.getElementById("history-close").addEventListener("click", () => { historyKey = null; document.getElementById("history-panel").hidden = true; });
      // The server filters: read the list again a moment after the typing stops.
      let filterTimer = null;
      const refilter = () => {
        clearTimeout(filterTimer);
        filterTimer = setTimeout(() => load().catch((error) => { status.textContent = error.message; }), 200);
      };
      // Only a change of what is asked reads again ("change" follows "input" with the same text).
      const onFilter = () => {
        if (filter.value === listed.contains && (!prefixBox || prefixBox.value === listed.prefix)) { clearTimeout(filterTimer); return; }
        refilter();
      };
      for (const box of [filter, prefixBox]) if (box) { box.addEventListener("input", onFilter); box.addEventListener("change", onFilter); }
      window.addEventListener("scroll", () => { if (moreInView()) loadMore(); }, { passive: true });
      more.addEventListener("click", () => loadMore());
      document.getElementById("add")?.addEventListener("submit", async (event) => {
        event.preventDefault();
        const form = event.target, error = form.querySelector("[data-role=add-error]");
        const key = form.key.value, type = form.type.value, text = form.value.value;
        const problem = key === "" ? "a key needs a name" : check(type, text);
        error.hidden = !problem; error.textContent = problem || "";
        if (problem) return;
        try {
          render(await request("PUT", address({ key }), { value: text, type }));
          form.reset();
        } catch (failure) { error.hidden = false; error.textContent = failure.message; }
      });
      connect();
    })();
    """#
}
#endif
