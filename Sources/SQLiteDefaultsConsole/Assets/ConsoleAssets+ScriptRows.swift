#if Console
extension ConsoleAssets {
    /// The script's second part (after `scriptSetUp`): drawing rows, editing, and the event
    /// stream; it closes the IIFE the first part opens.
    static let scriptRows = #"""
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
