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
    static let script = scriptSetUp + scriptRows

    /// The script's first part: state, the session, the list's paging and filters (one IIFE
    /// across both parts; split only to keep each file readable).
    static let scriptSetUp = #"""
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
        drawFlag(row, entry);
      }

      // A flagd flag (a key `flagd.flag.NAME` holding flagd's JSON for one flag) is shown as a
      // flag: its state, variants, default variant and targeting rule; an operator who may write
      // the key toggles the state or picks the default variant, sent as any edit is (the whole
      // flag, a reason, If-Match with the version shown).
      function drawFlag(row, entry) {
        const old = row.querySelector("[data-role=flag]");
        if (old) old.remove();
        if (!entry.key.startsWith("flagd.flag.") || entry.secret || typeof entry.text !== "string") return;
        let flag;
        try { flag = JSON.parse(entry.text); } catch (_) { return; }
        if (!flag || typeof flag !== "object" || !flag.variants || typeof flag.variants !== "object") return;
        const box = el("div", { class: "flag", "data-role": "flag" });
        const enabled = flag.state === "ENABLED";
        box.append(el("span", { class: "flag-state", "data-role": "flag-state", "data-state": String(flag.state) }, String(flag.state)));
        const variants = Object.keys(flag.variants).map((name) => name + ": " + JSON.stringify(flag.variants[name]));
        box.append(el("span", { "data-role": "flag-variants" }, "variants " + variants.join(" · ")));
        box.append(el("span", { "data-role": "flag-default" }, "default " + (flag.defaultVariant ?? "(none)")));
        const rule = flag.targeting && Object.keys(flag.targeting).length ? JSON.stringify(flag.targeting) : "none";
        box.append(el("code", { "data-role": "flag-targeting" }, "targeting " + rule));
        if (writable(entry)) {
          const reason = el("input", { type: "text", "data-role": "flag-reason", placeholder: "reason (optional)", "aria-label": "Reason for changing flag " + entry.key });
          const toggle = el("button", { type: "button", "data-role": "flag-toggle" }, enabled ? "Disable" : "Enable");
          const pick = el("select", { "data-role": "flag-default-select", "aria-label": "Default variant of " + entry.key });
          for (const name of Object.keys(flag.variants)) {
            const option = el("option", { value: name }, name);
            if (name === flag.defaultVariant) option.selected = true;
            pick.append(option);
          }
          const send = async (changed) => {
            const body = entry.keyHex ? { value: JSON.stringify(changed) } : { value: JSON.stringify(changed), type: entry.type };
            if (reason.value !== "") body.reason = reason.value;
            const headers = typeof entry.seq === "number" && !entry.keyHex && !entry.stale ? { "If-Match": '"' + entry.seq + '"' } : {};
            toggle.disabled = true; pick.disabled = true;
            try {
              render(await request("PUT", address(entry), body, headers));
            } catch (error) {
              if (error.status === 412 && error.body && error.body.current) {
                render(error.body.current);
                showConflict(row, error.body.current);
              } else {
                showError(row, error.message);
              }
            } finally { toggle.disabled = false; pick.disabled = false; }
          };
          toggle.addEventListener("click", () => send(Object.assign({}, flag, { state: enabled ? "DISABLED" : "ENABLED" })));
          pick.addEventListener("change", () => send(Object.assign({}, flag, { defaultVariant: pick.value })));
          box.append(toggle, pick, reason);
        }
        row.querySelector("td.key").append(box);
      }


    """#
}
#endif
